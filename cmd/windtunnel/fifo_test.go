//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"windtunnel/lab/sweep"
)

// TestFIFOSession: a FIFO named like a session must make every command that reads sessions
// say that it is not a regular file, at once; opening it for reading would wait forever.
func TestFIFOSession(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.wtlab")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	for _, args := range [][]string{
		{"info", fifo},
		{"export", fifo},
		{"probe", fifo},
		{"replay", fifo},
		{"plot", fifo, "--out", out},
		{"report", fifo, "--out", out},
		{"compare", "--from", dir},
		{"run", "--headless", "--resume", fifo},
		{"ls", "--dir", dir},
	} {
		t.Run(args[0], func(t *testing.T) {
			type result struct {
				code      int
				out, errs string
			}
			done := make(chan result, 1)
			go func() {
				code, o, e := runCLI(args...)
				done <- result{code, o, e}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("%s blocked for 10 s", strings.Join(args, " "))
			}
			if !strings.Contains(r.errs, fifo+": not a regular file") {
				t.Errorf("exit %d, stderr %q; want it to say %s is not a regular file", r.code, r.errs, fifo)
			}
		})
	}
}

// TestFIFOInputs (issue 44 item 8): a FIFO given as run's --config, as a sweep file, or as
// a sweep folder's sweep.json is refused at once, exit 2, naming it (they waited for a
// writer forever), and nothing is written.
func TestFIFOInputs(t *testing.T) {
	dir := t.TempDir()
	sw := filepath.Join(dir, "sw")
	if err := os.Mkdir(sw, 0o700); err != nil {
		t.Fatal(err)
	}
	var fifos []string
	for _, name := range []string{"c.toml", "s.yaml", filepath.Join("sw", sweep.ManifestName)} {
		p := filepath.Join(dir, name)
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
		fifos = append(fifos, p)
	}
	fresh := filepath.Join(dir, "new")
	for _, c := range []struct {
		args []string
		fifo string
	}{
		{[]string{"run", "--headless", "--config", fifos[0], "--out", filepath.Join(dir, "x.wtlab")}, fifos[0]},
		{[]string{"sweep", fifos[1], "--out", fresh}, fifos[1]},
		{[]string{"sweep", "status", sw}, fifos[2]},
		{[]string{"sweep", "--out", sw}, fifos[2]},
		{[]string{"sweep", "--out", sw, "--set", "lr=1e-3,3e-4"}, fifos[2]},
	} {
		done := make(chan [3]string, 1)
		go func() {
			code, o, e := runCLI(c.args...)
			done <- [3]string{itoa(code), o, e}
		}()
		select {
		case r := <-done:
			if r[0] != "2" || !strings.Contains(r[2], c.fifo+" is a FIFO, not a regular file") {
				t.Errorf("%s: exit %s, stderr %q; want exit 2 naming the FIFO", strings.Join(c.args, " "), r[0], r[2])
			}
		case <-time.After(20 * time.Second):
			t.Errorf("%s blocked for 20 s", strings.Join(c.args, " "))
		}
	}
	for _, p := range []string{fresh, filepath.Join(dir, "x.wtlab"), filepath.Join(sw, sweep.LogDir)} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("a refused command wrote %s", p)
		}
	}
}
