package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"windtunnel/sessions"
)

// lengthsFeed is a live hmm run of 10 steps evaluated every step; the evaluations at the
// steps in withLengths carry the length-generalisation curve (K=20 trained, 30, 50).
func lengthsFeed(withLengths ...int) *sessions.Live {
	meta := sessions.Meta{Task: "hmm", Model: "transformer", Params: 1000, Layers: 2, Heads: 2, Steps: 10, Device: "cpu"}
	l := sessions.NewLive(meta, nil, nil)
	for s := 1; s <= 10; s++ {
		e := &sessions.Eval{BitErrorPosition: 0.08, BitErrorSample: 0.13, KLBits: 0.073, Accuracy: 0.9,
			ModelEntropy: []float64{1, 0.9, 0.8}, BayesEntropy: []float64{1, 0.85, 0.75}}
		for _, w := range withLengths {
			if w == s {
				e.Lengths = []sessions.LengthScore{
					{K: 20, Train: true, BitErrorPosition: 0.08, BitErrorSample: 0.13, KLBits: 0.073, Accuracy: 0.9},
					{K: 30, BitErrorPosition: 0.12, BitErrorSample: 0.17, KLBits: 0.11, Accuracy: 0.85},
					{K: 50, BitErrorPosition: 0.3, BitErrorSample: 0.35, KLBits: 0.28, Accuracy: 0.7},
				}
			}
		}
		l.Record(sessions.Record{Step: s, Loss: 1, StepsPerS: 5, State: sessions.Training, Eval: e})
	}
	return l
}

// TestBitErrorLengths checks the length-generalisation line of the Bit error pane: shown
// for an evaluation with Lengths, within the width at 80×24 (tabs) and 160×48 (grid),
// marked with its step when older than the newest evaluation, and absent without Lengths.
func TestBitErrorLengths(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		m := focusOn(t, sized(New(lengthsFeed(10), Options{}), sz[0], sz[1]), "Bit error")
		v := plain(m)
		mustContain(t, v, "length generalisation (trained K=20): K=20 (a) 0.080 (b) 0.130 KL 0.073",
			"K=30 (a) 0.120 (b) 0.170 KL 0.110", "K=50 (a) 0.300 (b) 0.350 KL 0.280")
		if strings.Contains(v, "…") {
			t.Errorf("%dx%d: the length line was cut:\n%s", sz[0], sz[1], v)
		}
		for i, line := range strings.Split(m.View(), "\n") {
			if n := ansi.StringWidth(line); n > sz[0] {
				t.Errorf("%dx%d: line %d is %d cells wide", sz[0], sz[1], i, n)
			}
		}
		if strings.Contains(v, "@10") && strings.Contains(v, "trained K=20) @") {
			t.Errorf("%dx%d: the newest evaluation's lengths are marked with a step", sz[0], sz[1])
		}
	}
	// The lengths of an earlier evaluation (the re-evaluation after a restore has none).
	m := focusOn(t, sized(New(lengthsFeed(4, 6), Options{}), 80, 24), "Bit error")
	mustContain(t, plain(m), "length generalisation (trained K=20) @6: K=20 (a) 0.080")
	// Narrow: one part a line, still within the width.
	p := newBitErrorPane(m.sh)
	p.SetSize(40, 20)
	for i, line := range p.lengthLines(40) {
		if n := ansi.StringWidth(line); n > 40 {
			t.Errorf("40 wide: length line %d is %d cells: %q", i, n, line)
		}
	}
	// Without Lengths (every task but hmm, and sessions recorded before): nothing.
	m = focusOn(t, sized(New(lengthsFeed(), Options{}), 80, 24), "Bit error")
	if v := plain(m); strings.Contains(v, "length generalisation") {
		t.Errorf("a run without lengths shows the length line:\n%s", v)
	}
}
