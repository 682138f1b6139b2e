package relay

import (
	"bufio"
	"context"
	"encoding/binary"
	"math"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"windtunnel/sessions"
)

// testTimeout bounds every wait in these tests.
const testTimeout = 10 * time.Second

// fakeRun is a Live fed by the test, whose Control obeys events at once the way the
// trainer does: it records them (with the current step) through the Live.
type fakeRun struct {
	live *sessions.Live
	mu   sync.Mutex
	step int
	got  chan sessions.Event
}

func newFakeRun(t *testing.T, w *sessions.Writer) *fakeRun {
	t.Helper()
	f := &fakeRun{got: make(chan sessions.Event, 16)}
	f.live = sessions.NewLive(sessions.Meta{Task: "bijection", Model: "transformer", Layers: 2, Heads: 2, Steps: 1000}, sessions.ControlFunc(func(e sessions.Event) error {
		f.got <- e
		f.mu.Lock()
		e.Step = f.step
		f.mu.Unlock()
		f.live.Event(e)
		return nil
	}), w)
	return f
}

// emit records steps from..to, an evaluation every 10 steps and a snapshot every 20.
func (f *fakeRun) emit(from, to int) {
	for s := from; s <= to; s++ {
		r := sessions.Record{Step: s, WallS: float64(s) / 10, Loss: 1 / float64(s), State: sessions.Training}
		if s%10 == 0 {
			r.Eval = &sessions.Eval{BitErrorPosition: 1 / float64(s), ModelEntropy: []float64{1, 0.5}, BayesEntropy: []float64{1, 0.5},
				KLByPosition: []sessions.Num{0.25, 0.125}}
		}
		if s%20 == 0 {
			r.Snapshot = &sessions.Snapshot{AttentionEntropy: [][]float64{{float64(s)}}, ProbeN: s}
		}
		f.mu.Lock()
		f.step = s
		f.mu.Unlock()
		f.live.Record(r)
	}
}

