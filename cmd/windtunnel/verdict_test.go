package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"windtunnel/lab/launch"

	"windtunnel/lab"
	"windtunnel/sessions"
	"windtunnel/sessions/derived"
)

// TestRunVerdict checks that a run's JSON summary and its exit line give the verdict of its
// final evaluation against the tunnel's pass line (derived.VerdictOf: bit error (a) ≤
// derived.PassBits), naming the measure, and agree with the summary's bit error.
func TestRunVerdict(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v.wtlab")
	code, out, errs := runCLI(append([]string{"run", "--headless", "--steps", "20", "--out", path}, tinyRun...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var s launch.Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("summary %q: %v", out, err)
	}
	v := s.Verdict
	if v == nil || v.Measure != "bit_error_position" || v.Threshold != derived.PassBits || v.Rule != "bit error (a) ≤ 0.15" ||
		v.Value == nil || *v.Value != s.Eval.BitErrorPosition || v.Pass != (s.Eval.BitErrorPosition <= derived.PassBits) {
		t.Fatalf("verdict %+v for bit error (a) %v", v, s.Eval.BitErrorPosition)
	}
	want := derived.VerdictOf("bijection", sessions.Eval{BitErrorPosition: s.Eval.BitErrorPosition}).String()
	if !strings.Contains(errs, "windtunnel: done after 20 steps") || !strings.Contains(errs, "; "+want+"\n") {
		t.Errorf("exit line lacks %q:\n%s", want, errs)
	}
}

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
		sv := launch.SummaryVerdict(c.task, res)
		var b strings.Builder
		printExit(&b, c.task, res, "s.wtlab")
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
