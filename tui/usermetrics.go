package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"windtunnel/sessions"
	"windtunnel/tui/look"
)

// userFeed is a feed that holds the user's own metrics (windtunnel metric): a replayed
// session (sessions.Reader) and a run in this process (sessions.Live, from its session).
type userFeed interface {
	UserMetrics() ([]sessions.UserMetric, error)
}

// userKey cycles the Loss pane's chart through the user's own metrics; it shows in the
// help only where the run has some.
var userKey = key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "your metrics"))

// userCharts is the Loss pane's view of the user's own metrics: what it read (at
// sh.scalarGen read, so that a live run's metrics are read as often as its scalars), the
// metrics' names, and the chart shown (0: the loss; i: names[i-1]).
type userCharts struct {
	read, gen int
	ms        []sessions.UserMetric
	names     []string
	shown     int
}

// refresh re-reads the metrics when the scalars were re-read (or never were).
func (u *userCharts) refresh(sh *shared) error {
	f, ok := sh.feed.(userFeed)
	if !ok || (u.read > 0 && u.gen == sh.scalarGen) {
		return nil
	}
	ms, err := f.UserMetrics()
	u.read++
	u.gen = sh.scalarGen
	if err != nil {
		return err
	}
	u.ms, u.names = ms, sessions.UserMetricNames(ms)
	if u.shown > len(u.names) {
		u.shown = 0
	}
	return nil
}

// update steps to the next chart on u (after the last metric, back to the loss).
func (u *userCharts) update(msg tea.KeyMsg) bool {
	if len(u.names) == 0 || !key.Matches(msg, userKey) {
		return false
	}
	u.shown = (u.shown + 1) % (len(u.names) + 1)
	return true
}

// help is the u key where there are metrics to show.
func (u *userCharts) help() []key.Binding {
	if len(u.names) == 0 {
		return nil
	}
	return []key.Binding{userKey}
}

// hint is the loss chart's title part that says the metrics are there.
func (u *userCharts) hint() []string {
	if len(u.names) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("u: your metrics (%d)", len(u.names))}
}

// viewKey is what the chart of a metric depends on besides the pane's size.
func (u *userCharts) viewKey(sh *shared) [3]int {
	if u.shown == 0 {
		return [3]int{}
	}
	return [3]int{u.read, u.shown, sh.step}
}

// draw renders the metric shown over the whole run, as the other charts over steps: its
// title, its value at the newest step with one up to the cursor, and its chart (with the
// pane's log-Y setting, v.log; never smoothed).
func (u *userCharts) draw(sh *shared, w, h int, v chartView) string {
	name := u.names[u.shown-1]
	var xs, ys []float64
	last := -1
	for _, m := range u.ms {
		if m.Name == name {
			xs, ys = append(xs, float64(m.Step)), append(ys, m.Value)
			if m.Step <= sh.step {
				last = len(xs) - 1
			}
		}
	}
	v.smooth = 0
	title := look.FitParts(strings.Join([]string{fmt.Sprintf("your metric %d/%d over steps", u.shown, len(u.names)), "u: next", v.scale()}, " · "), " · ", w)
	if last < 0 {
		return look.Fit(title+"\n"+sh.st.Dim.Render(look.PadLine(fmt.Sprintf("%s: no value up to step %d", name, sh.step), w)), w, h)
	}
	lines := []string{title, look.PadLine(fmt.Sprintf("• %s %s @%d", name, look.Num(ys[last], 4), int(xs[last])), w)}
	if ch := h - len(lines); ch >= 5 {
		lines = append(lines, scalarChart(sh, xs, ys, name, v, false, nil).Draw(w, ch))
	}
	return look.Fit(strings.Join(lines, "\n"), w, h)
}
