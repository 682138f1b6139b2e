//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"windtunnel/lab/sweep"
	"windtunnel/sessions"
)

// TestSweepSlurm submits a sweep of four tiny points to a real single-node Slurm as one job
// array, cancels one task mid-run with scancel (SIGTERM: a clean stop at a checkpoint), runs
// the sweep again on the folder — which submits that point alone, resumed from its
// checkpoint to the parameters of an uninterrupted run — and merges the folder with
// compare --from; then cancels another sweep with sweep cancel (cancelSlurm).
func TestSweepSlurm(t *testing.T) {
	if testing.Short() {
		t.Skip("trains four short runs under Slurm")
	}
	t.Parallel()
	startSlurm(t)
	dir := filepath.Join(t.TempDir(), "sw")
	const steps = 1200
	args := append([]string{"sweep", "--slurm", "--exe", os.Args[0], "--parallel", "2", "--cpus-per-task", "1", "--out", dir,
		"--set", "steps=" + itoa(steps), "--set", "lr=3e-3,1e-3", "--seeds", "2", "--set", "probe-every=0"}, tinySets("lr", "checkpoint-every")...)
	args = append(args, "--set", "checkpoint-every=50")
	start := time.Now()
	code, out, errs := runCLI(args...)
	if code != 0 {
		t.Fatalf("sweep: exit %d: %s%s", code, out, errs)
	}
	m, err := sweep.Read(dir)
	if err != nil || len(m.Jobs) != 1 || len(m.Points) != 4 {
		t.Fatalf("manifest after submitting: %+v, %v", m, err)
	}
	job := m.Jobs[0].ID
	p0 := m.Points[0]
	if p0.Name != "bijection-transformer-lr=3e-3-seed=1" {
		t.Fatalf("point 0 is %s", p0.Name)
	}

	// Cancel point 0, and requeue point 1 (as a preemption would), each after its first
	// checkpoint. A session shows its checkpoints at its writer's commits (every second), so
	// each run is held with SIGSTOP as soon as one shows, lest it finish first on a fast
	// machine; Slurm's SIGTERM waits until the SIGCONT that follows the interruption.
	ckAt := func(p sweep.Point) int {
		r, err := sessions.Open(m.SessionPath(p))
		if err != nil {
			return 0
		}
		defer r.Close()
		cks, _ := r.Checkpoints()
		if len(cks) == 0 {
			return 0
		}
		return cks[len(cks)-1]
	}
	held := map[int]int{} // point index → its writer's pid, stopped
	ck := map[int]int{}
	waitFor(t, 3*time.Minute, "a checkpoint of points 0 and 1", func() bool {
		for _, ix := range []int{0, 1} {
			if held[ix] != 0 {
				continue
			}
			if c := ckAt(m.Points[ix]); c > 0 {
				pid := sessions.WriterPid(m.SessionPath(m.Points[ix]))
				if pid == 0 || syscall.Kill(pid, syscall.SIGSTOP) != nil {
					t.Fatalf("%s (checkpoint %d) has no live writer to hold: it finished before it could be interrupted", m.Points[ix].Name, c)
				}
				held[ix] = pid
				ck[ix] = ckAt(m.Points[ix])
			}
		}
		return held[0] != 0 && held[1] != 0
	})
	for ix, cmd := range map[int][]string{0: {"scancel", job + "_0"}, 1: {"scontrol", "requeue", job + "_1"}} {
		if ck[ix] >= steps {
			t.Fatalf("%s finished (checkpoint %d) before it could be interrupted", m.Points[ix].Name, ck[ix])
		}
		out, err := exec.Command(cmd[0], cmd[1:]...).CombinedOutput()
		syscall.Kill(held[ix], syscall.SIGCONT)
		if err != nil {
			t.Fatalf("%s: %v: %s", cmd, err, out)
		}
	}
	ck0, ck1 := ck[0], ck[1]
	// A requeued batch job waits ~2 minutes (its begin time) before it may start again: once
	// it is pending, let it start now.
	waitFor(t, time.Minute, "the requeued task to be pending", func() bool { return strings.Contains(queueStates(job), job+"_1 PENDING") })
	if out, err := exec.Command("scontrol", "update", "JobId="+job+"_1", "StartTime=now").CombinedOutput(); err != nil {
		t.Fatalf("scontrol update StartTime=now: %v: %s", err, out)
	}
	waitFor(t, 3*time.Minute, "the first array to leave the queue", func() bool { return inQueue(job) == "" })
	log1, _ := os.ReadFile(filepath.Join(dir, sweep.LogDir, fmt.Sprintf("slurm-%s_1.out", job)))
	if !strings.Contains(string(log1), "restart 1") || !strings.Contains(string(log1), "resumed at step") {
		t.Errorf("the requeued task did not resume (checkpoint %d):\n%s", ck1, log1)
	}
	code, out, _ = runCLI("sweep", "status", dir)
	if code != 0 || !strings.Contains(out, "0  stopped") || strings.Count(out, " done ") != 3 {
		t.Fatalf("status after the cancel: exit %d\n%s", code, out)
	}
	t.Logf("first array: %s\n%s", time.Since(start).Round(time.Second), out)

	// Again on the folder: only point 0 is submitted, and it resumes.
	code, out, errs = runCLI("sweep", "--slurm", "--exe", os.Args[0], "--parallel", "2", "--out", dir, "--wait", "--poll", "1s")
	if code != 0 || !strings.Contains(out, "1 of 4 points (--array=0%2)") || !strings.Contains(out, "4/4 done") {
		t.Fatalf("sweep again: exit %d\n%s%s", code, out, errs)
	}
	m, _ = sweep.Read(dir)
	logPath := filepath.Join(dir, sweep.LogDir, fmt.Sprintf("slurm-%s_0.out", m.Jobs[1].ID))
	log, _ := os.ReadFile(logPath)
	if !strings.Contains(string(log), "resumed at step") {
		t.Errorf("point 0 did not resume:\n%s", log)
	}
	code, out, errs = runCLI("compare", "--from", dir)
	if code != 0 || !strings.Contains(out, "seeds 1..2") || !strings.Contains(out, "[lr 0.001]") || !strings.Contains(out, "[lr 0.003]") {
		t.Errorf("compare --from: exit %d\n%s%s", code, out, errs)
	}
	t.Logf("submitted to merged: %s\n%s", time.Since(start).Round(time.Second), out)
	code, out, _ = runCLI("sweep", "--slurm", "--exe", os.Args[0], "--out", dir)
	if code != 0 || !strings.Contains(out, "nothing to submit") {
		t.Errorf("a third time: exit %d %q", code, out)
	}
	checkResumed(t, m, p0, ck0, steps)
	checkResumed(t, m, m.Points[1], ck1, steps)
	if d := time.Since(start); d > 6*time.Minute {
		t.Errorf("took %s, more than 6 minutes", d.Round(time.Second))
	}
	cancelSlurm(t)
}

