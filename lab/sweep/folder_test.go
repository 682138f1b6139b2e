package sweep

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"windtunnel/sessions/runconfig"

	"windtunnel/sessions"
)

func testGrid(t *testing.T, lrs ...string) (Grid, []Point) {
	t.Helper()
	g := Grid{Axes: []Axis{{Flag: "task", Values: []string{"bijection"}}, {Flag: "lr", Values: lrs}, {Flag: "seed", Values: []string{"1", "2"}}}}
	pts, err := g.Points()
	if err != nil {
		t.Fatal(err)
	}
	for i := range pts {
		pts[i].Steps = 100
	}
	return g, pts
}

// TestPrepare: a new folder, the same sweep again, another sweep, a folder of other files,
// and manifests that name paths outside the folder.
func TestPrepare(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sw")
	g, pts := testGrid(t, "1e-3", "3e-4")
	m, err := Prepare(dir, g, pts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Prepare wrote %s: %v", dir, err)
	}
	m.Jobs = []Job{{ID: "7", Indices: []int{0, 3}, Array: "0,3"}}
	if err := m.Save(); err != nil {
		t.Fatal(err)
	}
	again, err := Prepare(dir, g, pts)
	if err != nil || len(again.Jobs) != 1 || again.Jobs[0].ID != "7" {
		t.Fatalf("the same sweep again: %+v, %v", again, err)
	}
	g2, pts2 := testGrid(t, "1e-3", "1e-2")
	if _, err := Prepare(dir, g2, pts2); !errors.Is(err, ErrOtherSweep) {
		t.Errorf("another grid: %v, want ErrOtherSweep", err)
	}
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "x.wtlab"), []byte("x"), 0o600)
	if _, err := Prepare(other, g, pts); !errors.Is(err, ErrOtherSweep) {
		t.Errorf("a folder of other files: %v, want ErrOtherSweep", err)
	}
	if _, err := Prepare(t.TempDir(), g, pts); err != nil {
		t.Errorf("an empty folder: %v", err)
	}

	for _, bad := range []func(*Manifest){
		func(m *Manifest) { m.Points[1].Name = "../escape" },
		func(m *Manifest) { m.Points[1].Name = m.Points[0].Name },
		func(m *Manifest) { m.Points[1].Index = 5 },
		func(m *Manifest) { m.Format = "other" },
		func(m *Manifest) { m.Points = nil },
		func(m *Manifest) { m.Jobs = []Job{{ID: "1", Indices: []int{99}}} },
		// The flags a sweep sets itself, added to a point (issue 44 item 7).
		func(m *Manifest) { m.Points[1].Args = append(m.Points[1].Args, "--out=/tmp/elsewhere.wtlab") },
		func(m *Manifest) { m.Points[1].Args = append(m.Points[1].Args, "--resume=/tmp/elsewhere.wtlab") },
		func(m *Manifest) { m.Points[1].Args = append(m.Points[1].Args, "--out", "/tmp/elsewhere.wtlab") },
		func(m *Manifest) { m.Points[1].Args = append(m.Points[1].Args, "--predictions=/tmp/p.jsonl") },
		func(m *Manifest) { m.Points[1].Args = append(m.Points[1].Args, "--detach=true") },
		func(m *Manifest) { m.Points[1].Args = append(m.Points[1].Args, "-o=x") },
	} {
		b := *m
		b.Points = slices.Clone(m.Points)
		bad(&b)
		data, _ := json.Marshal(&b)
		d := t.TempDir()
		os.WriteFile(filepath.Join(d, ManifestName), data, 0o600)
		if _, err := Read(d); err == nil {
			t.Errorf("Read accepted a manifest with %s", data[:min(len(data), 200)])
		}
		if _, err := Prepare(d, g, pts); !errors.Is(err, ErrOtherSweep) {
			t.Errorf("Prepare on a bad manifest: %v, want ErrOtherSweep", err)
		}
	}
}

func TestArraySpec(t *testing.T) {
	for _, c := range []struct {
		ix   []int
		p    int
		want string
	}{
		{[]int{0, 1, 2, 3}, 2, "0-3%2"},
		{[]int{7, 0, 2, 3}, 0, "0,2-3,7"},
		{[]int{5}, 1, "5%1"},
	} {
		if got := ArraySpec(c.ix, c.p); got != c.want {
			t.Errorf("ArraySpec(%v, %d) = %q, want %q", c.ix, c.p, got, c.want)
		}
	}
}

