package tui

import (
	"flag"
	"fmt"
	"os"
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

// liveFixture copies the fixture's records and events up to step upTo into a live feed
// whose commands go to send (nil: recorded in the returned slice).
func liveFixture(t testing.TB, upTo int) (*sessions.Live, *[]sessions.Event) {
	t.Helper()
	r := openFixture(t)
	sent := new([]sessions.Event)
	l := sessions.NewLive(r.Meta(), sessions.ControlFunc(func(e sessions.Event) error {
		*sent = append(*sent, e)
		return nil
	}), nil)
	first, _, ok := r.Span()
	if !ok {
		t.Fatal("empty fixture")
	}
	recs, err := r.Records(first, upTo)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		l.Record(rec)
	}
	evs, err := r.Events(upTo)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		l.Event(e)
	}
	return l, sent
}
