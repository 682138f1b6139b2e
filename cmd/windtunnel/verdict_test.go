package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"windtunnel/lab/launch"

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
