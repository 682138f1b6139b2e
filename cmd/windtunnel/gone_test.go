//go:build unix

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestSessionGoneStopsRun: a run whose session file is removed (rm -rf of its --out
// folder) or replaced mid-run must not end "done" with nothing recorded: it stops within a
// few seconds with an error naming the file, as on a full disk, and leaves a file put in
// its place alone.
func TestSessionGoneStopsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	t.Parallel() // its own child processes and folders
	const other = "someone else's file\n"
	for _, c := range []struct {
		name string
		act  func(t *testing.T, dir, path string)
	}{
		{"folder removed", func(t *testing.T, dir, path string) {
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
		}},
		{"file replaced", func(t *testing.T, dir, path string) {
			tmp := filepath.Join(dir, "other")
			if err := os.WriteFile(tmp, []byte(other), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "runs")
			path := filepath.Join(dir, "run.wtlab")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			args := append([]string{"run", "--headless", "--steps", "50000", "--out", path}, tinyRun...)
			cmd := exec.CommandContext(ctx, os.Args[0], args...)
			cmd.Env = append(os.Environ(), childEnv+"=1")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			// Let the run start and commit (once a second) before the file goes.
			deadline := time.Now().Add(30 * time.Second)
			for {
				if st, err := os.Stat(path); err == nil && st.Size() > 0 {
					break
				}
				select {
				case err := <-exited:
					t.Fatalf("the run ended (%v) before it made its session: %s", err, stderr.String())
				case <-time.After(50 * time.Millisecond):
				}
				if time.Now().After(deadline) {
					t.Fatalf("the run made no session in 30 s: %s", stderr.String())
				}
			}
			time.Sleep(1500 * time.Millisecond)
			c.act(t, dir, path)
			gone := time.Now()
			var err error
			select {
			case err = <-exited:
			case <-time.After(15 * time.Second):
				cmd.Process.Kill()
				<-exited
				t.Fatalf("the run went on for 15 s after its session file went: %s", stderr.String())
			}
			if err == nil {
				t.Fatalf("the run succeeded without its session file: %s", stderr.String())
			}
			re := regexp.MustCompile(`run stopped at step \d+: it can no longer be recorded: sessions: write ` + regexp.QuoteMeta(path) + `: the session file was removed or replaced`)
			if !re.MatchString(stderr.String()) {
				t.Errorf("stderr does not say the session file went:\n%s", stderr.String())
			}
			t.Logf("stopped %v after the file went", time.Since(gone).Round(time.Millisecond))
			if c.name == "file replaced" {
				if b, err := os.ReadFile(path); err != nil || string(b) != other {
					t.Errorf("the file put in the session's place now holds %q (%v)", b, err)
				}
			}
		})
	}
}
