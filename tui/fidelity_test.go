package tui

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"windtunnel/sessions"
	"windtunnel/sessions/sessiontest"
	"windtunnel/tui/look"
)

// withoutFidelity clears what sessiontest.WithFidelity adds: a session recorded before it was.
func withoutFidelity(sn *sessions.Snapshot, _ int) {
	if sn == nil {
		return
	}
	sn.KeyOrthogonalityEmbed, sn.KeyOrthogonalityEmbedInit, sn.KeyOrthogonalityEmbedTokens, sn.ManifoldOne = nil, nil, 0, nil
	if m := sn.Manifold; m != nil {
		m.Sequences, m.N = 0, 0
	}
}

// fidelityFeed is a live feed of the whole fixture with sessiontest.WithFidelity applied to every
// geometry snapshot.
func fidelityFeed(t testing.TB) *sessions.Live { return editedFeed(t, sessiontest.WithFidelity) }

// oldFeed is a live feed of the whole fixture as a session recorded before the fidelity
// fields (whether the fixture has them or not).
func oldFeed(t testing.TB) *sessions.Live { return editedFeed(t, withoutFidelity) }

// editedFeed is a live feed of the whole fixture with edit applied to every snapshot.
func editedFeed(t testing.TB, edit func(*sessions.Snapshot, int)) *sessions.Live {
	t.Helper()
	r := openFixture(t)
	first, last := feedSpan(t, r)
	l := sessions.NewLive(r.Meta(), sessions.ControlFunc(func(sessions.Event) error { return nil }), nil)
	recs, err := r.Records(first, last)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		edit(rec.Snapshot, rec.Step)
		l.Record(rec)
	}
	evs, err := r.Events(last)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		l.Event(e)
	}
	return l
}

// TestFidelityPanes checks that the key-orthogonality pane shows both statistics, labelled,
// side by side (the bench's with its random bar, the authors' now with its level at
// initialisation), and the manifold pane both samplings with |ρ| first, at 80×24 (tabs) and
// on the 160×48 grid, per layer and per head; a session recorded before says "not
// recorded". WINDTUNNEL_SHOW=1 prints the screens.
func TestFidelityPanes(t *testing.T) {
	show := os.Getenv("WINDTUNNEL_SHOW") != ""
	fid := fidelityFeed(t)
	old := oldFeed(t)
	for _, c := range []struct {
		name  string
		feed  sessions.Feed
		w, h  int
		title string
		keys  []string
		want  []string
	}{
		{"keys_80x24", fid, 80, 24, "Key orthogonality", nil,
			[]string{"bench's: centred evidence keys", "authors': value embed·W_K", "random", "L0", "L3", "init 0.1", "┆ = at initialisation", "│"}},
		{"keys_80x24_e", fid, 80, 24, "Key orthogonality", []string{"e"},
			[]string{"bench's", "authors'", "L0H0", "init 0.130", "↑ 0 above"}},
		{"keys_old_80x24", old, 80, 24, "Key orthogonality", nil,
			[]string{"authors' statistic (value tokens' embeddings·W_K vs init): not recorded", "random", "L3"}},
		{"manifold_80x24", fid, 80, 24, "Value manifold", nil,
			[]string{"|ρ(PC1,H)|", "many sequences", "one sequence", "Spearman -0.97", "Pearson -0.98", "┃PC2 ", "●"}},
		{"manifold_old_80x24", old, 80, 24, "Value manifold", nil,
			[]string{"many sequences", "one sequence   not recorded in this session", "Spearman -0.97"}},
		{"geometry_160x48", fid, 160, 48, "", []string{"]"},
			[]string{"bench's: evidence keys", "authors': value embed·W_K", "many sequences", "one sequence", "256×19", "1×19", "(@550: 0.97)", "(@550: 0.98)"}},
		{"geometry_160x48_e", fid, 160, 48, "", []string{"]", "e"},
			[]string{"L0H0", "init 0.130", "many sequences"}},
		{"geometry_old_160x48", old, 160, 48, "", []string{"]"},
			[]string{"authors' statistic (embed·W_K vs init): not recorded", "one sequence   not recorded"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := sized(New(c.feed, Options{}), c.w, c.h)
			if c.title != "" {
				m = focusOn(t, m, c.title)
			}
			m, _ = press(t, m, c.keys...)
			v := checkedView(t, m, c.w, c.h)
			mustContain(t, v, c.want...)
			if m.View() != v {
				t.Error("the view carries escape sequences without colour")
			}
			if show {
				fmt.Printf("── %s\n%s\n", c.name, v)
			}
		})
	}
}

// TestFidelityNumbers checks the numbers shown: the authors' layer mean now and at
// initialisation, and |ρ| of both samplings, as recorded in the last geometry snapshot.
func TestFidelityNumbers(t *testing.T) {
	fid := fidelityFeed(t)
	sn, _, err := fid.Snapshot(-1)
	if err != nil || sn == nil {
		t.Fatal(sn, err)
	}
	m := focusOn(t, sized(New(fid, Options{}), 80, 24), "Key orthogonality")
	v := plain(m)
	for l := range sn.KeyOrthogonalityEmbed {
		want := fmt.Sprintf("%s  init %s", look.Num(mean(sn.KeyOrthogonalityEmbed[l]), 3), look.Num(mean(sn.KeyOrthogonalityEmbedInit[l]), 3))
		line := lineWith(v, fmt.Sprintf("L%d ", l))
		if !strings.Contains(line, want) {
			t.Errorf("L%d row %q lacks %q", l, line, want)
		}
	}
	m = focusOn(t, m, "Value manifold")
	v = plain(m)
	for label, mf := range map[string]*sessions.Manifold{"many sequences": sn.Manifold, "one sequence": sn.ManifoldOne} {
		line := lineWith(v, label)
		want := look.Num(math.Abs(float64(mf.Spearman)), 2) + " " + fmt.Sprintf("%5s", look.Num(100*mf.Share[0], 1)+"%")
		if !strings.Contains(line, want) {
			t.Errorf("%s row %q lacks %q", label, line, want)
		}
	}
}

// TestFidelitySizes renders the two panes of the fidelity feed at several sizes, toggles
// included, and checks the screen is exactly the terminal's size.
func TestFidelitySizes(t *testing.T) {
	fid := fidelityFeed(t)
	for _, sz := range [][2]int{{80, 24}, {100, 30}, {160, 48}, {120, 40}, {200, 60}, {60, 20}, {40, 12}, {20, 5}} {
		w, h := sz[0], sz[1]
		for _, title := range []string{"Key orthogonality", "Value manifold"} {
			m := focusOn(t, sized(New(fid, Options{}), w, h), title)
			checkedView(t, m, w, h)
			for _, keys := range [][]string{{"e"}, {"down", "down"}, {"a"}, {"]"}} {
				m, _ = press(t, m, keys...)
				checkedView(t, m, w, h)
			}
		}
	}
}

// lineWith is the first line of v containing s, "" if none.
func lineWith(v, s string) string {
	for _, l := range strings.Split(v, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}
