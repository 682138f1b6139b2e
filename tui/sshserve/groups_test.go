package sshserve

import (
	"context"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"windtunnel/tui"
)

// TestPickerGroups: serve's list shows the runs of a sweep's or a compare's folder together
// under the folder's name (after the live runs and those of no folder), each run's labels
// beside its name, and the screen is the terminal's size.
func TestPickerGroups(t *testing.T) {
	src := &fakeSource{runs: []Run{
		{Name: "b1", Task: "bijection", Model: "lstm", Group: "compare-1"},
		{Name: "top", Task: "hmm", Model: "transformer", Label: "base #lr"},
		{Name: "s1", Task: "hmm", Model: "lstm", Group: "sweep-lr"},
		{Name: "b2", Task: "bijection", Model: "mamba", Group: "compare-1"},
	}}
	p := newPicker(context.Background(), src, &viewer{}, tui.Options{Width: 80, Height: 24})
	m, _ := p.Update(runsMsg{runs: src.runs})
	v := ansi.Strip(m.View())
	var order []string
	for _, l := range strings.Split(v, "\n") {
		for _, w := range []string{"compare-1/ · 2 runs", "sweep-lr/ · 1 run", "top base #lr", "b1", "b2", "s1"} {
			if strings.Contains(l, w+" ") || strings.HasSuffix(strings.TrimSpace(l), w) {
				order = append(order, w)
			}
		}
	}
	want := "top base #lr|compare-1/ · 2 runs|b1|b2|sweep-lr/ · 1 run|s1"
	if got := strings.Join(order, "|"); got != want {
		t.Errorf("list order %s, want %s:\n%s", got, want, v)
	}
	lines := strings.Split(v, "\n")
	if len(lines) != 24 {
		t.Errorf("%d lines", len(lines))
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > 80 {
			t.Errorf("line %d is %d cells", i, ansi.StringWidth(l))
		}
	}
}