// cancelSlurm (issue 44 item 15) submits a sweep whose point 0 ends at once and point 1
// would train for hours, one task at a time, and cancels it with `sweep cancel` once point
// 1 trains: the array leaves the queue (point 2 never starts), point 1 stops cleanly at a
// checkpoint with its final evaluation, and point 0 stays done.
func cancelSlurm(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cancel")
	args := append([]string{"sweep", "--slurm", "--exe", os.Args[0], "--parallel", "1", "--cpus-per-task", "1", "--out", dir,
		"--set", "steps=60,50000000,50000001", "--set", "checkpoint-every=100000"}, tinySets("checkpoint-every")...)
	if code, out, errs := runCLI(args...); code != 0 {
		t.Fatalf("sweep to cancel: exit %d: %s%s", code, out, errs)
	}
	m, err := sweep.Read(dir)
	if err != nil || len(m.Jobs) != 1 {
		t.Fatalf("manifest: %+v, %v", m, err)
	}
	job := m.Jobs[0].ID
	waitFor(t, 3*time.Minute, "point 1 training", func() bool {
		r, err := sessions.Open(m.SessionPath(m.Points[1]))
		if err != nil {
			return false
		}
		defer r.Close()
		rec, ok, _ := r.At(-1)
		return ok && rec.Step > 0
	})
	code, out, errs := runCLI("sweep", "cancel", dir)
	if code != 0 || !strings.Contains(out, "cancelled Slurm job arrays "+job) {
		t.Fatalf("sweep cancel: exit %d\n%s%s", code, out, errs)
	}
	waitFor(t, 2*time.Minute, "the cancelled array to leave the queue", func() bool { return inQueue(job) == "" })
	st := m.Status(nil)
	if st[0].State != sweep.Done || st[1].State != sweep.Stopped || st[2].State != sweep.Missing {
		t.Errorf("after sweep cancel: %s, %s, %s; want done, stopped, missing", st[0].State, st[1].State, st[2].State)
	}
	r, err := sessions.Open(m.SessionPath(m.Points[1]))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cks, _ := r.Checkpoints()
	last, _, _ := r.At(-1)
	if len(cks) == 0 || cks[len(cks)-1] != last.Step || last.Eval == nil {
		t.Errorf("the cancelled point: checkpoints %v, last record at %d: want a final checkpoint and evaluation", cks, last.Step)
	}
	if code, out, _ := runCLI("sweep", "cancel", dir); code != 0 || !strings.Contains(out, "nothing to cancel") {
		t.Errorf("cancel again: exit %d %q", code, out)
	}
}

// checkResumed checks that point p, interrupted after its checkpoint at step ck and resumed,
// ends at its planned steps with the parameters of an uninterrupted run of its
// configuration (trained here, with the array tasks' one worker).
func checkResumed(t *testing.T, m *sweep.Manifest, p sweep.Point, ck, steps int) {
	t.Helper()
	cfg, err := sweep.PointConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Workers = 1
	refCk, _ := trainInProcess(t, cfg)
	r, err := sessions.Open(m.SessionPath(p))
	if err != nil {
		t.Fatal(err)
	}
	endCk, _, err := r.Checkpoint(-1)
	r.Close()
	if err != nil || endCk.Step != steps {
		t.Fatalf("%s: last checkpoint %+v, %v", p.Name, endCk, err)
	}
	if d := maxParamDiff(t, endCk, refCk); d > 1e-6 {
		t.Errorf("%s, resumed after its checkpoint at step %d, ends %g from an uninterrupted run's parameters", p.Name, ck, d)
	}
}
