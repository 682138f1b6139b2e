package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReadOnlySession copies a finished session into a directory made read-only and reads
// it with every command that reads a session without a terminal (info, export, probe, and
// slim, which copies it elsewhere: files come back from another machine read-only): each
// succeeds and nothing appears beside the session. Root ignores permissions, so there only
// the second is checked.
func TestReadOnlySession(t *testing.T) {
	src := filepath.Join(t.TempDir(), "s.wtlab")
	if code, _, errs := runCLI("run", "--headless", "--task", "bijection", "--v", "4", "--layers", "1", "--heads", "2", "--width", "8",
		"--batch", "8", "--probe", "16", "--steps", "20", "--eval-every", "10", "--checkpoint-every", "10", "--out", src); code != 0 {
		t.Fatalf("run: %s", errs)
	}
	if got := dirFiles(t, filepath.Dir(src)); !slices.Equal(got, []string{"s.wtlab"}) {
		t.Errorf("a finished run left %v", got)
	}
	dir := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "s.wtlab")
	if err := os.WriteFile(path, b, 0o444); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		t.Log("running as root: permissions are not enforced; checking that no file appears")
	} else {
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"info", path}, "steps     1..20 of 20"},
		{[]string{"export", path, "--format", "csv"}, "step,"},
		{[]string{"probe", path, "--json"}, `"step":20`},
		{[]string{"slim", "--out", filepath.Join(t.TempDir(), "slim"), path}, "no checkpoint (done)"},
	} {
		code, out, errs := runCLI(c.args...)
		if code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("%v: exit %d, want %q in\n%.400s%s", c.args, code, c.want, out, errs)
		}
		if got := dirFiles(t, dir); !slices.Equal(got, []string{"s.wtlab"}) {
			t.Errorf("%v left %v beside the session", c.args[0], got)
		}
	}
}

// TestViewerLog checks that a viewer's log goes to the user's cache directory, named after
// the session and marked with the pid, not beside the session.
func TestViewerLog(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
	t.Setenv("HOME", home)
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Skip("no user cache directory:", err)
	}
	sdir := t.TempDir()
	logger, closeLog, err := openViewerLog(filepath.Join(sdir, "run.wtlab"))
	if err != nil {
		t.Fatal(err)
	}
	logger.Printf("hello")
	closeLog()
	b, err := os.ReadFile(filepath.Join(cache, "windtunnel", "logs", "run.wtlab.log"))
	if err != nil || !strings.Contains(string(b), "hello") || !strings.HasPrefix(string(b), "["+itoa(os.Getpid())+"] ") {
		t.Errorf("log %q, %v", b, err)
	}
	if got := dirFiles(t, sdir); len(got) != 0 {
		t.Errorf("beside the session: %v", got)
	}
}

// dirFiles lists the names in dir.
func dirFiles(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}
