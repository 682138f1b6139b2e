package sshserve

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// idleConn dials addr from the loopback address from (127.0.0.x) and sends nothing. It
// reports whether the server admitted it (sent its version line) within wait; a connection
// the server closed is refused, one still silent at wait is left open and waiting.
func idleConn(t *testing.T, addr, from string, wait time.Duration) (c net.Conn, admitted bool) {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: waitLimit}
	c, err := d.Dial("tcp", addr)
	if err != nil && strings.Contains(err.Error(), "assign requested address") {
		t.Skipf("cannot dial from %s here (only Linux routes all of 127.0.0.0/8 to lo): %v", from, err)
	}
	if err != nil {
		t.Fatalf("dial from %s: %v", from, err)
	}
	t.Cleanup(func() { c.Close() })
	return c, readVersion(c, wait) == nil
}

// readVersion waits up to wait for the server's version line on c.
func readVersion(c net.Conn, wait time.Duration) error {
	c.SetReadDeadline(time.Now().Add(wait))
	defer c.SetReadDeadline(time.Time{})
	line, err := bufio.NewReader(c).ReadString('\n')
	if err == nil && !strings.HasPrefix(line, "SSH-2.0-") {
		err = errors.New("not an SSH version line: " + line)
	}
	return err
}

// closedWithin reports whether the server closes c within d.
func closedWithin(c net.Conn, d time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c)
	return !errors.Is(err, os.ErrDeadlineExceeded)
}

// idleHolder keeps n idle connections from one address open, opening a new one each time
// the server closes one (issue 44, item 6: four such connections once locked every login
// from their address out), until the test ends.
type idleHolder struct {
	mu                sync.Mutex
	admitted, refused int
	stop              chan struct{}
	once              sync.Once
	wg                sync.WaitGroup
}

func holdIdle(t *testing.T, addr, from string, n int) *idleHolder {
	h := &idleHolder{stop: make(chan struct{})}
	for range n {
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: time.Second}
			for {
				select {
				case <-h.stop:
					return
				default:
				}
				c, err := d.Dial("tcp", addr)
				if err != nil {
					time.Sleep(10 * time.Millisecond)
					continue
				}
				go func() { <-h.stop; c.Close() }()
				ok := readVersion(c, waitLimit) == nil
				h.mu.Lock()
				if ok {
					h.admitted++
				} else {
					h.refused++
				}
				h.mu.Unlock()
				if ok {
					io.Copy(io.Discard, c) // until the server closes it
				} else {
					time.Sleep(10 * time.Millisecond)
				}
				c.Close()
			}
		}()
	}
	t.Cleanup(h.Stop)
	return h
}

// Stop closes the held connections and stops opening new ones.
func (h *idleHolder) Stop() {
	h.once.Do(func() { close(h.stop); h.wg.Wait() })
}

// counts are the connections admitted and refused so far.
func (h *idleHolder) counts() (int, int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.admitted, h.refused
}

// dialFrom logs in from the loopback address from, checking the host key.
func dialFrom(t *testing.T, addr, from string, host gossh.PublicKey, auth ...gossh.AuthMethod) (*gossh.Client, error) {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: waitLimit}
	nc, err := d.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	nc.SetDeadline(time.Now().Add(waitLimit))
	cc, chans, reqs, err := gossh.NewClientConn(nc, addr, &gossh.ClientConfig{User: "colleague", Auth: auth, HostKeyCallback: gossh.FixedHostKey(host)})
	if err != nil {
		nc.Close()
		return nil, err
	}
	nc.SetDeadline(time.Time{})
	c := gossh.NewClient(cc, chans, reqs)
	t.Cleanup(func() { c.Close() })
	return c, nil
}