// serve starts a server for f on a socket in a fresh directory.
func serve(t *testing.T, f *fakeRun, opts ServerOptions) (*Server, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "windtunnel", "run-1.sock")
	s, err := Start(f.live, path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

func dial(t *testing.T, path string) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	c, err := Dial(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// collector gathers a subscription's messages.
type collector struct {
	mu   sync.Mutex
	recs []sessions.Record
	evs  []sessions.Event
	end  chan sessions.State
	news chan struct{}
}

func subscribe(t *testing.T, c *Client, after int) *collector {
	t.Helper()
	col := &collector{end: make(chan sessions.State, 1), news: make(chan struct{}, 1)}
	err := c.Subscribe(after, func(m Message) {
		col.mu.Lock()
		switch m.Type {
		case TypeRecord:
			col.recs = append(col.recs, *m.Record)
		case TypeEvent:
			col.evs = append(col.evs, *m.Event)
		case TypeEnd:
			col.end <- m.State
		}
		col.mu.Unlock()
		select {
		case col.news <- struct{}{}:
		default:
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return col
}

// waitFor polls cond on every message until it holds or the test times out.
func (col *collector) waitFor(t *testing.T, what string, cond func(recs []sessions.Record, evs []sessions.Event) bool) {
	t.Helper()
	deadline := time.After(testTimeout)
	for {
		col.mu.Lock()
		ok := cond(col.recs, col.evs)
		col.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-col.news:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func (col *collector) waitEnd(t *testing.T) sessions.State {
	t.Helper()
	select {
	case s := <-col.end:
		return s
	case <-time.After(testTimeout):
		t.Fatal("timed out waiting for the end of the run")
		return ""
	}
}

// TestTwoClientsSameRecords: two subscribers see every record, in order, NaN included,
// and the end of the run.
func TestTwoClientsSameRecords(t *testing.T) {
	f := newFakeRun(t, nil)
	_, path := serve(t, f, ServerOptions{})
	f.emit(1, 5) // already recorded when the clients come: sent as history
	a, b := subscribe(t, dial(t, path), -1), subscribe(t, dial(t, path), -1)
	f.emit(6, 150)
	f.live.Record(sessions.Record{Step: 151, Loss: math.NaN(), State: sessions.Failed})
	f.live.End()
	for _, col := range []*collector{a, b} {
		if st := col.waitEnd(t); st != sessions.Failed {
			t.Errorf("end state %q, want failed", st)
		}
		col.mu.Lock()
		if len(col.recs) != 151 {
			t.Fatalf("%d records, want 151", len(col.recs))
		}
		for i, r := range col.recs {
			if r.Step != i+1 {
				t.Fatalf("record %d has step %d", i, r.Step)
			}
		}
		if r := col.recs[19]; r.Eval == nil || r.Snapshot == nil || r.Snapshot.ProbeN != 20 || r.Eval.ModelEntropy[1] != 0.5 || len(r.Eval.KLByPosition) != 2 || r.Eval.KLByPosition[1] != 0.125 {
			t.Errorf("record 20 lost its evaluation or snapshot: %+v", r)
		}
		if !math.IsNaN(col.recs[150].Loss) {
			t.Errorf("NaN loss arrived as %v", col.recs[150].Loss)
		}
		col.mu.Unlock()
	}
}

// TestSendReachesControlAndOthers: an event one client sends reaches the Control, a second
// client sees it recorded, and a client that reconnects finds it in the history.
func TestSendReachesControlAndOthers(t *testing.T) {
	f := newFakeRun(t, nil)
	_, path := serve(t, f, ServerOptions{})
	f.emit(1, 10)
	watcher := dial(t, path)
	seen := subscribe(t, watcher, -1)
	sender := dial(t, path)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if err := sender.Send(ctx, sessions.Event{Kind: sessions.EventHead, Layer: 1, Head: 0}); err != nil {
		t.Fatal(err)
	}
	select {
	case e := <-f.got:
		if e.Kind != sessions.EventHead || e.Layer != 1 || e.Head != 0 || e.On || e.By == "" {
			t.Errorf("control received %+v", e)
		}
	case <-time.After(testTimeout):
		t.Fatal("the control received nothing")
	}
	hasHead := func(_ []sessions.Record, evs []sessions.Event) bool {
		return len(evs) == 1 && evs[0].Kind == sessions.EventHead && evs[0].Layer == 1 && evs[0].Step == 10
	}
	seen.waitFor(t, "the head event at the other client", hasHead)
	watcher.Close()
	again := subscribe(t, dial(t, path), -1)
	again.waitFor(t, "the head event after reconnecting", hasHead)
	again.waitFor(t, "the history", func(recs []sessions.Record, _ []sessions.Event) bool { return len(recs) == 10 })
	late := subscribe(t, dial(t, path), 5)
	late.waitFor(t, "the records after step 5", func(recs []sessions.Record, evs []sessions.Event) bool {
		return len(recs) == 5 && recs[0].Step == 6 && len(evs) == 1
	})
	f.live.End()
	if err := sender.Send(ctx, sessions.Event{Kind: sessions.EventPause}); err != sessions.ErrReadOnly {
		t.Errorf("send after the end: %v, want ErrReadOnly", err)
	}
}

// rawConn dials the socket without the client and reads the hello.
func rawConn(t *testing.T, path string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	br := bufio.NewReader(c)
	c.SetReadDeadline(time.Now().Add(testTimeout))
	if m, err := decode(br, MaxMessage); err != nil || m.Type != TypeHello {
		t.Fatalf("hello: %+v, %v", m, err)
	}
	return c, br
}

// dropped reads until the server closes the connection.
func dropped(t *testing.T, c net.Conn, br *bufio.Reader) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(testTimeout))
	for {
		if _, err := decode(br, MaxMessage); err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatal("the server kept a misbehaving client")
			}
			return
		}
	}
}

// TestBadClientsDropped: oversized, malformed and unknown messages drop their client and
// nobody else; a client that never reads does not hold the producer up.
func TestBadClientsDropped(t *testing.T) {
	f := newFakeRun(t, nil)
	_, path := serve(t, f, ServerOptions{})
	good := subscribe(t, dial(t, path), -1)

	c1, br1 := rawConn(t, path)
	var hdr [4]byte
	binary.BigEndian.PutUint32(hdr[:], 1<<30)
	c1.Write(hdr[:])
	dropped(t, c1, br1)

	c2, br2 := rawConn(t, path)
	binary.BigEndian.PutUint32(hdr[:], 9)
	c2.Write(append(hdr[:], []byte("{not json")...))
	dropped(t, c2, br2)

	c3, br3 := rawConn(t, path)
	b, _ := encode(Message{Type: "launch"}, MaxRequest)
	c3.Write(b)
	dropped(t, c3, br3)

	c4, br4 := rawConn(t, path)
	b, _ = encode(Message{Type: TypeSend}, MaxRequest)
	c4.Write(b)
	dropped(t, c4, br4)

	// A subscriber that never reads: the producer goes on at full speed.
	stuck, _ := rawConn(t, path)
	b, _ = encode(Message{Type: TypeSubscribe, After: -1}, MaxRequest)
	stuck.Write(b)
	big := make([]float64, 4096)
	t0 := time.Now()
	for s := 1; s <= 300; s++ {
		f.live.Record(sessions.Record{Step: s, State: sessions.Training, Snapshot: &sessions.Snapshot{AttentionEntropy: [][]float64{big}}})
	}
	if d := time.Since(t0); d > WriteTimeout/2 { // blocking would last until the write timeout drops the client
		t.Errorf("recording 300 records took %v with a stuck client", d)
	}
	good.waitFor(t, "every record at the good client", func(recs []sessions.Record, _ []sessions.Event) bool { return len(recs) == 300 })
}

// TestSocketPermissions: the directory is 0700 (a looser one is tightened), the socket
// 0600, and the socket is gone after Close.
func TestSocketPermissions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "windtunnel")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f := newFakeRun(t, nil)
	path := SocketPath(dir, "/some/where/20250101-120000-bijection-transformer.wtlab")
	s, err := Start(f.live, path, ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v (%v), want 0700", fi.Mode().Perm(), err)
	}
	fi, err = os.Lstat(path)
	if err != nil || fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %v (%v), want a socket 0600", fi.Mode(), err)
	}
	if _, err := Start(f.live, path, ServerOptions{}); err == nil {
		t.Error("a second server took a live socket")
	}
	s.Close()
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Errorf("socket still there after Close: %v", err)
	}
}

