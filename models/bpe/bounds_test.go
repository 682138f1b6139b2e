package bpe

import (
	"errors"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestEncodeMaxStopsAtLimit: EncodeMax stops when the ids pass the limit, having done work
// for about that many tokens (a long prompt to a model of 100 tokens allocates little), and
// under the limit it is Encode.
func TestEncodeMaxStopsAtLimit(t *testing.T) {
	nx, _ := neox(t)
	ll, _ := llama3(t)
	long := strings.Repeat("the cat 1234 ", 1<<14) // 208 KiB, one stretch
	longPiece := strings.Repeat("x", 1<<18)        // one piece: refused before merging it
	for _, c := range []struct {
		name string
		tk   *Tokenizer
		text string
	}{
		{"neox", nx, long}, {"llama3", ll, long}, {"neox one piece", nx, longPiece}, {"llama3 one piece", ll, longPiece},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			_, alloc := cost(func() { _, err = c.tk.EncodeMax(c.text, true, 100) })
			if !errors.Is(err, ErrTooManyTokens) || !strings.Contains(err.Error(), "more than 100 tokens") {
				t.Errorf("error %v, want ErrTooManyTokens", err)
			}
			// At most the one piece's copy by ByteLevel (512 KiB); the merges of it (some
			// 18 MiB) never run.
			if alloc > 1<<20 {
				t.Errorf("%d bytes allocated, want < 1 MiB", alloc)
			}
			short := c.text[:200]
			want, err := c.tk.Encode(short, true)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.tk.EncodeMax(short, true, len(want))
			if err != nil || !slices.Equal(got, want) {
				t.Errorf("EncodeMax at the limit = %v, %v; want %v", got, err, want)
			}
			if _, err := c.tk.EncodeMax(short, true, len(want)-1); !errors.Is(err, ErrTooManyTokens) {
				t.Errorf("EncodeMax one under: %v", err)
			}
		})
	}
}

// qwen2Pattern is Qwen2's pre-tokenizer regex (Llama-3's with single digits).
const qwen2Pattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// TestWindowedSplitIsExact: the patterns tokenizers ship cut a text into the same spans
// whether each match is sought in a small window (doubled when the match reaches its end) or
// in the whole rest of the text, long runs of one class included.
func TestWindowedSplitIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	atoms := []string{"a", "Z", "é", "1", "7", " ", "  ", "\n", "\r\n", "\t", "'", "'s", "'LL", "$", ".", "\u00a0", "\u0301", "日"}
	text := func() string {
		var b strings.Builder
		for range rng.IntN(40) {
			a := atoms[rng.IntN(len(atoms))]
			b.WriteString(strings.Repeat(a, 1+rng.IntN(3)*rng.IntN(12)))
		}
		return b.String()
	}
	trials := 300 // 5000 each passed once
	if testing.Short() {
		trials = 50
	}
	for _, pat := range []string{gpt2Pattern, llama3Split, qwen2Pattern, `\s+`, `[a-z]+|\d`} {
		whole, err := newSplitter(pat)
		if err != nil {
			t.Fatal(err)
		}
		whole.window = 1 << 30
		for _, w := range []int{1, 2, 3, 5, 8, 64} {
			win := *whole
			win.window = w
			for range trials {
				s := text()
				got, err := win.spans(s)
				if err != nil {
					t.Fatal(err)
				}
				want, err := whole.spans(s)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("pattern %q window %d text %q:\n got %v\nwant %v", pat, w, s, got, want)
				}
			}
		}
	}
}

// TestLoadBoundedRead: a file whose size the file system understates (a /proc file says 0)
// is read no further than the limit.
func TestLoadBoundedRead(t *testing.T) {
	const p = "/proc/self/maps"
	if _, err := os.Stat(p); err != nil {
		t.Skipf("no %s here", p)
	}
	if _, err := load(p, 64); err == nil || !strings.Contains(err.Error(), "over the limit of 64 bytes") {
		t.Errorf("error %v, want the limit", err)
	}
}

// TestAddedLookups: ID and Special find added tokens through the index.
func TestAddedLookups(t *testing.T) {
	tk, _ := build(t, spec{added: []map[string]any{
		{"id": 300, "content": "<b>", "special": true}, {"id": 301, "content": "<a>"}, {"id": 300, "content": "<b>", "special": false},
	}})
	for _, c := range []struct {
		s  string
		id int
		ok bool
	}{{"<a>", 301, true}, {"<b>", 300, true}, {"<c>", 0, false}, {"Ġ", 32, true}} {
		if id, ok := tk.ID(c.s); id != c.id || ok != c.ok {
			t.Errorf("ID(%q) = %d, %v; want %d, %v", c.s, id, ok, c.id, c.ok)
		}
	}
	if !tk.Special(300) || tk.Special(301) || tk.Special(5) {
		t.Errorf("Special: 300 %v, 301 %v, 5 %v; want true, false, false", tk.Special(300), tk.Special(301), tk.Special(5))
	}
}

// TestReplaceToNothing: a Replace that deletes every character leaves nothing to encode.
func TestReplaceToNothing(t *testing.T) {
	tk, v := build(t, spec{normalizer: replaceNorm("a", "")})
	for text, want := range map[string][]int{"aa": nil, "ab": {v["b"]}} {
		if got, err := tk.Encode(text, false); err != nil || !slices.Equal(got, want) {
			t.Errorf("Encode(%q) = %v, %v; want %v", text, got, err, want)
		}
	}
}
