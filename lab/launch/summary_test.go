package launch

import (
	"strings"
	"testing"

	"windtunnel/lab"
	"windtunnel/sessions"
)

// TestFinalVerdict checks the verdict of a final evaluation per tunnel, and that a run
// ended without one has none (no pass from zero scores).
func TestFinalVerdict(t *testing.T) {
	for _, c := range []struct {
		task string
		eval *sessions.Eval
		want string
	}{
		{"bijection", &sessions.Eval{BitErrorPosition: 0.07, Accuracy: 0.2}, "pass (bit error (a) 0.0700 ≤ 0.15)"},
		{"hmm", &sessions.Eval{BitErrorPosition: 0.1772, Accuracy: 0.9}, "FAIL (bit error (a) 0.1772 > 0.15)"},
		{"recall", &sessions.Eval{BitErrorPosition: 0.001, Accuracy: 0.253}, "FAIL (accuracy 0.2530 < 0.9)"},
		{"bijection", nil, ""},
	} {
		res := lab.Result{Last: sessions.Record{State: sessions.Done, Eval: c.eval}}
		sv := SummaryVerdict(c.task, res)
		var b strings.Builder
		PrintExit(&b, c.task, res, "s.wtlab")
		if c.eval == nil {
			if sv != nil || !strings.Contains(b.String(), "; no final evaluation\n") {
				t.Errorf("no evaluation: verdict %+v, exit line %q", sv, b.String())
			}
			continue
		}
		if sv == nil || !strings.Contains(b.String(), "; "+c.want+"\n") {
			t.Errorf("%s: verdict %+v, exit line %q, want %q", c.task, sv, b.String(), c.want)
		}
	}
}
