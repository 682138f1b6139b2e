package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"windtunnel/lab/sweep"
)

// tinySets is tinyRun as --set arguments of a sweep (without its task and the flags in skip).
func tinySets(skip ...string) []string {
	var out []string
	for i := 0; i+1 < len(tinyRun); i += 2 {
		name := strings.TrimPrefix(tinyRun[i], "--")
		if name == "task" || slices.Contains(skip, name) {
			continue
		}
		out = append(out, "--set", name+"="+tinyRun[i+1])
	}
	return out
}

// TestSweepBadInput: each bad command line exits 2 with a message naming the problem, and
// nothing is written or submitted.
func TestSweepBadInput(t *testing.T) {
	base := t.TempDir()
	other := filepath.Join(base, "other")
	if code, _, errs := runCLI("sweep", "--slurm", "--dry-run", "--exe", os.Args[0], "--out", other, "--set", "steps=40", "--set", "lr=1e-3,3e-4"); code != 0 {
		t.Fatalf("setting up a sweep: exit %d: %s", code, errs)
	}
	manifest, _ := os.ReadFile(filepath.Join(other, sweep.ManifestName))
	stray := filepath.Join(base, "stray")
	os.Mkdir(stray, 0o700)
	os.WriteFile(filepath.Join(stray, "notes.txt"), []byte("x"), 0o600)
	badFile := filepath.Join(base, "sweep.yaml")
	os.WriteFile(badFile, []byte("method: bayes\nparameters:\n  lr:\n    values: [1]\n"), 0o600)
	noSbatch := t.TempDir() // a PATH without sbatch
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	deepFile := filepath.Join(base, "deep.toml") // quotes a multi-line string closes with hide the depth from a naive scan
	os.WriteFile(deepFile, []byte("method = \"grid\"\nname = \"\"\"x\"\"\"\"\n[parameters.lr]\nvalues = "+deep+"\ndescription = \"\n"), 0o600)
	dottedFile := filepath.Join(base, "dotted.toml")
	os.WriteFile(dottedFile, []byte("method = \"grid\"\n[parameters.lr]\nvalues = [1]\n"+strings.Repeat("a.", 5000)+"a = 1\n"), 0o600)

	for _, c := range []struct {
		name string
		args []string
		path string // PATH, when set
		want string
	}{
		{"unknown flag", []string{"--set", "nosuch=1,2"}, "", "`windtunnel run` has no flag --nosuch (see windtunnel run --help)"},
		{"misspelt flag", []string{"--set", "lrr=1e-3,3e-4"}, "", "`windtunnel run` has no flag --lrr (did you mean --lr?)"},
		{"empty list", []string{"--set", "lr="}, "", "empty grid"},
		{"no grid", nil, "", "empty grid"},
		{"empty seeds", []string{"--seeds", "0"}, "", "empty grid"},
		{"bad value", []string{"--set", "lr=fast"}, "", "invalid argument"},
		{"refused value", []string{"--set", "steps=0,10"}, "", "--steps 0"},
		{"another task's flag", []string{"--set", "k=5,6"}, "", "--k applies to --task hmm only"},
		{"same run twice", []string{"--set", "lr=1e-3,0.001"}, "", "train the same run"},
		{"engine flag", []string{"--set", "out=a,b"}, "", "--out cannot be swept"},
		{"bad sweep file", []string{badFile}, "", `method "bayes": want grid or random`},
		{"another sweep", []string{"--slurm", "--dry-run", "--out", other, "--set", "lr=1e-2"}, "", "holds another sweep"},
		{"other files", []string{"--out", stray, "--set", "lr=1e-2,1e-3"}, "", "holds another sweep"},
		{"no sbatch", []string{"--slurm", "--out", filepath.Join(base, "new"), "--set", "lr=1e-2,1e-3"}, noSbatch, "sbatch is not on PATH"},
		{"jobs with slurm", []string{"--slurm", "--jobs", "2", "--set", "lr=1e-2,1e-3"}, "", "--jobs applies to --local only"},
		{"slurm flag locally", []string{"--parallel", "2", "--set", "lr=1e-2,1e-3"}, "", "--parallel applies to --slurm only"},
		{"no such binary", []string{"--exe", filepath.Join(base, "nope"), "--set", "lr=1e-2,1e-3"}, "", "not an executable file"},
		{"both engines", []string{"--slurm", "--local", "--set", "lr=1e-2,1e-3"}, "", "choose one engine"},
		{"bad sbatch option", []string{"--slurm", "--sbatch-option", "--array=0-9", "--set", "lr=1e-2,1e-3"}, "", "sets --array itself"},
		{"line break in --partition", []string{"--slurm", "--dry-run", "--partition", "gpu\n#SBATCH --output=/tmp/x", "--set", "lr=1e-2,1e-3"}, "", "--partition \"gpu\\n#SBATCH"},
		{"line break in --time", []string{"--slurm", "--dry-run", "--time", "1:00\n", "--set", "lr=1e-2,1e-3"}, "", "--time \"1:00\\n\": a line break"},
		{"GPU for CPU points", []string{"--slurm", "--dry-run", "--gres", "gpu:1", "--set", "lr=1e-2,1e-3"}, "", "asks Slurm for a GPU for every task, while 2 of the 2 points train on the CPU"},
		{"GPU for some CPU points", []string{"--slurm", "--dry-run", "--gres", "gpu:1", "--set", "device=cpu,cuda"}, "", "while 1 of the 2 points train on the CPU (the first: bijection-transformer-device=cpu-seed=1)"},
		{"line break in --gres", []string{"--slurm", "--dry-run", "--gres", "gpu:1\r", "--set", "lr=1e-2,1e-3"}, "", "--gres"},
		{"deep sweep file", []string{deepFile}, "", "deep: not a sweep file (at most 32)"},
		{"dotted keys in a sweep file", []string{dottedFile}, "", "dotted keys nested 100"},
		{"abbreviated sbatch option", []string{"--slurm", "--sbatch-option=--outp=/tmp/x", "--set", "lr=1e-2,1e-3"}, "", "sbatch reads --outp as --output"},
		{"short sbatch option", []string{"--slurm", "--sbatch-option=-ofile", "--set", "lr=1e-2,1e-3"}, "", "long form"},
		{"two sbatch options in one", []string{"--slurm", "--sbatch-option=--account=lab --arr=1", "--set", "lr=1e-2,1e-3"}, "", "its own --sbatch-option"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.path != "" {
				t.Setenv("PATH", c.path)
			}
			args := append([]string{"sweep"}, c.args...)
			if slices.Contains(c.args, "--slurm") && !slices.Contains(c.args, "--exe") {
				args = append(args, "--exe", os.Args[0]) // not go test's binary, which --slurm refuses
			}
			if !strings.Contains(strings.Join(c.args, " "), "--out") {
				args = append(args, "--out", filepath.Join(base, "new"))
			}
			code, _, errs := runCLI(args...)
			if code != exitUsage || !strings.Contains(errs, c.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, errs, c.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(base, "new")); err == nil {
		t.Error("a refused sweep created its folder")
	}
	if now, _ := os.ReadFile(filepath.Join(other, sweep.ManifestName)); !bytes.Equal(now, manifest) {
		t.Error("a refused sweep changed another sweep's manifest")
	}
	if code, _, errs := runCLI("sweep", "status", stray); code != exitUsage || !strings.Contains(errs, sweep.ManifestName) {
		t.Errorf("status of a folder that is not a sweep: exit %d, %q", code, errs)
	}
}

// TestSweepDryRun: --slurm --dry-run writes the folder and the script with every option
// passed through, needs no sbatch, and submits nothing.
func TestSweepDryRun(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	dir := filepath.Join(t.TempDir(), "sw")
	code, out, errs := runCLI("sweep", "--slurm", "--dry-run", "--exe", os.Args[0], "--out", dir, "--tasks", "bijection,hmm", "--set", "steps=40",
		"--set", "lr=1e-3,3e-4", "--seeds", "2", "--parallel", "3", "--partition", "gpu", "--time", "2:00:00", "--gres", "gpu:1",
		"--cpus-per-task", "8", "--sbatch-option=--qos=low", "--set", "device=cuda")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	script := filepath.Join(dir, sweep.ScriptName)
	if !strings.Contains(out, "sbatch --array=0-7%3 "+script) {
		t.Errorf("stdout %q does not say how to submit", out)
	}
	text, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"#SBATCH --array=0-7%3", "#SBATCH --partition='gpu'", "#SBATCH --time='2:00:00'", "#SBATCH --gres='gpu:1'",
		"#SBATCH --cpus-per-task=8", "#SBATCH --qos=low", "#SBATCH --requeue",
		"7) NAME='hmm-transformer-lr=3e-4-seed=2'; set -- '--task=hmm' '--model=transformer' '--steps=40' '--lr=3e-4' '--device=cuda' '--seed=2' ;;"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("script lacks %q:\n%s", want, text)
		}
	}
	m, err := sweep.Read(dir)
	if err != nil || len(m.Jobs) != 0 || len(m.Points) != 8 {
		t.Fatalf("manifest: %+v, %v", m, err)
	}
	code, out, _ = runCLI("sweep", "status", dir)
	if code != 0 || strings.Count(out, " missing ") != 8 || !strings.Contains(out, "0/8 done, 0 running, 0 failed, 8 left") {
		t.Errorf("status: exit %d\n%s", code, out)
	}
}

