package score

import (
	"encoding/json"
	"io"
	"runtime"
	"testing"
	"windtunnel/tunnels"
)

// lineStream is a reader of lines repeated n times in turn, which samples the live heap
// (after a collection) at line mark and at the end.
type lineStream struct {
	lines        [][]byte
	n, next      int
	mark         int
	buf          []byte
	atMark, last uint64
}

func (s *lineStream) Read(p []byte) (int, error) {
	for len(s.buf) == 0 {
		if s.next == s.mark {
			s.atMark = liveHeap()
		}
		if s.next == s.n {
			s.last = liveHeap()
			return 0, io.EOF
		}
		s.buf = s.lines[s.next%len(s.lines)]
		s.next++
	}
	k := copy(p, s.buf)
	s.buf = s.buf[k:]
	return k, nil
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestScoreMemoryFlat: Stream scores as it reads, so its memory does not grow with the
// number of lines: between line 2000 and line 20000 of a stream of bijection predictions
// (about 1 KB of scored rows a line) the live heap grows by less than maxGrowth.
func TestScoreMemoryFlat(t *testing.T) {
	const lines, mark, maxGrowth = 20000, 2000, 2 << 20
	t8, err := tunnels.New("bijection", tunnels.Config{V: 8})
	if err != nil {
		t.Fatal(err)
	}
	var base [][]byte
	var seq tunnels.Sequence
	for i := range 50 {
		t8.Fill(&seq, tunnels.TrainStream(1), uint64(i))
		b, err := json.Marshal(map[string]any{"task": "bijection", "tokens": seq.Tokens, "model": seq.Posterior}) // a perfect model
		if err != nil {
			t.Fatal(err)
		}
		base = append(base, append(b, '\n'))
	}
	in := &lineStream{lines: base, n: lines, mark: mark}
	res, err := Stream(in, "", func(string) (tunnels.Tunnel, error) { return t8, nil }, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Sequences != lines || res.BitErrorPosition > 1e-9 || res.Accuracy != 1 {
		t.Errorf("scored %d sequences, bit error %g, accuracy %g; want %d, 0, 1", res.Sequences, res.BitErrorPosition, res.Accuracy, lines)
	}
	growth := int64(in.last) - int64(in.atMark)
	t.Logf("live heap %.2f MB at line %d, %.2f MB at line %d", float64(in.atMark)/(1<<20), mark, float64(in.last)/(1<<20), lines)
	if growth > maxGrowth {
		t.Errorf("the live heap grew by %.1f MB from line %d to line %d, want under %d MB", float64(growth)/(1<<20), mark, lines, maxGrowth>>20)
	}
}
