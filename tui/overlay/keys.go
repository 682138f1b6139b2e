package overlay

import (
	"sort"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"windtunnel/tui"
	"windtunnel/tui/look"
)

// overlayKeys are the comparison view's key table: Update dispatches on these bindings and
// its help views are generated from them. The keys it shares with the dashboard are the
// dashboard's bindings (defaultKeys), with help texts that say what they do here.
type overlayKeys struct {
	Quit, Help, Back, Next, Prev                    key.Binding
	StepBack, StepFwd, BigBack, BigFwd, First, Last key.Binding
	Metric, LogScale, Zoom, Seeds                   key.Binding
	Wall, SmoothMore, SmoothLess                    key.Binding
}

// newOverlayKeys returns the comparison view's key table.
func newOverlayKeys() overlayKeys {
	k := tui.DefaultKeys()
	with := func(b key.Binding, help, desc string) key.Binding {
		b.SetHelp(help, desc)
		return b
	}
	return overlayKeys{
		Quit: k.Quit,
		// No pane here takes h (the dashboard's per-head keys), so it opens the help too.
		Help: key.NewBinding(key.WithKeys("?", "h"), key.WithHelp("?/h", "help")),
		Back: with(k.Back, "esc", "close help / follow"),
		Next: with(k.Next, "tab", "highlight next run"),
		Prev: with(k.Prev, "⇧tab", "highlight previous run"),

		StepBack: with(k.StepBack, "←/,", "previous evaluation"),
		StepFwd:  with(k.StepFwd, "→/.", "next evaluation"),
		BigBack:  with(k.BigBack, "</⇧←", "back a tenth"),
		BigFwd:   with(k.BigFwd, ">/⇧→", "forward a tenth"),
		First:    with(k.First, "home", "first step"),
		Last:     with(k.Last, "end", "newest step, follow"),

		Metric:   key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "metric (a)/(b)/KL/loss/all three")),
		LogScale: k.LogScale,
		Zoom:     key.NewBinding(key.WithKeys("z"), key.WithHelp("z", "y axis from 0 / fitted")),
		Seeds:    key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "seeds inside the bands")),

		Wall:       key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "x axis: step / wall time")),
		SmoothMore: k.SmoothMore,
		SmoothLess: k.SmoothLess,
	}
}

// short lists the keys of the one-line help, told in fewer words than the full help.
func (k overlayKeys) short() []key.Binding {
	brief := func(b key.Binding, help, desc string) key.Binding {
		b.SetHelp(help, desc)
		return b
	}
	return []key.Binding{k.Help, k.Quit, brief(k.Metric, "m", "metric"), k.LogScale, brief(k.Zoom, "z", "from 0"),
		brief(k.Seeds, "s", "seeds"), brief(k.StepBack, "←/→", "scrub"), brief(k.Wall, "x", "wall time"),
		brief(k.SmoothMore, "+/−", "smooth"), brief(k.BigBack, "</>", "big step"), brief(k.Next, "tab", "highlight")}
}

// groups lists every key for the full help.
func (k overlayKeys) groups() []look.HelpGroup {
	return []look.HelpGroup{
		{Title: "Global", Bindings: []key.Binding{k.Help, k.Quit, k.Next, k.Prev, k.Back}},
		{Title: "Scrubber", Bindings: []key.Binding{k.StepBack, k.StepFwd, k.BigBack, k.BigFwd, k.First, k.Last}},
		{Title: "Chart", Bindings: []key.Binding{k.Metric, k.LogScale, k.Zoom, k.Seeds, k.Wall, k.SmoothMore, k.SmoothLess}},
	}
}

// overlayCursor is the comparison's scrubbed step: the newest evaluated step while
// following, else the step the user moved to.
type overlayCursor struct {
	follow bool
	step   int
}

// at returns the step shown among the evaluated steps (ascending, any run's), kept inside
// them, and false when there are none.
func (c overlayCursor) at(steps []int) (int, bool) {
	if len(steps) == 0 {
		return 0, false
	}
	if c.follow {
		return steps[len(steps)-1], true
	}
	return min(max(c.step, steps[0]), steps[len(steps)-1]), true
}

// move handles a scrubbing key: ←/→ go to the previous or next evaluated step of any run,
// </> a tenth of the span (to the evaluated step at or past it), home to the first step, end
// back to following. It reports whether the key was the scrubber's.
func (c *overlayCursor) move(k overlayKeys, msg tea.KeyMsg, steps []int) bool {
	if key.Matches(msg, k.Last) {
		c.follow = true
		return true
	}
	cur, ok := c.at(steps)
	first, last := 0, 0
	if ok {
		first, last = steps[0], steps[len(steps)-1]
	}
	big := max(1, (last-first)/10)
	// after is the first step > s, before the last step < s (the ends when there is none).
	after := func(s int) int { return steps[min(sort.SearchInts(steps, s+1), len(steps)-1)] }
	before := func(s int) int { return steps[max(sort.SearchInts(steps, s)-1, 0)] }
	var to func() int
	switch {
	case key.Matches(msg, k.StepBack):
		to = func() int { return before(cur) }
	case key.Matches(msg, k.StepFwd):
		to = func() int { return after(cur) }
	case key.Matches(msg, k.BigBack):
		to = func() int { return before(cur - big + 1) }
	case key.Matches(msg, k.BigFwd):
		to = func() int { return after(cur + big - 1) }
	case key.Matches(msg, k.First):
		to = func() int { return first }
	default:
		return false
	}
	if ok {
		c.follow, c.step = false, to()
	}
	return true
}
