package sshserve

import (
	"bufio"
	"errors"
	"io"
	"log"
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

// TestSourceOf: all of loopback is one source, an IPv4 address is one, an IPv6 /64 is one.
func TestSourceOf(t *testing.T) {
	for _, c := range []struct{ addr, want string }{
		{"127.0.0.1:22", "loopback"},
		{"127.0.0.4:5555", "loopback"},
		{"[::1]:22", "loopback"},
		{"192.0.2.7:22", "192.0.2.7"},
		{"[2001:db8:1:2:3:4:5:6]:22", "2001:db8:1:2::/64"},
		{"[2001:db8:1:2:ffff::1]:22", "2001:db8:1:2::/64"},
	} {
		a, err := net.ResolveTCPAddr("tcp", c.addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := sourceOf(a); got != c.want {
			t.Errorf("sourceOf(%s) = %q, want %q", c.addr, got, c.want)
		}
	}
}

// TestServePreauthEviction (issue 50, HIGH 3): over loopback's share of the pool (all of
// 127.0.0.0/8 counts as one source), a new connection takes the place of the least
// advanced of those past the tenure, oldest first (the silent ones before one that sent a
// version line), or waits while all are younger. The log line says how many connections
// are logging in (before, it gave the configured limit).
func TestServePreauthEviction(t *testing.T) {
	if testing.Short() {
		t.Skip("about 2 s of tenures")
	}
	const tenure = 800 * time.Millisecond
	var logBuf lockedBuffer
	addr, _, _ := startServer(t, newFakeSource("bijection"), func(c *Config) {
		c.MaxStartups, c.MaxStartupsPerSource, c.tenure = 6, 3, tenure
		c.Logger = log.New(&logBuf, "", 0)
	})
	a, okA := idleConn(t, addr, "127.0.0.2", time.Second)
	if _, err := io.WriteString(a, "SSH-2.0-test\r\n"); err != nil {
		t.Fatal(err)
	}
	b, okB := idleConn(t, addr, "127.0.0.3", time.Second)
	c, okC := idleConn(t, addr, "127.0.0.4", time.Second)
	if !okA || !okB || !okC {
		t.Fatalf("three connections from three loopback addresses admitted: %v %v %v, want all", okA, okB, okC)
	}
	time.Sleep(tenure) // all three past the tenure

	t0 := time.Now()
	d, ok := idleConn(t, addr, "127.0.0.5", tenure/4)
	if !ok {
		t.Fatal("a fourth connection was not admitted in place of one past the tenure")
	}
	if waited := time.Since(t0); waited > tenure/4 {
		t.Errorf("the fourth connection waited %v with connections past the tenure", waited)
	}
	if !closedWithin(b, time.Second) {
		t.Error("the oldest silent connection kept its place")
	}

	if _, ok := idleConn(t, addr, "127.0.0.6", tenure/4); !ok {
		t.Error("a fifth connection waited although a silent one was past the tenure")
	}
	if !closedWithin(c, time.Second) {
		t.Error("the second silent connection kept its place")
	}
	if closedWithin(a, 100*time.Millisecond) {
		t.Error("the connection that sent a version line was closed before the silent ones")
	}
	// Now the young d and e are silent; a, past the tenure, has sent bytes: a goes (a
	// connection that has only sent bytes is not protected beyond the tenure).
	t0 = time.Now()
	if _, ok := idleConn(t, addr, "127.0.0.7", tenure/4); !ok {
		t.Error("a sixth connection waited although one was past the tenure")
	}
	if !closedWithin(a, time.Second) {
		t.Error("the connection past the tenure that sent only a version line kept its place")
	}
	if _, ok := idleConn(t, addr, "127.0.0.8", tenure/4); ok {
		t.Fatal("a seventh connection was admitted at once: 127.0.0.0/8 is not counted as one source")
	}
	if !closedWithin(d, time.Second) {
		t.Error("the oldest silent connection did not give way once past the tenure")
	}
	if want := "3 connections logging in, 3 of them from loopback"; !strings.Contains(logBuf.String(), want) {
		t.Errorf("the log does not say %q; it says:\n%s", want, logBuf.String())
	}
}

// TestServePreauthQueue: with no connection in the pool past the tenure, MaxStartups more
// wait; one more turns the oldest waiter out, never the newcomer. A viewer from the
// flood's own address, behind connections held open and reopened as the server closes
// them (more than the pool holds), waits its turn and logs in.
func TestServePreauthQueue(t *testing.T) {
	if testing.Short() {
		t.Skip("about 3 s of tenures")
	}
	t.Run("the oldest waiter gives way", func(t *testing.T) {
		addr, _, _ := startServer(t, newFakeSource("bijection"), func(c *Config) {
			c.MaxStartups, c.MaxStartupsPerSource, c.tenure = 2, 2, time.Minute
		})
		for range 2 {
			if _, ok := idleConn(t, addr, "127.0.0.2", time.Second); !ok {
				t.Fatal("a connection was not admitted to an empty pool")
			}
		}
		var waiters []net.Conn
		for range 3 {
			w, ok := idleConn(t, addr, "127.0.0.2", 100*time.Millisecond)
			if ok {
				t.Fatal("a connection over the pool was admitted while all in it were young")
			}
			waiters = append(waiters, w)
		}
		if !closedWithin(waiters[0], time.Second) {
			t.Error("the oldest waiter was not closed when MaxStartups more waited")
		}
		for i, w := range waiters[1:] {
			if closedWithin(w, 100*time.Millisecond) {
				t.Errorf("waiter %d was closed; only the oldest should give way", i+2)
			}
		}
	})
	t.Run("a viewer waits its turn", func(t *testing.T) {
		addr, host, k := startServer(t, newFakeSource("bijection"), func(c *Config) {
			c.MaxStartups, c.MaxStartupsPerSource, c.tenure = 6, 3, 300*time.Millisecond
		})
		h := holdIdle(t, addr, "127.0.0.1", 7)
		time.Sleep(time.Second)
		t0 := time.Now()
		if _, err := dialFrom(t, addr, "127.0.0.1", host, gossh.PublicKeys(k.viewer)); err != nil {
			t.Fatalf("a viewer was kept out by 7 connections held open from its address: %v", err)
		}
		a, r := h.counts()
		t.Logf("logged in after %v; held connections: %d admitted, %d closed while waiting", time.Since(t0).Round(time.Millisecond), a, r)
	})
}

// TestServePreauthAuthKeepsPlace: a connection that has reached authentication keeps its
// place in a full pool while silent ones come and go, and logs in when its client goes on.
func TestServePreauthAuthKeepsPlace(t *testing.T) {
	if testing.Short() {
		t.Skip("about 2 s of tenures")
	}
	const tenure = 300 * time.Millisecond
	addr, host, k := startServer(t, newFakeSource("bijection"), func(c *Config) {
		c.MaxStartups, c.MaxStartupsPerSource, c.tenure = 2, 2, tenure
	})
	asked, goOn := make(chan struct{}), make(chan struct{})
	var once sync.Once
	auth := gossh.PublicKeysCallback(func() ([]gossh.Signer, error) {
		once.Do(func() { close(asked) })
		<-goOn
		return []gossh.Signer{k.viewer}, nil
	})
	done := make(chan error, 1)
	go func() {
		_, err := dialFrom(t, addr, "127.0.0.1", host, auth)
		done <- err
	}()
	select {
	case <-asked:
	case <-time.After(waitLimit):
		t.Fatal("the client never reached authentication")
	}
	h := holdIdle(t, addr, "127.0.0.2", 3)
	time.Sleep(4 * tenure)
	close(goOn)
	if err := <-done; err != nil {
		t.Fatalf("the connection at authentication lost its place to silent ones: %v", err)
	}
	if a, _ := h.counts(); a < 3 {
		t.Errorf("only %d silent connections were admitted beside it; want them to come and go", a)
	}
}