// TestPeerCheck: the uid check refuses another user, and a server set to admit another
// uid hangs up on this one before saying anything.
func TestPeerCheck(t *testing.T) {
	me := uint32(os.Getuid())
	if err := allowPeer(Peer{UID: me, PID: 1}, me); err != nil {
		t.Errorf("own uid refused: %v", err)
	}
	if err := allowPeer(Peer{UID: me + 1, PID: 1}, me); err == nil {
		t.Error("another uid admitted")
	}
	other := me + 1
	f := newFakeRun(t, nil)
	_, path := serve(t, f, ServerOptions{UID: &other})
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if c, err := Dial(ctx, path); err == nil {
		c.Close()
		t.Fatal("a server for another uid said hello")
	}
}

// TestListAndSelect: List finds the live runs of a directory and removes stale sockets;
// Select picks runs by path, name prefix or substring.
func TestListAndSelect(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "windtunnel")
	var paths []string
	for _, name := range []string{"20250101-bijection-transformer", "20250102-hmm-transformer"} {
		f := newFakeRun(t, nil)
		session := filepath.Join(t.TempDir(), name+".wtlab")
		s, err := Start(f.live, SocketPath(dir, session), ServerOptions{Session: session})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		f.emit(1, 10)
		paths = append(paths, session)
	}
	stale := filepath.Join(dir, "dead.sock")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: stale, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	l.Close()
	old := time.Now().Add(-time.Minute)
	os.Chtimes(stale, old, old)
	runs, err := List(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].Hello.Meta.Path != paths[0] || runs[0].Hello.Step != 10 || runs[0].Hello.Pid != os.Getpid() ||
		float64(runs[0].Hello.BitError) != 0.1 || !runs[0].Hello.Live {
		t.Fatalf("List: %+v", runs)
	}
	if _, err := os.Lstat(stale); !os.IsNotExist(err) {
		t.Errorf("stale socket kept: %v", err)
	}
	for q, want := range map[string]int{"": 2, "2025": 2, "20250102": 1, "bijection": 1, "transformer": 2, "nope": 0, paths[1]: 1} {
		if got := Select(runs, q); len(got) != want {
			t.Errorf("Select(%q): %d runs, want %d", q, len(got), want)
		}
	}
	if got := Select(runs, paths[1]); len(got) == 1 && got[0].Name() != "20250102-hmm-transformer" {
		t.Errorf("Select by path: %s", got[0].Name())
	}
}
