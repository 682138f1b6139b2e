package tui

import (
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"windtunnel/sessions"
)

// BenchmarkFrame renders one full 160×48 frame of the fixture:
//   - cold: every view drawn afresh (all render caches dropped), on each grid page;
//   - warm: nothing changed, every view from its cache;
//   - live_record: a live run, one new record (no evaluation or snapshot) per frame, read
//     from the feed and drawn: what the dashboard costs per frame while training;
//   - replay_refresh_cold: the feed re-read with empty data caches, then a cold frame.
//
// Each runs without colour (as the tests) and with 256 colours (as tmux gives).
func BenchmarkFrame(b *testing.B) {
	for _, prof := range []struct {
		name string
		p    termenv.Profile
	}{{"nocolor", termenv.Ascii}, {"ansi256", termenv.ANSI256}} {
		b.Run(prof.name, func(b *testing.B) {
			lipgloss.SetColorProfile(prof.p)
			defer lipgloss.SetColorProfile(termenv.Ascii)
			benchmarkFrame(b)
		})
	}
}

func benchmarkFrame(b *testing.B) {
	r := openFixture(b)
	for _, page := range []string{"training", "geometry"} {
		open := func() Model {
			m := sized(New(r, Options{}), 160, 48)
			if page == "geometry" {
				m, _ = press(b, m, "]")
			}
			return m
		}
		b.Run("cold_"+page, func(b *testing.B) {
			m := open()
			b.ReportAllocs()
			for b.Loop() {
				m.sh.epoch++
				m.render()
			}
		})
		b.Run("warm_"+page, func(b *testing.B) {
			m := open()
			b.ReportAllocs()
			for b.Loop() {
				m.render()
			}
		})
	}
	b.Run("live_record", func(b *testing.B) {
		l, _ := liveFixture(b, liveCut(b))
		m := sized(New(l, Options{}), 160, 48)
		rec, _, _ := l.At(-1)
		rec.Eval, rec.Snapshot = nil, nil
		b.ReportAllocs()
		for b.Loop() {
			rec.Step++
			l.Record(rec)
			m.refresh()
			m.render()
		}
	})
	b.Run("replay_refresh_cold", func(b *testing.B) {
		m := sized(New(r, Options{}), 160, 48)
		b.ReportAllocs()
		for b.Loop() {
			m.evalCache, m.snapCache = evalCache{}, snapCache{}
			m.sh.epoch++
			m.refresh()
			m.render()
		}
	})
}

var _ sessions.Feed = (*countingFeed)(nil)