// TestSweepLocal trains three seeds with --jobs 2, reads the folder with compare --from,
// then trains only the point whose session was removed, and nothing when all are done.
func TestSweepLocal(t *testing.T) {
	if testing.Short() {
		t.Skip("trains three short runs")
	}
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "sw")
	args := append([]string{"sweep", "--local", "--jobs", "2", "--out", dir, "--set", "steps=100", "--seeds", "3"}, tinySets()...)
	code, out, errs := runCLI(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, out, errs)
	}
	if !strings.Contains(out, "3/3 done, 0 running, 0 failed, 0 left") || !strings.Contains(errs, "2 at a time") {
		t.Errorf("stdout %q\nstderr %q", out, errs)
	}
	names := []string{"bijection-transformer-seed=1", "bijection-transformer-seed=2", "bijection-transformer-seed=3"}
	for _, n := range names {
		if _, err := os.Stat(filepath.Join(dir, n+".wtlab")); err != nil {
			t.Errorf("no session for %s: %v", n, err)
		}
	}
	code, out, errs = runCLI("compare", "--from", dir)
	if code != 0 || !strings.Contains(out, "seeds 1..3") || strings.Count(out, "bijection  transformer") != 1 {
		t.Errorf("compare --from: exit %d\n%s%s", code, out, errs)
	}

	os.Remove(filepath.Join(dir, names[1]+".wtlab"))
	code, out, errs = runCLI("sweep", "--out", dir, "--jobs", "2")
	if code != 0 || !strings.Contains(errs, "training 1 point here") || !strings.Contains(errs, names[1]+" done") || strings.Contains(errs, names[0]+" done") {
		t.Errorf("again with a session removed: exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = runCLI("sweep", "--out", dir)
	if code != 0 || !strings.Contains(out, "all 3 points done") {
		t.Errorf("again when all are done: exit %d %q", code, out)
	}
	code, out, _ = runCLI("sweep", "status", dir)
	if code != 0 || strings.Count(out, " done ") != 3 {
		t.Errorf("status: exit %d\n%s", code, out)
	}

	// A fourth seed extends the finished sweep: only it is trained (issue 44 item 15: it was
	// "holds another sweep").
	args = append([]string{"sweep", "--local", "--out", dir, "--set", "steps=100", "--seeds", "4"}, tinySets()...)
	code, out, errs = runCLI(args...)
	if code != 0 || !strings.Contains(errs, "the sweep of 3 grows by 1 new point") || !strings.Contains(errs, "training 1 point here") ||
		!strings.Contains(errs, "bijection-transformer-seed=4 done") || !strings.Contains(out, "4/4 done") {
		t.Errorf("a fourth seed: exit %d\n%s%s", code, out, errs)
	}
	m, err := sweep.Read(dir)
	if err != nil || len(m.Points) != 4 || m.Points[3].Name != "bijection-transformer-seed=4" || m.Points[0].Name != names[0] {
		t.Errorf("manifest after a fourth seed: %+v, %v", m, err)
	}
}

// TestSweepHostileManifest (issue 44 item 7): a sweep folder whose sweep.json has --out (or
// --resume) added to a point's arguments is refused when it is read back — continuing it
// and its status exit 2 — and no session is written outside the folder (one was).
func TestSweepHostileManifest(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "sw")
	args := append([]string{"sweep", "--slurm", "--dry-run", "--exe", os.Args[0], "--out", dir, "--set", "steps=20", "--seeds", "2"}, tinySets()...)
	if code, _, errs := runCLI(args...); code != 0 {
		t.Fatalf("setting up the sweep: exit %d: %s", code, errs)
	}
	manifest := filepath.Join(dir, sweep.ManifestName)
	orig, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"out", "resume"} {
		outside := filepath.Join(base, flag+"-outside.wtlab")
		var m map[string]any
		if err := json.Unmarshal(orig, &m); err != nil {
			t.Fatal(err)
		}
		p := m["points"].([]any)[0].(map[string]any)
		p["args"] = append(p["args"].([]any), "--"+flag+"="+outside)
		data, _ := json.Marshal(m)
		os.WriteFile(manifest, data, 0o600)
		for _, cmd := range [][]string{{"sweep", "--local", "--out", dir}, {"sweep", "status", dir}} {
			code, out, errs := runCLI(cmd...)
			if code != exitUsage || !strings.Contains(errs, "--"+flag+" cannot be swept") {
				t.Errorf("%s with --%s in a point: exit %d\n%s%s", strings.Join(cmd, " "), flag, code, out, errs)
			}
		}
		if _, err := os.Stat(outside); !os.IsNotExist(err) {
			t.Errorf("a session was written outside the sweep's folder: %s (%v)", outside, err)
		}
	}
}

