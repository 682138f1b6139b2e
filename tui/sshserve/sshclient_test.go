package sshserve

import (
	"context"
	"fmt"
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
func (c sshClient) login(addr string) (bool, string) { return c.loginWithin(addr, 40*time.Second) }

// loginWithin is login given limit to get that far.
func (c sshClient) loginWithin(addr string, limit time.Duration) (bool, string) {
	_, port, _ := net.SplitHostPort(addr)
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.bin, "-F", "/dev/null", "-p", port, "-i", c.key, "-o", "IdentitiesOnly=yes",
		"-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
		"-o", fmt.Sprintf("ConnectTimeout=%d", max(int(limit/time.Second), 1)), "-o", "LogLevel=ERROR", "127.0.0.1", "true")
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
