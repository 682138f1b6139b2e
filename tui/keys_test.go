package tui

import (
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
)

// TestHelpToggle checks that ? and h open and close the full help, and esc closes it; a
// replay's help lists no key that acts on a run.
func TestHelpToggle(t *testing.T) {
	m := New(openFixture(t), Options{})
	const title = "Keys — ?, h or esc closes"
	m, _ = press(t, m, "?")
	v := plain(m)
	mustContain(t, v, title)
	for _, b := range []string{"quit", "log Y", "go to step", "cursor up"} {
		mustContain(t, v, b)
	}
	for _, b := range []string{"toggle head", "pause/resume", "restore all heads"} {
		if strings.Contains(v, b) {
			t.Errorf("a replay's help offers %q:\n%s", b, v)
		}
	}
	m, _ = press(t, m, "?")
	if strings.Contains(plain(m), title) {
		t.Error("? does not close the help")
	}
	m, _ = press(t, m, "?", "esc")
	if strings.Contains(plain(m), title) {
		t.Error("esc does not close the help")
	}
	m, _ = press(t, m, "h")
	mustContain(t, plain(m), title)
	m, _ = press(t, m, "h")
	if strings.Contains(plain(m), title) {
		t.Error("h does not close the help")
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
	m, _ := press(t, sized(New(l, Options{}), 80, 24), "?")
	v := plain(m)
	k := reflect.ValueOf(DefaultKeys())
	for i := range k.NumField() {
		b := k.Field(i).Interface().(key.Binding)
		name := k.Type().Field(i).Name
		if name == "LogScale" { // the comparison view's
			continue
		}
		if name != "Quit" { // the help says quit/detach
			mustContain(t, v, b.Help().Key)
		}
		mustContain(t, v, b.Help().Desc)
	}
	mustContain(t, v, "?/h ", "y/l ", "⇧←/< ", "⇧→/> ", "e ", "a ")
	for _, c := range []struct{ key, want string }{{"h", "Keys — ?, h or esc closes"}, {"y", "log Y (y/l)"}, {"l", "log Y (y/l)"}} {
		mm, _ := press(t, New(openFixture(t), Options{}), c.key)
		mustContain(t, plain(mm), c.want)
	}
	r := openFixture(t)
	m = New(r, Options{})
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
