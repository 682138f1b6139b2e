package relay

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestHelloPidIsTheKernels (issue 50): the pid a client reports for a run (ls, attach's
// System pane, serve --runs) is the one the kernel gives for the socket's server, never the
// server's claim: a server claiming pid 1 is reported with its own.
func TestHelloPidIsTheKernels(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "run.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		b, _ := encode(Message{Type: TypeHello, Hello: &Hello{Protocol: Protocol, Pid: 1}}, MaxMessage)
		c.Write(b)
		time.Sleep(time.Second)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	h, err := Probe(ctx, sock)
	if err != nil {
		t.Fatal(err)
	}
	if h.Pid != os.Getpid() {
		t.Errorf("hello pid %d, want the server's own %d (it claimed 1)", h.Pid, os.Getpid())
	}
}