// TestScript runs the sbatch script with bash as an array task would, with a stand-in for
// the windtunnel binary that prints its arguments: a fresh point runs `run --out` with its
// flags, one whose session exists resumes it, and an index off the grid is an error.
func TestScript(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir := filepath.Join(t.TempDir(), "it's a sweep")
	g := Grid{Axes: []Axis{{Flag: "task", Values: []string{"bijection"}}, {Flag: "config", Values: []string{"a b.toml", "it's.toml"}}}}
	pts, err := g.Points()
	if err != nil {
		t.Fatal(err)
	}
	m, err := Prepare(dir, g, pts)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(); err != nil {
		t.Fatal(err)
	}
	fake := filepath.Join(t.TempDir(), "windtunnel")
	os.WriteFile(fake, []byte("#!/bin/sh\nfor a in \"$@\"; do printf '[%s]' \"$a\"; done\n"), 0o700)
	s := Slurm{Exe: fake, Parallel: 2, Partition: "gpu", Time: "1:00:00", Gres: "gpu:1", CPUsPerTask: 4, Extra: []string{"--account=lab"}}
	script, err := s.WriteScript(m)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(script)
	for _, want := range []string{"#SBATCH --array=0-1%2\n", "#SBATCH --requeue\n", "#SBATCH --cpus-per-task=4\n", "#SBATCH --partition='gpu'\n",
		"#SBATCH --time='1:00:00'\n", "#SBATCH --gres='gpu:1'\n", "#SBATCH --account=lab\n", "#SBATCH --open-mode=append\n"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("script lacks %q:\n%s", want, text)
		}
	}
	task := func(ix string) (string, error) {
		cmd := exec.Command(bash, script)
		cmd.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID="+ix, "SLURM_CPUS_PER_TASK=4")
		out, err := cmd.Output()
		return string(out), err
	}
	abs, _ := filepath.Abs(dir)
	s1 := filepath.Join(abs, pts[1].Session())
	out, err := task("1")
	want := "[run][--headless][--out][" + s1 + "][--workers][4][--task=bijection][--config=it's.toml]"
	if err != nil || !strings.HasSuffix(out, want) {
		t.Errorf("task 1: %q, %v; want it to end with %q", out, err, want)
	}
	os.WriteFile(s1, nil, 0o600)
	out, err = task("1")
	want = "[run][--headless][--resume][" + s1 + "][--workers][4]"
	if err != nil || !strings.HasSuffix(out, want) {
		t.Errorf("task 1 with a session: %q, %v; want it to end with %q", out, err, want)
	}
	if out, err := task("2"); err == nil {
		t.Errorf("task 2 of 2 points: %q, want an error", out)
	}
	if _, err := (Slurm{Extra: []string{"--array=1"}}).Script(m); err == nil {
		t.Error("an extra --array option was accepted")
	}
}

func TestParseQueue(t *testing.T) {
	_, pts := testGrid(t, "1e-3", "3e-4")
	m := &Manifest{Points: pts, Jobs: []Job{{ID: "11"}, {ID: "14"}}}
	q := m.parseQueue("11_0|RUNNING\n11_2|PENDING\n14_2|RUNNING\n99_1|RUNNING\n11_9|RUNNING\n11_[3-4%2]|PENDING\ngarbage\n")
	want := Queue{0: "RUNNING", 2: "RUNNING"}
	if len(q) != len(want) || q[0] != want[0] || q[2] != want[2] {
		t.Errorf("queue %v, want %v", q, want)
	}
}

