package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExe: the binary a sweep's points run, given or this one, made absolute; what is no
// executable file, and (for Slurm) a binary `go test` built, are ExeErrors.
func TestExe(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("PATH", t.TempDir()) // no windtunnel on PATH: the hint is go install
	os.WriteFile("wt", []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile("plain", []byte("x"), 0o644)
	os.Mkdir("folder", 0o755)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(self)
	for _, c := range []struct {
		exe     string
		slurm   bool
		want    string // the path returned, when no error
		wantErr string // part of the ExeError, "" none
	}{
		{exe: "wt", want: filepath.Join(dir, "wt")},
		{exe: filepath.Join(dir, "wt"), slurm: true, want: filepath.Join(dir, "wt")},
		{exe: "plain", wantErr: "--exe " + filepath.Join(dir, "plain") + ": not an executable file"},
		{exe: "folder", wantErr: "not an executable file"},
		{exe: "missing", slurm: true, wantErr: "not an executable file"},
		{exe: "", want: abs},
		// The test binary lives under go-build: for Slurm it is refused, with how to install.
		{exe: "", slurm: true, wantErr: "built by `go run` (" + self + ")"},
	} {
		if c.exe == "" && c.slurm && !BuiltByGo(self) {
			continue // a test binary built elsewhere (go test -c -o): nothing to refuse
		}
		got, err := Exe(c.exe, c.slurm)
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("Exe(%q, %v): %v", c.exe, c.slurm, err)
		case c.wantErr == "" && got != c.want:
			t.Errorf("Exe(%q, %v) = %q, want %q", c.exe, c.slurm, got, c.want)
		case c.wantErr != "" && (!IsExeError(err) || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("Exe(%q, %v) = %q, %v; want an ExeError with %q", c.exe, c.slurm, got, err, c.wantErr)
		}
	}
	if _, err := Exe("", true); err != nil && !strings.Contains(err.Error(), "go install ./cmd/windtunnel") {
		t.Errorf("no windtunnel on PATH: %v, want the go install hint", err)
	}
}

// TestSlurmCheck: each Slurm setting out of range or unable to stand in the script is
// refused naming sweep's flag; the defaults pass.
func TestSlurmCheck(t *testing.T) {
	ok := Slurm{Exe: "/bin/windtunnel", CPUsPerTask: 1}
	for _, c := range []struct {
		name string
		set  func(*Slurm)
		want string // part of the error, "" none
	}{
		{"defaults", func(*Slurm) {}, ""},
		{"parallel 0", func(s *Slurm) { s.Parallel = 0 }, ""},
		{"parallel -1", func(s *Slurm) { s.Parallel = -1 }, "sweep: --parallel -1 out of range: want ≥ 1 (or 0: no cap)"},
		{"cpus 0", func(s *Slurm) { s.CPUsPerTask = 0 }, "sweep: --cpus-per-task 0 out of range: want 1..4096"},
		{"cpus 4096", func(s *Slurm) { s.CPUsPerTask = 4096 }, ""},
		{"cpus 4097", func(s *Slurm) { s.CPUsPerTask = 4097 }, "--cpus-per-task 4097 out of range"},
		{"extra", func(s *Slurm) { s.Extra = []string{"--account=lab", "--array=0-9"} }, "the sweep sets --array itself"},
		{"partition", func(s *Slurm) { s.Partition = "gpu\nx" }, `sweep: --partition "gpu\nx": a line break`},
		{"time", func(s *Slurm) { s.Time = "1:00\r" }, "--time"},
		{"gres", func(s *Slurm) { s.Gres = "gpu:1\x00" }, "--gres"},
		{"exe", func(s *Slurm) { s.Exe = "/a\nb" }, "--exe"},
	} {
		s := ok
		c.set(&s)
		err := s.Check()
		if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
