package tui

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
)

// TestHelpToggle checks that ? and h open the full help, turn its pages (the title says
// which) and close it after the last, and that esc closes it on any page; a replay's help
// lists no key that acts on a run.
func TestHelpToggle(t *testing.T) {
	m := New(openFixture(t), Options{})
	const title = "▶ Keys"
	for _, k := range []string{"?", "h"} {
		pages := helpScreens(t, m, 80, 24)
		if len(pages) == 0 {
			t.Fatalf("%s opens no help", k)
		}
		all := strings.Join(pages, "\n")
		for _, b := range []string{"quit", "log Y", "go to step", "cursor up", "smooth more"} {
			mustContain(t, all, b)
		}
		for _, b := range []string{"toggle head", "pause/resume", "restore all heads"} {
			if strings.Contains(all, b) {
				t.Errorf("a replay's help offers %q", b)
			}
		}
		if n := len(pages); n > 1 {
			mustContain(t, pages[0], "Keys 1/"+fmt.Sprint(n)+" — ? or h: next page")
			mustContain(t, pages[n-1], fmt.Sprintf("Keys %d/%d — ?, h or esc closes", n, n))
		}
	}
	for _, keys := range [][]string{{"?", "esc"}, {"?", "?", "esc"}} {
		if mm, _ := press(t, m, keys...); strings.Contains(plain(mm), title) {
			t.Errorf("%v leaves the help open", keys)
		}
	}
}

// TestLogScale checks that y (and l, as before) switch the bit-error chart's Y axis
// between linear and log.
func TestLogScale(t *testing.T) {
	m := New(openFixture(t), Options{})
	mustContain(t, plain(m), "linear Y (y/l)")
	for _, k := range []string{"y", "l"} {
		on, _ := press(t, m, k)
		mustContain(t, plain(on), "log Y (y/l)", "bits (log)")
		off, _ := press(t, on, k)
		mustContain(t, plain(off), "linear Y (y/l)")
	}
}

// TestKeyTable checks the key table against the help: every binding's text shows in the full
// help of a live run at 80×24; ? and h both open it, y and l switch the log scale, < and >
// take big steps, and e and a do what h and y did.
func TestKeyTable(t *testing.T) {
	l, _ := liveFixture(t, liveCut(t))
	v := strings.Join(helpScreens(t, sized(New(l, Options{}), 80, 24), 80, 24), "\n")
	k := reflect.ValueOf(DefaultKeys())
	for i := range k.NumField() {
		b := k.Field(i).Interface().(key.Binding)
		name := k.Type().Field(i).Name
		if name == "LogScale" || name == "Simplex" { // the comparison view's; hmm runs' (TestSimplexView)
			continue
		}
		if name != "Quit" { // the help says quit/detach
			mustContain(t, v, b.Help().Key)
		}
		mustContain(t, v, b.Help().Desc)
	}
	mustContain(t, v, "?/h ", "y/l ", "⇧←/< ", "⇧→/> ", "e ", "a ")
	for _, c := range []struct{ key, want string }{{"h", "▶ Keys"}, {"y", "log Y (y/l)"}, {"l", "log Y (y/l)"}} {
		mm, _ := press(t, New(openFixture(t), Options{}), c.key)
		mustContain(t, plain(mm), c.want)
	}
	r := openFixture(t)
	m := New(r, Options{})
	first, last := feedSpan(t, r)
	big := m.scrub.bigStep()
	m, _ = press(t, m, "<")
	if s, _ := m.Step(); s != last-big {
		t.Errorf("< moved to %d, want %d", s, last-big)
	}
	m, _ = press(t, m, "home", ">")
	if s, _ := m.Step(); s != first+big {
		t.Errorf("> moved to %d, want %d", s, first+big)
	}
}