// TestSweepSlurmRefusesGoRun (issue 44 item 14): `sweep --slurm` from a binary the go command
// built for one use — this test binary, as `go run`'s, lives under a go-build folder — is
// refused, exit 2, with nothing written (it wrote that path into the sbatch script), saying
// how to install one; --exe names the binary instead. (A local sweep runs it: TestSweepLocal.)
func TestSweepSlurmRefusesGoRun(t *testing.T) {
	if !sweep.BuiltByGo(os.Args[0]) {
		t.Skipf("this test binary (%s) was not built by go test into a go-build folder", os.Args[0])
	}
	t.Setenv("PATH", t.TempDir()) // no windtunnel installed
	dir := filepath.Join(t.TempDir(), "sw")
	code, _, errs := runCLI("sweep", "--slurm", "--dry-run", "--out", dir, "--set", "lr=1e-3,3e-4")
	if code != exitUsage || !strings.Contains(errs, "built by `go run`") || !strings.Contains(errs, "go install ./cmd/windtunnel") {
		t.Errorf("exit %d, stderr %q; want exit 2 saying how to install windtunnel", code, errs)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Error("the refused sweep wrote its folder")
	}
	if code, _, errs := runCLI("sweep", "--slurm", "--dry-run", "--exe", os.Args[0], "--out", dir, "--set", "lr=1e-3,3e-4"); code != 0 {
		t.Errorf("with --exe: exit %d: %s", code, errs)
	}
}

