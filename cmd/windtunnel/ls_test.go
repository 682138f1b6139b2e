package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"windtunnel/sessions"
	"windtunnel/sessions/index"
	"windtunnel/sessions/runconfig"
)

// lsSession writes a finished session of task and model with a final evaluation of bit
// error be, in dir.
func lsSession(t *testing.T, dir, name, task, model string, seed uint64, be float64) string {
	t.Helper()
	cfg, err := runconfig.Preset(runconfig.PresetQuick, task)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Model, cfg.Seed = model, seed
	path := filepath.Join(dir, name)
	w, err := sessions.Create(path, sessions.Meta{Task: task, Model: model, Steps: 5, Config: json.RawMessage(configJSON(t, cfg))}, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Record(sessions.Record{Step: 5, State: sessions.Done, Eval: &sessions.Eval{BitErrorPosition: be, KLBits: 2 * be, Accuracy: 0.5}})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLsFilterSortCLI: ls --where/--sort/--reverse on real sessions, as a table (the sort
// key's column added) and as JSON (metrics and configuration in every row).
func TestLsFilterSortCLI(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir()) // no live runs of others
	dir := t.TempDir()
	now := time.Now()
	for i, s := range []struct {
		name, task, model string
		seed              uint64
		be                float64
	}{
		{"h1.wtlab", "hmm", "transformer", 1, 0.03},
		{"h2.wtlab", "hmm", "lstm", 2, 0.30},
		{"h3.wtlab", "hmm", "transformer", 3, 0.01},
		{"b1.wtlab", "bijection", "transformer", 1, 0.002},
	} {
		p := lsSession(t, dir, s.name, s.task, s.model, s.seed, s.be)
		mt := now.Add(-time.Duration(i) * time.Minute)
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := runCLI("ls", "--dir", dir, "--where", "task=hmm", "--sort", "bit_error", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rows []index.Run
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range rows {
		names = append(names, filepath.Base(r.Path))
		if r.Metrics == nil || r.Metrics.KLBits == nil || *r.Metrics.KLBits != 2**r.BitError || len(r.Config) == 0 {
			t.Errorf("row %s lacks its metrics or configuration: %+v", r.Path, r)
		}
	}
	if want := []string{"h3.wtlab", "h1.wtlab", "h2.wtlab"}; !slices.Equal(names, want) {
		t.Errorf("--where task=hmm --sort bit_error: %v, want %v", names, want)
	}
	code, out, _ = runCLI("ls", "--dir", dir, "--where", "model=transformer", "--sort", "seed", "--reverse")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 4 || !strings.Contains(lines[0], "SEED") || !strings.Contains(lines[1], "h3.wtlab") ||
		!strings.Contains(lines[1], " 3 ") {
		t.Errorf("--sort seed --reverse: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI("ls", "--dir", dir, "--where", "accuracy>0.9")
	if code != 0 || !strings.Contains(out, `none of the 4 runs listed matches --where "accuracy>0.9"`) {
		t.Errorf("nothing matches: exit %d\n%s", code, out)
	}
	if code, _, errs := runCLI("ls", "--dir", dir, "--sort", "bit_eror"); code != 2 || !strings.Contains(errs, `did you mean "bit_error"?`) {
		t.Errorf("--sort with a misspelt key: exit %d, %s", code, errs)
	}
	for _, w := range []string{"bit_error=NaN", "bit_error!=NaN", "steps<1e400"} { // matched all, none, or compared text
		if code, out, errs := runCLI("ls", "--dir", dir, "--where", w); code != 2 || !strings.Contains(errs, "finite number") && !strings.Contains(errs, "out of range") {
			t.Errorf("--where %s: exit %d, want 2 and an error\n%s%s", w, code, out, errs)
		}
	}
}

// TestLsDir: --dir on a folder that does not exist, a FIFO or a file is a usage error
// naming it (it printed nothing and exited 0), a link to a folder is followed (it listed
// nothing), and the default ./runs missing is no error; --where path= matches the path as
// the table prints it, relative to the working directory, or absolute.
func TestLsDir(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir()) // no live runs of others
	base := t.TempDir()
	t.Chdir(base)
	runs := filepath.Join(base, "runs")
	os.Mkdir(runs, 0o700)
	lsSession(t, runs, "k9.wtlab", "hmm", "transformer", 1, 0.03)
	lsSession(t, runs, "k8.wtlab", "hmm", "transformer", 2, 0.04)
	fifo := filepath.Join(base, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(base, "notes.txt")
	os.WriteFile(file, []byte("x"), 0o600)
	link := filepath.Join(base, "link")
	if err := os.Symlink(runs, link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ dir, want string }{
		{filepath.Join(base, "missing"), "missing: no such folder"},
		{fifo, "fifo is a FIFO, not a folder"},
		{file, "notes.txt is a file, not a folder"},
	} {
		done := make(chan struct{})
		var code int
		var out, errs string
		go func() { code, out, errs = runCLI("ls", "--dir", c.dir); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("ls --dir %s blocks", c.dir)
		}
		if code != exitUsage || !strings.Contains(errs, "ls: --dir "+c.dir) || !strings.Contains(errs, c.want) || out != "" {
			t.Errorf("ls --dir %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.dir, code, out, errs, c.want)
		}
	}
	code, out, errs := runCLI("ls", "--dir", link)
	if code != 0 || !strings.Contains(out, filepath.Join("link", "k9.wtlab")) || !strings.Contains(out, filepath.Join("link", "k8.wtlab")) {
		t.Errorf("ls --dir LINK: exit %d\n%s%s", code, out, errs)
	}
	os.Remove(link)
	for _, where := range []string{"path=runs/k9.wtlab", "path=./runs/k9.wtlab", "path=" + filepath.Join(runs, "k9.wtlab")} {
		code, out, errs := runCLI("ls", "--where", where)
		if code != 0 || !strings.HasPrefix(out, "STATE") || !strings.HasSuffix(out, "  runs/k9.wtlab\n") || strings.Count(out, "\n") != 2 {
			t.Errorf("ls --where %s: exit %d\n%s%s", where, code, out, errs)
		}
	}
	os.RemoveAll(runs)
	if code, out, errs := runCLI("ls"); code != 0 || !strings.Contains(out, "no sessions in runs") {
		t.Errorf("ls without ./runs: exit %d\n%s%s", code, out, errs)
	}
}
