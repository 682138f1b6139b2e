//go:build unix

package sessions

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// wantLocked checks err is ErrLocked naming pid and the lock file.
func wantLocked(t *testing.T, err error, path string, pid int) {
	t.Helper()
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("err = %v, want ErrLocked", err)
	}
	var le *LockError
	if !errors.As(err, &le) || le.Pid != pid {
		t.Fatalf("err = %#v, want a *LockError with pid %d", err, pid)
	}
	for _, s := range []string{path, fmt.Sprintf("pid %d", pid), path + ".lock", "being written by another run"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not name %q", err, s)
		}
	}
}

// dirNames lists the names in dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func TestWriterLock(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.wtlab")
	w, err := Create(path, testMeta(), WriterOptions{Interval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range synth(20) {
		w.Record(r)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + ".lock"); err != nil {
		t.Fatalf("no lock file while writing: %v", err)
	}

	// A second writer is refused, whether it creates or appends.
	_, err = Create(path, testMeta(), WriterOptions{})
	wantLocked(t, err, path, os.Getpid())
	_, _, err = Append(path, 10, WriterOptions{})
	wantLocked(t, err, path, os.Getpid())

	// A reader is never blocked by the lock.
	r, err := Open(path)
	if err != nil {
		t.Fatalf("open a locked session: %v", err)
	}
	if n, err := r.Count(); err != nil || n != 20 {
		t.Fatalf("count = %d, %v; want 20", n, err)
	}
	r.Close()

	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if names := dirNames(t, dir); len(names) != 1 || names[0] != "run.wtlab" {
		t.Fatalf("after Close the directory holds %v, want the session alone", names)
	}

	// Once closed, the session can be continued, and is one file again after.
	w2, _, err := Append(path, 10, WriterOptions{})
	if err != nil {
		t.Fatalf("append after close: %v", err)
	}
	if _, err := Create(path, testMeta(), WriterOptions{}); !errors.Is(err, ErrLocked) {
		t.Fatalf("create while appending: %v, want ErrLocked", err)
	}
	if err := w2.Close(); err != nil {
		t.Fatal(err)
	}
	if names := dirNames(t, dir); len(names) != 1 || names[0] != "run.wtlab" {
		t.Fatalf("after Close the directory holds %v, want the session alone", names)
	}
	// Creating over a closed session is still "file exists", not a lock error, and leaves
	// no lock file behind.
	if _, err := Create(path, testMeta(), WriterOptions{}); err == nil || errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "file exists") {
		t.Fatalf("create over a closed session: %v", err)
	}
	if names := dirNames(t, dir); len(names) != 1 {
		t.Fatalf("directory holds %v", names)
	}
}

func TestStaleLockFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.wtlab")
	// A lock file nobody holds (its writer died): Create reuses it.
	if err := os.WriteFile(path+".lock", []byte("999999999\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := Create(path, testMeta(), WriterOptions{})
	if err != nil {
		t.Fatalf("create with a stale lock file: %v", err)
	}
	if h := LockHolder(path); !h.Held || h.Pid != os.Getpid() || !h.Local {
		t.Errorf("lock holder %+v, want this process (pid %d)", h, os.Getpid())
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// And Append does too.
	if err := os.WriteFile(path+".lock", []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, _, err = Append(path, 0, WriterOptions{})
	if err != nil {
		t.Fatalf("append with a stale lock file: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if names := dirNames(t, dir); len(names) != 1 {
		t.Fatalf("after Close the directory holds %v", names)
	}
}

// TestLockHelperProcess is the writer TestKilledWriter runs in a child process: it creates
// the session, says "ready" and waits to be killed.
func TestLockHelperProcess(t *testing.T) {
	path := os.Getenv("WINDTUNNEL_LOCK_HELPER")
	if path == "" {
		t.Skip("helper process only")
	}
	w, err := Create(path, testMeta(), WriterOptions{Interval: 10 * time.Millisecond})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(2)
	}
	for _, r := range synth(10) {
		w.Record(r)
	}
	w.Flush()
	fmt.Println("ready")
	time.Sleep(time.Minute)
	os.Exit(3)
}

func TestKilledWriter(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.wtlab")
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHelperProcess$")
	cmd.Env = append(os.Environ(), "WINDTUNNEL_LOCK_HELPER="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "ready" {
		t.Fatalf("helper said %q, %v", line, err)
	}

	// The live writer in another process holds the session.
	_, _, err = Append(path, 5, WriterOptions{})
	wantLocked(t, err, path, cmd.Process.Pid)
	r, err := Open(path)
	if err != nil {
		t.Fatalf("open a session another process is writing: %v", err)
	}
	r.Close()

	// Killed, it leaves its lock file, which holds no lock.
	cmd.Process.Kill()
	cmd.Wait()
	if _, err := os.Stat(path + ".lock"); err != nil {
		t.Fatalf("the killed writer left no lock file: %v", err)
	}
	w, _, err := Append(path, 5, WriterOptions{})
	if err != nil {
		t.Fatalf("append after the writer was killed: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if names := dirNames(t, dir); len(names) != 1 || names[0] != "run.wtlab" {
		t.Fatalf("after Close the directory holds %v, want the session alone", names)
	}
}
