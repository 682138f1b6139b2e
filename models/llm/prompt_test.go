package llm

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"windtunnel/models/bpe"
	"windtunnel/models/hf"
)

// TestEncodeStopsAtMaxTokens: a prompt over the model's length is refused while it is
// tokenized, not after (before: a 1.5 MiB prompt was tokenized whole, 381 MB allocated in
// 5.7 s, for a model of 64 positions), and one that fits is tokenized as the tokenizer does.
func TestEncodeStopsAtMaxTokens(t *testing.T) {
	m, err := Load(writeTiny(t, "neox", hf.F32, 1, false), Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	prompt := strings.Repeat("the cat sat on the mat. ", 1<<16)
	runtime.GC()
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	_, err = m.Encode(prompt, true)
	runtime.ReadMemStats(&b)
	if !errors.Is(err, bpe.ErrTooManyTokens) || !strings.Contains(err.Error(), "over 64 tokens") {
		t.Errorf("error %v, want one over 64 tokens", err)
	}
	if alloc := b.TotalAlloc - a.TotalAlloc; alloc > 1<<20 {
		t.Errorf("%d bytes allocated, want < 1 MiB", alloc)
	}
	short := "the cat sat"
	got, err := m.Encode(short, true)
	want, _ := m.Tokenizer.Encode(short, true)
	if err != nil || len(got) == 0 || len(got) != len(want) {
		t.Errorf("Encode(%q) = %v, %v; want %v", short, got, err, want)
	}
}
