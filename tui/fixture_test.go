package tui

import (
	"flag"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"windtunnel/sessions"
	"windtunnel/sessions/sessiontest"
)

// fixturePath is the recorded session every view test reads. It may be replaced by a real
// run's file: the tests derive what they expect from the feed, and `go test ./tui -update`
// rewrites the goldens.
const fixturePath = "testdata/fixture.wtlab"

var regenFixture = flag.Bool("regen-fixture", false, "rewrite "+fixturePath+" from the synthetic run (sessiontest.WriteDashboard)")

func TestMain(m *testing.M) {
	flag.Parse()
	lipgloss.SetColorProfile(termenv.Ascii)
	if _, err := os.Stat(fixturePath); *regenFixture || os.IsNotExist(err) {
		if err := sessiontest.WriteDashboard(fixturePath); err != nil {
			fmt.Fprintln(os.Stderr, "writing the fixture:", err)
			os.Exit(1)
		}
	}
	os.Exit(m.Run())
}

// openFixture opens the recorded session read-only, as `windtunnel replay` does.
func openFixture(t testing.TB) *sessions.Reader {
	t.Helper()
	r, err := sessions.Open(fixturePath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// fixtureRead is the fixture's meta, and its records and events up to a step, decoded once
// for every live fixture cut there.
type fixtureRead struct {
	meta sessions.Meta
	recs []sessions.Record
	evs  []sessions.Event
}

// fixtureReads holds the reads by step: decoding the records is most of a live fixture's
// cost, and the decoded records are read-only, as a Reader's cached snapshots are.
var fixtureReads struct {
	sync.Mutex
	upTo map[int]fixtureRead
}

// readFixture returns the fixture's meta, records and events up to step upTo.
func readFixture(t testing.TB, upTo int) fixtureRead {
	t.Helper()
	fixtureReads.Lock()
	defer fixtureReads.Unlock()
	if f, ok := fixtureReads.upTo[upTo]; ok {
		return f
	}
	r := openFixture(t)
	first, _, ok := r.Span()
	if !ok {
		t.Fatal("empty fixture")
	}
	recs, err := r.Records(first, upTo)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := r.Events(upTo)
	if err != nil {
		t.Fatal(err)
	}
	f := fixtureRead{meta: r.Meta(), recs: recs, evs: evs}
	if fixtureReads.upTo == nil {
		fixtureReads.upTo = map[int]fixtureRead{}
	}
	fixtureReads.upTo[upTo] = f
	return f
}

// liveFixture copies the fixture's records and events up to step upTo into a live feed
// whose commands go to send (nil: recorded in the returned slice).
func liveFixture(t testing.TB, upTo int) (*sessions.Live, *[]sessions.Event) {
	t.Helper()
	f := readFixture(t, upTo)
	sent := new([]sessions.Event)
	l := sessions.NewLive(f.meta, sessions.ControlFunc(func(e sessions.Event) error {
		*sent = append(*sent, e)
		return nil
	}), nil)
	for _, rec := range f.recs {
		l.Record(rec)
	}
	for _, e := range f.evs {
		l.Event(e)
	}
	return l, sent
}
