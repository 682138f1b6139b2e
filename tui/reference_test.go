package tui

import (
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"

	"windtunnel/sessions"
	"windtunnel/sessions/derived"
	"windtunnel/tui/look"
)

// TestContextFree checks where the dashboard takes a bijection's V for the context-free
// level (derived.ContextFreeOf: the configuration's tunnel.V, else the Bayes curve's length;
// derived.ContextFreeBits is tested there).
func TestContextFree(t *testing.T) {
	// The fixture's configuration has no tunnel.V: V comes from its 19 scored positions.
	m := New(openFixture(t), Options{})
	if got := contextFree(m.sh); math.Abs(got-derived.ContextFreeBits(20)) > 1e-12 {
		t.Errorf("the fixture's level is %v, want V=20's", got)
	}
	sh := *m.sh
	sh.meta.Config = []byte(`{"tunnel":{"V":10,"States":5},"eval_every":250}`)
	sh.cfg = readConfig(sh.meta)
	if got := contextFree(&sh); got != derived.ContextFreeBits(10) || sh.cfg.EvalEvery != 250 {
		t.Errorf("with tunnel.V=10: level %v, cadence %d", got, sh.cfg.EvalEvery)
	}
	sh.meta.Task = "hmm"
	if !math.IsNaN(contextFree(&sh)) {
		t.Error("a context-free level for hmm")
	}
}

// refRow matches a chart row with a reference line: its value ticked on the y axis, the
// dashed line, then its name in the margin.
func refRow(tick, name string) *regexp.Regexp {
	return regexp.MustCompile(`(^|[^0-9.])` + regexp.QuoteMeta(tick) + `┤┄[^│┃]*` + regexp.QuoteMeta(name))
}

// TestBitErrorReferences checks the reference lines of the bit-error chart: Bayes at 0, the
// pass threshold at 0.15 and the bijection's context-free level at 1.11, each on its row
// with its label (pass shares Bayes' row, labelled "Bayes/pass", where 0.15 rounds to it);
// on the log scale all but Bayes' 0; for hmm no context-free level.
func TestBitErrorReferences(t *testing.T) {
	r := openFixture(t)
	for _, sz := range [][2]int{{80, 24}, {120, 40}, {160, 48}} {
		m := sized(New(r, Options{}), sz[0], sz[1])
		for _, log := range []bool{false, true} {
			v := plain(m)
			pass := refRow("0.15", "pass")
			if !log && !pass.MatchString(v) {
				pass = refRow("0", "Bayes/pass")
			}
			for _, row := range []*regexp.Regexp{refRow("0", "Bayes"), pass, refRow("1.11", "no context")} {
				if found := row.MatchString(v); found == (log && strings.Contains(row.String(), "Bayes")) {
					t.Errorf("%v log=%v: row %s found=%v:\n%s", sz, log, row, found, v)
				}
			}
			mustContain(t, v, "bits", "step", "position") // the axes' titles
			m, _ = press(t, m, "y")
		}
	}
	m := sized(New(lengthsFeed(), Options{}), 80, 24)
	v := plain(m)
	if !(refRow("0.15", "pass").MatchString(v) || refRow("0", "Bayes/pass").MatchString(v)) || !refRow("0", "Bayes").MatchString(v) || strings.Contains(v, "no context") {
		t.Errorf("hmm: want Bayes and pass lines, no context-free level:\n%s", v)
	}
}

// TestCoincidingMarkers checks that where two curves fall on one cell the chart draws their
// combined glyph: (a) and (b) as ⊙, the model's entropy on the Bayes curve as ◉, both named
// in the legends.
func TestCoincidingMarkers(t *testing.T) {
	xs := []float64{0, 1, 2, 3}
	same := look.Chart{XR: look.Span{Lo: 0, Hi: 3}, YR: look.Span{Lo: 0, Hi: 4}, XInt: true,
		Series: []look.Series{
			{Glyph: '∘', X: xs, Y: []float64{1, 2, 3, 4}},
			{Glyph: '•', X: xs, Y: []float64{1, 2, 3, 0}},
		},
		Overlaps: []look.Overlap{{A: 0, B: 1, Glyph: bothAB, Style: lipgloss.NewStyle()}},
	}.Draw(30, 12)
	if !strings.ContainsRune(same, bothAB) || !strings.ContainsRune(same, '∘') || !strings.ContainsRune(same, '•') {
		t.Errorf("want ⊙ where the curves meet and ∘, • where they part:\n%s", same)
	}
	m := sized(New(openFixture(t), Options{}), 120, 40)
	v := plain(m)
	mustContain(t, v, "⊙ both", "◉ both", string(bothModel))
	// The fixture's model entropy is within a row of Bayes at the end: no Bayes cell hides.
	e := m.sh.lastEval().Eval
	if mean(e.ModelEntropy)-mean(e.BayesEntropy) > 0.1 && !strings.ContainsRune(v, '·') {
		t.Errorf("the Bayes curve is hidden:\n%s", v)
	}
}

// noEvalFeed is a live run of the configuration cfg with records up to step upTo and no
// evaluation yet.
func noEvalFeed(cfg string, steps, upTo int) *sessions.Live {
	meta := sessions.Meta{Task: "bijection", Model: "transformer", Layers: 1, Heads: 1, Steps: steps, Config: []byte(cfg)}
	l := sessions.NewLive(meta, nil, nil)
	for s := 1; s <= upTo; s++ {
		l.Record(sessions.Record{Step: s, Loss: 3, StepsPerS: 10, State: sessions.Training})
	}
	return l
}

// TestFirstEvaluation checks that while no evaluation has come, the bit-error pane says at
// which step the first comes, from the configuration's eval_every.
func TestFirstEvaluation(t *testing.T) {
	for _, c := range []struct {
		cfg         string
		steps, upTo int
		want        string
	}{
		{`{"eval_every":100}`, 1000, 30, "no evaluations yet · first evaluation at step 100"},
		{`{"eval_every":100}`, 1000, 130, "first evaluation at step 200"},
		{`{"eval_every":500}`, 300, 30, "first evaluation at step 300"}, // the final step's
		{`{"eval_every":100}`, 1000, 0, "first evaluation at step 100"},
	} {
		for _, sz := range [][2]int{{80, 24}, {160, 48}} {
			m := sized(New(noEvalFeed(c.cfg, c.steps, c.upTo), Options{}), sz[0], sz[1])
			mustContain(t, plain(m), c.want)
		}
	}
	v := plain(New(noEvalFeed(`{}`, 1000, 30), Options{}))
	if !strings.Contains(v, "no evaluations yet") || strings.Contains(v, "first evaluation") {
		t.Errorf("without a cadence: want only \"no evaluations yet\":\n%s", v)
	}
}
