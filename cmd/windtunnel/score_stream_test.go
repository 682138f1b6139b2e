package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"runtime"
	"strings"
	"testing"
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

// TestScoreMemoryFlat: score scores as it reads, so its memory does not grow with the
// number of lines: between line 2000 and line 20000 of a stream of bijection predictions
// (about 1 KB of scored rows a line) the live heap grows by less than maxGrowth.
func TestScoreMemoryFlat(t *testing.T) {
	const lines, mark, maxGrowth = 20000, 2000, 2 << 20
	code, out, errs := runCLI("sample", "--task", "bijection", "--v", "8", "--n", "50", "--json")
	if code != 0 {
		t.Fatalf("sample: exit %d: %s", code, errs)
	}
	var base [][]byte
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		m["model"] = m["posterior"] // a perfect model
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		base = append(base, append(b, '\n'))
	}
	in := &lineStream{lines: base, n: lines, mark: mark}
	var stdout, stderr bytes.Buffer
	root := newRoot(&stdout, &stderr)
	root.SetIn(in)
	root.SetArgs([]string{"score", "--task", "bijection", "--v", "8", "--json"})
	if err := root.Execute(); err != nil {
		t.Fatalf("score: %v %s", err, stderr.String())
	}
	var res scoreResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
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
