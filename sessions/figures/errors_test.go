package figures

import (
	"strings"
	"testing"

	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"windtunnel/sessions"
	"windtunnel/sessions/derived"
)

// bijectionGroup is one bijection run (V = 20 from its 19 scored positions) whose bit errors
// and KL at steps 25, 50, … 300 are f(step).
func bijectionGroup(f func(step int) float64) Group {
	var r Run
	r.Config.Task, r.Config.Model, r.Config.Seed = "bijection", "mlp", 1
	for step := 25; step <= 300; step += 25 {
		v := f(step)
		r.Evals = append(r.Evals, sessions.Record{Step: step, Eval: &sessions.Eval{BitErrorPosition: v,
			BitErrorSample: v, KLBits: v, BayesEntropy: make([]float64, 19)}})
	}
	return Group{Name: "bijection-mlp", Runs: []Run{r}}
}

// TestErrorsFigureRange: the Y range is the data's, at least a factor of two; the pass
// line is taken in when the data come near it and named at the edge when they stay far
// above it (a model at the context-free level), its label drawn either way; the log axis
// then has at least three labels spread over the range.
func TestErrorsFigureRange(t *testing.T) {
	cf := derived.ContextFreeBits(20)
	for _, tc := range []struct {
		name   string
		f      func(int) float64
		inPass bool
		text   string
	}{
		{"flat at the context-free level", func(int) float64 { return cf }, false, "pass 0.15 bits (a) lies below this range"},
		{"learning to 0.05", func(s int) float64 { return 1.2 * float64(25) / float64(s) * 0.5 }, true, "pass 0.15 bits (a)"},
	} {
		fig, ok := errorsFigure(bijectionGroup(tc.f))
		if !ok {
			t.Fatalf("%s: no figure", tc.name)
		}
		p := fig.plot
		if p.Y.Max/p.Y.Min < 2-1e-9 {
			t.Errorf("%s: range [%g, %g] narrower than a factor of two", tc.name, p.Y.Min, p.Y.Max)
		}
		if in := derived.PassBits >= p.Y.Min && derived.PassBits <= p.Y.Max; in != tc.inPass {
			t.Errorf("%s: pass line in [%g, %g]: %v, want %v", tc.name, p.Y.Min, p.Y.Max, in, tc.inPass)
		}
		if cf < p.Y.Min || cf > p.Y.Max {
			t.Errorf("%s: context-free %g outside [%g, %g]", tc.name, cf, p.Y.Min, p.Y.Max)
		}
		if got := labelled(p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max)); len(got) < 3 {
			t.Errorf("%s: Y labels %q, want 3 or more", tc.name, got)
		}
		if !strings.Contains(svgText(t, fig), tc.text) {
			t.Errorf("%s: no %q drawn", tc.name, tc.text)
		}
	}
	// drawing leaves the plot's legend as it was (drawPlot puts it back)
	fig, _ := errorsFigure(bijectionGroup(func(int) float64 { return cf }))
	before := fig.plot.Legend.Rectangle(draw.New(vgimg.New(400, 300))).Size()
	drawFigure(draw.New(vgimg.New(400, 300)), fig)
	if after := fig.plot.Legend.Rectangle(draw.New(vgimg.New(400, 300))).Size(); after != before {
		t.Errorf("legend %v after drawing, %v before", after, before)
	}
}
