package sshserve

import (
	"context"
	"fmt"
	"log"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// sshClient is OpenSSH's client with a key of its own that the test server admits.
type sshClient struct {
	bin, key string
}

// newSSHClient makes an ed25519 key with ssh-keygen for OpenSSH's client and returns the
// client and the key's authorized_keys line; the test is skipped without openssh-client.
func newSSHClient(t *testing.T) (sshClient, string) {
	t.Helper()
	bin, err := exec.LookPath("ssh")
	if err != nil {
		t.Skip("no ssh client (openssh-client)")
	}
	keygen, err := exec.LookPath("ssh-keygen")
	if err != nil {
		t.Skip("no ssh-keygen (openssh-client)")
	}
	key := filepath.Join(t.TempDir(), "id_ed25519")
	if out, err := exec.Command(keygen, "-q", "-t", "ed25519", "-N", "", "-C", "ssh@test", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v: %s", err, out)
	}
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	return sshClient{bin: bin, key: key}, string(pub)
}

// login runs ssh to addr (on 127.0.0.1) with a command, which the server answers after
// authentication only ("no commands here", exit 1): it returns whether the login got that
// far, and ssh's output.
func (c sshClient) login(addr string) (bool, string) {
	_, port, _ := net.SplitHostPort(addr)
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.bin, "-F", "/dev/null", "-p", port, "-i", c.key, "-o", "IdentitiesOnly=yes",
		"-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
		"-o", "ConnectTimeout=20", "-o", "LogLevel=ERROR", "127.0.0.1", "true")
	out, err := cmd.CombinedOutput()
	ok := strings.Contains(string(out), "no commands here")
	if ctx.Err() != nil {
		return false, fmt.Sprintf("timed out: %s", out)
	}
	if !ok {
		return false, fmt.Sprintf("%v: %s", err, out)
	}
	return true, string(out)
}

// TestServeSSHBesideIdleFlood (issue 44, item 6) runs OpenSSH's client against the server
// while MaxStartupsPerSource idle connections from 127.0.0.1, its own address (as every
// viewer's behind ssh -L), are held open and reopened as the server closes them. Before,
// they locked every login from that address out (11 of 11 ssh attempts reset over 60 s);
// now three logins one after another and eight at once all authenticate, and the idle
// connections never held more than their share.
func TestServeSSHBesideIdleFlood(t *testing.T) {
	client, line := newSSHClient(t)
	var logBuf lockedBuffer
	addr, _, _ := startServer(t, newFakeSource("bijection"), func(c *Config) {
		c.LoginGraceTime = 3 * time.Second
		f, err := os.OpenFile(c.AuthorizedKeys, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(line); err != nil {
			t.Fatal(err)
		}
		c.Logger = log.New(&logBuf, "", 0)
	})
	h := holdIdle(t, addr, "127.0.0.1", DefaultMaxStartupsPerSrc)
	for deadline := time.Now().Add(waitLimit); ; time.Sleep(20 * time.Millisecond) {
		if a, _ := h.counts(); a >= DefaultMaxStartupsPerSrc {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the idle connections were not admitted")
		}
	}
	time.Sleep(stalledAfter + stalledAfter/2) // held long enough to be taken for stalled
	for i := range 3 {
		t0 := time.Now()
		if ok, out := client.login(addr); !ok {
			t.Fatalf("ssh login %d beside %d idle connections from its address: %s", i+1, DefaultMaxStartupsPerSrc, out)
		}
		t.Logf("login %d: %v", i+1, time.Since(t0).Round(time.Millisecond))
	}
	t0 := time.Now()
	var wg sync.WaitGroup
	fails := make(chan string, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if ok, out := client.login(addr); !ok {
				fails <- out
			}
		}()
	}
	wg.Wait()
	close(fails)
	for out := range fails {
		t.Errorf("one of eight simultaneous ssh logins failed: %s", out)
	}
	t.Logf("eight at once: %v", time.Since(t0).Round(time.Millisecond))
	a, r := h.counts()
	h.Stop()
	if !strings.Contains(logBuf.String(), "sent nothing in") {
		t.Errorf("the server did not log closing a stalled connection; its log:\n%s", logBuf.String())
	}
	t.Logf("idle connections: %d admitted, %d refused", a, r)
}

// lockedBuffer is a log's buffer, safe for the server's goroutines and the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