// TestSweepRandom (issue 44 item 15): a random-search sweep file writes its drawn points —
// run_cap of them, crossed with --seeds — into the script, every point's configuration
// built by run's flags; the same command again continues the same sweep (the draws are
// seeded), and a larger run_cap extends it.
func TestSweepRandom(t *testing.T) {
	base := t.TempDir()
	file := func(cap string) string {
		p := filepath.Join(base, "r"+cap+".yaml")
		os.WriteFile(p, []byte("method: random\nrun_cap: "+cap+"\nrandom_seed: 3\nparameters:\n"+
			"  lr: {distribution: log_uniform_values, min: 1e-4, max: 1e-2}\n  warmup: {min: 1, max: 40}\n  steps: {value: 40}\n"), 0o600)
		return p
	}
	dir := filepath.Join(base, "sw")
	args := []string{"sweep", "--slurm", "--dry-run", "--exe", os.Args[0], "--out", dir, "--seeds", "2"}
	code, out, errs := runCLI(append(args, file("4"))...)
	if code != 0 || !strings.Contains(errs, "8 points (bijection × transformer × 4 draws (seed 3) of lr ~ log_uniform_values(0.0001, 0.01), warmup ~ int_uniform(1, 40), steps 40 × seed 1,2)") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	m, err := sweep.Read(dir)
	if err != nil || len(m.Points) != 8 || m.Grid.Random == nil {
		t.Fatalf("manifest: %+v, %v", m, err)
	}
	script, _ := os.ReadFile(filepath.Join(dir, sweep.ScriptName))
	if !strings.Contains(string(script), "7) NAME='"+m.Points[7].Name+"'") || !strings.Contains(string(script), "'--lr=") {
		t.Errorf("script:\n%s", script)
	}
	if code, _, errs := runCLI(append(args, file("4"))...); code != 0 || strings.Contains(errs, "grows by") {
		t.Errorf("the same random sweep again: exit %d: %s", code, errs)
	}
	if code, _, errs := runCLI(append(args, file("5"))...); code != 0 || !strings.Contains(errs, "the sweep of 8 grows by 2 new points") {
		t.Errorf("run_cap 5 over 4: exit %d: %s", code, errs)
	}
}
