package main

import (
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"windtunnel/sessions"
	"windtunnel/sessions/derived"
	"windtunnel/sessions/figures"
)

// TestResumeKeepsFrameHistory: a run resumed from its checkpoint (here extended with
// --resume --steps) keeps the frame-precision history of the snapshots before the resume
// in its later snapshots — their steps, bit errors and J-lens ratios — instead of starting
// the history again at the resume (the Frame pane and the frame figure read it).
func TestResumeKeepsFrameHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a run twice")
	}
	path := filepath.Join(t.TempDir(), "r.wtlab")
	args := []string{"run", "--headless", "--task", "bijection", "--v", "8", "--layers", "2", "--heads", "1",
		"--width", "16", "--batch", "8", "--probe", "32", "--eval-every", "20", "--checkpoint-every", "60",
		"--probe-every", "20", "--jlens-n", "4", "--steps", "60", "--out", path}
	if code, _, errs := runCLI(args...); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, errs)
	}
	before := newestFrame(t, path)
	if code, _, errs := runCLI("run", "--headless", "--resume", path, "--steps", "100"); code != 0 {
		t.Fatalf("--resume --steps 100: exit %d: %s", code, errs)
	}
	after := newestFrame(t, path)
	if len(after) != len(before)+2 {
		t.Fatalf("frame history after the resume: steps %v; want the %d before it (%v) and 80, 100", steps(after), len(before), steps(before))
	}
	for i, p := range before {
		q := after[i]
		if q.Step != p.Step || q.BitErrorSample != p.BitErrorSample || q.BitError != p.BitError {
			t.Errorf("point %d: step %d (b) %g after the resume; was step %d (b) %g", i, q.Step, q.BitErrorSample, p.Step, p.BitErrorSample)
		}
		if len(q.JLens) == 0 {
			t.Errorf("point at step %d: no J-lens ratio against the newest frame after the resume", q.Step)
		}
	}
}

// newestFrame is the frame history of the session's newest snapshot.
func newestFrame(t *testing.T, path string) []sessions.FramePoint {
	t.Helper()
	r, err := sessions.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sn, _, err := r.Snapshot(-1)
	if err != nil || sn == nil || sn.Frame == nil {
		t.Fatalf("%s: newest snapshot %v, %v: want one with a frame history", path, sn, err)
	}
	return sn.Frame.Points
}

func steps(ps []sessions.FramePoint) []int {
	var out []int
	for _, p := range ps {
		out = append(out, p.Step)
	}
	return out
}

// TestFrameFigureReadsTheRun: the frame figure states the pre-registered rule as the report
// applies it (over every snapshot of the run and every evaluation), also for a session whose
// newest snapshot holds only the frames since a resume (as an older build wrote them).
func TestFrameFigureReadsTheRun(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a run")
	}
	t.Parallel()
	path := filepath.Join(t.TempDir(), "r.wtlab")
	if code, _, errs := runCLI("run", "--headless", "--task", "bijection", "--v", "8", "--layers", "2", "--heads", "2",
		"--width", "32", "--batch", "16", "--probe", "32", "--eval-every", "25", "--probe-every", "25",
		"--jlens-n", "4", "--steps", "300", "--lr", "0.005", "--out", path); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	r, err := figures.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if r.Dissociation == nil || r.Dissociation.FormStep < 0 {
		t.Fatalf("the run's rule: %+v; want a formed frame to draw", r.Dissociation)
	}
	d := *r.Dissociation
	slimmedFrameSeries(t, path, r.FrameRatio, d)
	pts := r.Snapshot.Frame.Points
	r.Snapshot.Frame.Points = pts[len(pts)-1:] // the history of a run resumed at its last snapshot
	dir := t.TempDir()
	if _, err := figures.Render([]figures.Run{r}, dir, figures.Options{Format: "svg"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "bijection-transformer-frame.svg"))
	if err != nil {
		t.Fatal(err)
	}
	outcome := "fails"
	if d.Holds {
		outcome = "holds"
	}
	for _, want := range []string{fmt.Sprintf("rule %s: θ %.2f", outcome, d.Threshold),
		fmt.Sprintf("×%.3g at t_form, ×%.3g at t_plateau", d.BitErrorForm/d.BitErrorFinal, d.BitErrorPlateau/d.BitErrorFinal),
		fmt.Sprintf("t_form %d, t_plateau %d", d.FormStep, d.PlateauStep)} {
		if !strings.Contains(html.UnescapeString(string(b)), want) {
			t.Errorf("frame figure: no %q", want)
		}
	}
}

// slimmedFrameSeries: a slim copy of the session at path (its newest snapshot alone) gives
// the run's frame series and rule outcome from that snapshot's history: the same steps and
// final-frame ratios as the whole session's snapshots (fr) within 1e-9, the same outcome (d).
func slimmedFrameSeries(t *testing.T, path string, fr *derived.FrameRatios, d derived.Dissociation) {
	t.Helper()
	dir := t.TempDir()
	if code, _, errs := runCLI("slim", "--out", dir, path); code != 0 {
		t.Fatalf("slim: exit %d: %s", code, errs)
	}
	slim := filepath.Join(dir, filepath.Base(path))
	rd, err := sessions.Open(slim)
	if err != nil {
		t.Fatal(err)
	}
	steps, err := rd.SnapshotSteps()
	rd.Close()
	if err != nil || len(steps) != 1 {
		t.Fatalf("the slim copy has snapshots at %v (%v), want the newest alone", steps, err)
	}
	s, err := derived.ReadRun(slim)
	if err != nil {
		t.Fatal(err)
	}
	if s.FrameRatio == nil || len(s.FrameRatio.Points) != len(fr.Points) || len(fr.Points) < 3 {
		t.Fatalf("slim copy's series %+v, want the run's %d points", s.FrameRatio, len(fr.Points))
	}
	for i, p := range s.FrameRatio.Points {
		if w := fr.Points[i]; p.Step != w.Step || math.Abs(p.MeanFinal-w.MeanFinal) > 1e-9 {
			t.Errorf("point %d: step %d ratio %.12g, want step %d ratio %.12g", i, p.Step, p.MeanFinal, w.Step, w.MeanFinal)
		}
	}
	if g := s.Dissociation; g == nil || g.FormStep != d.FormStep || g.PlateauStep != d.PlateauStep || g.Holds != d.Holds {
		t.Errorf("slim copy's rule %+v, want %+v", g, d)
	}
}