// writeSession writes a session of a point with records up to step in state st.
func writeSession(t *testing.T, path string, planned, step int, st sessions.State) {
	t.Helper()
	cfg, err := runconfig.Preset(runconfig.PresetQuick, "bijection")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Steps = planned
	cj, _ := json.Marshal(cfg)
	w, err := sessions.Create(path, sessions.Meta{Task: "bijection", Model: "transformer", Steps: planned, Config: cj}, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for s := 1; s <= step; s++ {
		rec := sessions.Record{Step: s, State: sessions.Training, Loss: 1}
		if s == step { // its last record evaluates: bit error (a) step/1000, (b) step/500, KL step/250
			rec.State = st
			rec.Eval = &sessions.Eval{BitErrorPosition: float64(step) / 1000, BitErrorSample: float64(step) / 500, KLBits: float64(step) / 250}
		}
		w.Record(rec)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestStatus: each state from the sessions and the queue, and Pending's choice of points.
func TestStatus(t *testing.T) {
	dir := t.TempDir()
	g := Grid{Axes: []Axis{{Flag: "seed", Values: []string{"1", "2", "3", "4", "5", "6", "7", "8"}}}}
	pts, _ := g.Points()
	for i := range pts {
		pts[i].Steps = 100
	}
	m, _ := Prepare(dir, g, pts)
	m.Jobs = []Job{{ID: "5", Indices: []int{0, 1, 2, 3, 4, 5, 6}}}
	m.Save()
	writeSession(t, m.SessionPath(pts[0]), 100, 100, sessions.Done)
	writeSession(t, m.SessionPath(pts[1]), 100, 40, sessions.Stopped)
	writeSession(t, m.SessionPath(pts[2]), 100, 30, sessions.Training) // killed
	writeSession(t, m.SessionPath(pts[3]), 100, 20, sessions.Training)
	os.WriteFile(m.SessionPath(pts[4]), []byte("not a session"), 0o600)
	os.WriteFile(filepath.Join(dir, LogDir, "slurm-5_6.out"), []byte("windtunnel: --lr 0: want > 0\n\n"), 0o600)
	// A local log that ends with a run's summary: the run ended, its session was removed.
	os.WriteFile(filepath.Join(dir, LogDir, pts[7].Name+".log"), []byte("step 100/100\n{\"state\":\"done\"}\n"), 0o600)
	q := Queue{3: "RUNNING", 5: "PENDING"}
	want := []State{Done, Stopped, Failed, Running, Failed, Queued, Failed, Missing}
	sts := m.Status(q)
	for i, s := range sts {
		if s.State != want[i] {
			t.Errorf("point %d: %s (%s), want %s", i, s.State, s.Detail, want[i])
		}
	}
	if sts[1].Step != 40 || sts[1].Planned != 100 {
		t.Errorf("stopped point at %d/%d, want 40/100", sts[1].Step, sts[1].Planned)
	}
	if !strings.Contains(sts[6].Detail, "want > 0") || !sts[4].Unreadable {
		t.Errorf("details: %q, unreadable %v", sts[6].Detail, sts[4].Unreadable)
	}
	if p := Of(sts); p.Done != 1 || p.Running != 1 || p.Failed != 3 || p.Stopped != 1 || p.Left != 2 { // the stopped point named as status names it
		t.Errorf("progress %+v", p)
	}
	todo, _, notes, err := m.Pending(q, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	var ix []int
	for _, p := range todo {
		ix = append(ix, p.Index)
	}
	if !slices.Equal(ix, []int{1, 2, 4, 6, 7}) {
		t.Errorf("pending %v, want [1 2 4 6 7]", ix)
	}
	if _, err := os.Stat(m.SessionPath(pts[4]) + ".unreadable-20260102-030405"); err != nil || len(notes) != 1 {
		t.Errorf("the unreadable session was not set aside: %v, notes %q", err, notes)
	}
	// Without a queue (a local sweep), a session with no live writer is not running.
	if st := m.Status(nil)[3]; st.State != Failed {
		t.Errorf("local, no writer: %s", st.State)
	}
}

// TestStatusMetrics (issue 44 item 15): sweep status shows each point's newest bit error (a)
// and (b), and the sweep file's metric with its best done point.
func TestStatusMetrics(t *testing.T) {
	dir := t.TempDir()
	g := Grid{Axes: []Axis{{Flag: "seed", Values: []string{"1", "2", "3"}}}, Metric: &Metric{Name: "kl_bits", Goal: "maximize"}}
	pts, _ := g.Points()
	for i := range pts {
		pts[i].Steps = 100
	}
	m, _ := Prepare(dir, g, pts)
	m.Save()
	writeSession(t, m.SessionPath(pts[0]), 100, 100, sessions.Done)
	writeSession(t, m.SessionPath(pts[1]), 80, 80, sessions.Done)
	writeSession(t, m.SessionPath(pts[2]), 100, 90, sessions.Stopped)
	sts := m.Status(nil)
	if e := sts[1].Metrics; e == nil || *e.BitErrorPosition != 0.08 || *e.BitErrorSample != 0.16 {
		t.Errorf("point 1's metrics %+v, want (a) 0.08, (b) 0.16", e)
	}
	text := m.StatusText(sts)
	for _, want := range []string{"  (a)      (b)   kl_bits  name\n", "  0.0800   0.1600    0.3200  seed=2\n", "  0.0900   0.1800    0.3600  seed=3",
		"best kl_bits (maximize) of the points done: seed=1, 0.4000\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("status lacks %q:\n%s", want, text)
		}
	}
	if i, ok := Best(sts, Metric{Name: "bit_error", Goal: "minimize"}); !ok || i != 1 {
		t.Errorf("best bit error (a): point %d (%v), want 1", i, ok)
	}
}

// TestPrepareExtend (issue 44 item 15): a grid with every point of the folder's sweep and
// more (a third seed) extends it — the old points keep their indices (Slurm's array
// indices and logs), the new ones follow — while a grid that drops a point, or renames them
// all, is another sweep.
func TestPrepareExtend(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sw")
	grid := func(lrs, seeds []string) (Grid, []Point) {
		g := Grid{Axes: []Axis{{Flag: "task", Values: []string{"bijection"}}, {Flag: "lr", Values: lrs}, {Flag: "seed", Values: seeds}}}
		pts, err := g.Points()
		if err != nil {
			t.Fatal(err)
		}
		return g, pts
	}
	g, pts := grid([]string{"1e-3", "3e-4"}, []string{"1", "2"})
	m, err := Prepare(dir, g, pts)
	if err != nil {
		t.Fatal(err)
	}
	m.Jobs = []Job{{ID: "7", Indices: []int{0, 1, 2, 3}, Array: "0-3"}}
	if err := m.Save(); err != nil {
		t.Fatal(err)
	}
	g3, pts3 := grid([]string{"1e-3", "3e-4"}, []string{"1", "2", "3"})
	ext, err := Prepare(dir, g3, pts3)
	if err != nil {
		t.Fatalf("three seeds over two: %v", err)
	}
	var names []string
	for i, p := range ext.Points {
		if p.Index != i {
			t.Errorf("point %s has index %d at %d", p.Name, p.Index, i)
		}
		names = append(names, p.Name)
	}
	want := []string{"bijection-lr=1e-3-seed=1", "bijection-lr=1e-3-seed=2", "bijection-lr=3e-4-seed=1", "bijection-lr=3e-4-seed=2",
		"bijection-lr=1e-3-seed=3", "bijection-lr=3e-4-seed=3"}
	if !slices.Equal(names, want) || ext.Added() != 2 || len(ext.Jobs) != 1 || len(ext.Grid.Axes[2].Values) != 3 {
		t.Errorf("extended: %v, added %d, jobs %v, grid %v", names, ext.Added(), ext.Jobs, ext.Grid)
	}
	if err := ext.Save(); err != nil {
		t.Fatal(err)
	}
	if back, err := Read(dir); err != nil || len(back.Points) != 6 {
		t.Fatalf("read back: %v", err)
	}
	if again, err := Prepare(dir, g3, pts3); err != nil || again.Added() != 0 || !slices.EqualFunc(again.Points, ext.Points, func(a, b Point) bool { return a.Name == b.Name && a.Index == b.Index }) {
		t.Errorf("the extended grid again: %v, %+v", err, again)
	}
	for _, c := range []struct {
		name      string
		lrs, seed []string
	}{{"fewer seeds", []string{"1e-3", "3e-4"}, []string{"1", "2"}}, {"one lr (the names change)", []string{"1e-3"}, []string{"1", "2", "3"}}} {
		g, pts := grid(c.lrs, c.seed)
		if _, err := Prepare(dir, g, pts); !errors.Is(err, ErrOtherSweep) {
			t.Errorf("%s: %v, want ErrOtherSweep", c.name, err)
		}
	}
}

// TestCopyManifest: a sweep's manifest copied byte for byte and read back as the same sweep;
// a folder without one copies nothing; a manifest already at the target, and one that is
// not a sweep's, are refused, leaving the target as it was.
func TestCopyManifest(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sw")
	g, pts := testGrid(t, "1e-3")
	m, err := Prepare(dir, g, pts)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if ok, err := CopyManifest(dir, out); !ok || err != nil {
		t.Fatalf("CopyManifest: %v, %v", ok, err)
	}
	a, _ := os.ReadFile(filepath.Join(dir, ManifestName))
	b, _ := os.ReadFile(filepath.Join(out, ManifestName))
	if string(a) != string(b) {
		t.Errorf("the copy differs:\n%s\n%s", a, b)
	}
	if again, err := Prepare(out, g, pts); err != nil || len(again.Points) != len(pts) {
		t.Errorf("the copy is not the same sweep: %v", err)
	}
	if ok, err := CopyManifest(t.TempDir(), t.TempDir()); ok || err != nil {
		t.Errorf("a folder without a sweep: %v, %v; want nothing copied, no error", ok, err)
	}
	if ok, err := CopyManifest(dir, out); ok || err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("onto a manifest: %v, %v; want refused", ok, err)
	}
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, ManifestName), []byte(`{"format":"windtunnel-sweep/1","points":[{"index":0,"name":"../x"}]}`), 0o644)
	out2 := t.TempDir()
	if ok, err := CopyManifest(bad, out2); ok || err == nil || !strings.Contains(err.Error(), "is not one a sweep writes") {
		t.Errorf("a manifest naming a path outside its folder: %v, %v; want refused as not a sweep's", ok, err)
	}
	if _, err := os.Lstat(filepath.Join(out2, ManifestName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused manifest was written: %v", err)
	}
}
