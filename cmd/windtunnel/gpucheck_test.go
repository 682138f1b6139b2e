//go:build unix

package main

import (
	"compress/gzip"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"windtunnel/sessions"
)

// The device tool's limits on what comes back from $OUT: at most 8 files of at most 16 MiB,
// each named in letters, digits, '.', '_' and '-'.
const (
	gpuBackFiles = 8
	gpuBackBytes = 16 << 20
)

var gpuBackName = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// TestGPUCheckTrainStage runs scripts/gpu-check.sh's train stage as a lent GPU machine would,
// with this test binary as windtunnel and a tiny model on --device host in place of the paper
// preset on cuda: the run is stopped by the time limit (SIGTERM), nothing is written into
// the tree, and what is left in $OUT stays within what the device tool brings back, with the
// session in it readable (its evaluations, the final checkpoint's parameters, no optimiser
// state) and the summary's table.
func TestGPUCheckTrainStage(t *testing.T) {
	if testing.Short() {
		t.Skip("trains for 4 s")
	}
	t.Parallel()
	for _, tool := range []string{"bash", "timeout", "gzip", "split", "awk", "tar", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("gpu-check.sh needs %s: %v", tool, err)
		}
	}
	out, tmp := t.TempDir(), t.TempDir()
	start := time.Now().Add(-time.Second) // file times may be coarser than the clock
	cmd := exec.Command("bash", "../../scripts/gpu-check.sh", "run", "train")
	cmd.Env = append(os.Environ(), childEnv+"=1", "WINDTUNNEL_BIN="+os.Args[0], "OUT="+out, "TMPDIR="+tmp,
		"GPU_CHECK_TRAIN_S=4",
		"GPU_CHECK_TRAIN_EXTRA=--preset quick --device host --v 4 --layers 1 --heads 1 --width 8 --batch 8 --probe 16 --geometry-n 8 --eval-every 200 --probe-every 1000 --steps 100000000")
	log, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("gpu-check.sh run train: %v\n%s", err, log)
	}
	// The script reuses the binary it is given and writes nothing into the tree (no gpu/
	// built or unpacked): every file and folder of the repository is older than the run.
	if changed := changedSince(t, "../..", start); len(changed) > 0 {
		t.Errorf("gpu-check.sh run train wrote into the tree: %q", changed)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) > gpuBackFiles {
		t.Errorf("%d files in $OUT, the device tool brings back %d", len(entries), gpuBackFiles)
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		if !info.Mode().IsRegular() || info.Size() > gpuBackBytes || !gpuBackName.MatchString(e.Name()) {
			t.Errorf("$OUT/%s (%v, %d bytes) would not come back", e.Name(), info.Mode(), info.Size())
		}
	}
	summary, err := os.ReadFile(filepath.Join(out, "summary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"train            PASS", "state stopped", "   1000 ", "0.086"} {
		if !strings.Contains(string(summary), want) {
			t.Errorf("summary.txt lacks %q:\n%s", want, summary)
		}
	}

	// The session comes back gzip-compressed (in parts when large: here it is small).
	gz, err := os.Open(filepath.Join(out, "paper.wtlab.gz"))
	if err != nil {
		t.Fatalf("no session came back: %v\n%s", err, log)
	}
	defer gz.Close()
	zr, err := gzip.NewReader(gz)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "paper.wtlab")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(f, zr); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := sessions.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	recs, err := r.Records(0, 1<<62)
	if err != nil {
		t.Fatal(err)
	}
	evals, last := 0, recs[len(recs)-1]
	for _, rec := range recs {
		if rec.Eval != nil {
			evals++
		}
	}
	if evals < 5 || last.State != sessions.Stopped || last.Eval == nil {
		t.Errorf("session: %d evaluations, last record step %d state %s with eval %v; want ≥ 5, a stop with a final evaluation",
			evals, last.Step, last.State, last.Eval != nil)
	}
	c, ok, err := r.Checkpoint(-1)
	if err != nil || !ok {
		t.Fatalf("final checkpoint: %v, %v", ok, err)
	}
	if c.Step != last.Step || len(c.Params) == 0 || c.M != nil || c.V != nil {
		t.Errorf("checkpoint at step %d (last record %d), %d parameters, optimiser state kept: %v; want the final parameters without it",
			c.Step, last.Step, len(c.Params), c.M != nil)
	}
}

// changedSince lists what under root (its .git folder aside) was modified at or after
// since: a file written or a folder whose entries changed.
func changedSince(t *testing.T, root string, since time.Time) []string {
	t.Helper()
	var changed []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if !info.ModTime().Before(since) {
			changed = append(changed, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return changed
}

// TestGPUCheckBaselinesStage runs scripts/gpu-check.sh's baselines stage with this test
// binary as windtunnel and the CPU as the device under test (2 steps): Mamba and the LSTM
// train on both, their evaluations are compared (equal here), the stage passes and the
// summary carries the comparison; nothing is written into the tree.
func TestGPUCheckBaselinesStage(t *testing.T) {
	if testing.Short() {
		t.Skip("trains six 2-step runs")
	}
	t.Parallel()
	for _, tool := range []string{"bash", "timeout", "tar", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("gpu-check.sh needs %s: %v", tool, err)
		}
	}
	out, tmp := t.TempDir(), t.TempDir()
	start := time.Now().Add(-time.Second)
	cmd := exec.Command("bash", "../../scripts/gpu-check.sh", "run", "baselines")
	cmd.Env = append(os.Environ(), childEnv+"=1", "WINDTUNNEL_BIN="+os.Args[0], "OUT="+out, "TMPDIR="+tmp,
		"GPU_CHECK_BASELINES_DEVICE=cpu", "GPU_CHECK_BASELINES_STEPS=2")
	log, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("gpu-check.sh run baselines: %v\n%s", err, log)
	}
	sum, err := os.ReadFile(filepath.Join(out, "summary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"baselines        PASS", "mamba: bit error (a)", "lstm: bit error (a)", "mlp: bit error (a)", "differ by 0.00e+00 bits"} {
		if !strings.Contains(string(sum), want) {
			t.Errorf("summary lacks %q:\n%s\n%s", want, sum, log)
		}
	}
	if changed := changedSince(t, "../..", start); len(changed) > 0 {
		t.Errorf("gpu-check.sh run baselines wrote into the tree: %q", changed)
	}
}
