package overlay

import (
	"context"
	"errors"
	"log"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"windtunnel/sessions"
	"windtunnel/sessions/derived"
	"windtunnel/tui"
	"windtunnel/tui/look"
)

// Model is the comparison view: bit error (a), (b) or KL against steps for several
// sessions on one chart, or the three on a chart each (m cycles), with the pass line and the
// context-free level. Runs are labelled by what differs between their configurations; runs
// that differ only by seed are drawn as one mean line in a ± sd band, their own curves too
// on s. The y axis fits the data (z: from 0). A cursor scrubs through the evaluated steps and
// the legend lists every series' value there, its verdict against the pass line and the
// heads an operator switched off (⊘, marked on the curve too). Like the dashboard
// (tui.Model) it only reads its feeds, polls them at the dashboard's pace and redraws only
// when a feed, the size or a setting changed.
type Model struct {
	feeds  []sessions.Feed
	names  []string // fallback names: the caller's, else the sessions' file names
	metas  []sessions.Meta
	labels []string       // per feed: what tells it apart
	groups []overlayGroup // the chart's series, in order
	curves [][]sessions.Record
	// scalars are every run's records thinned to scalarPoints: its loss and wall time, the
	// run's pauses left out of it (derived.ActiveRecords), for the wall-clock axis.
	scalars [][]sessions.Record
	heads   [][]headOff       // per feed: the heads an operator switched off
	last    []sessions.Record // per feed: the newest record (its state says whether the run ended)
	errs    []string
	closed  []bool

	metric   overlayMetric
	log      bool
	fromZero bool // the y axis from 0 (with Bayes and every reference line), else fitted
	seeds    bool // each seed's own curve inside its band
	wall     bool // x is the wall-clock time, not the step (x)
	smooth   int  // the lines' moving average, an index into look.Smoothings (+ and −)
	showHelp bool
	cursor   overlayCursor
	sel      int // the highlighted series, -1 for none

	keys          overlayKeys
	st            look.Styles
	help          help.Model
	width, height int
	frame         string
	logger        *log.Logger
}

// labelled is a feed that knows the labels of its run (a session's Reader).
type labelled interface {
	Labels() (sessions.Labels, error)
}

// New returns the comparison view of feeds at 80×24 until the terminal reports its
// size. A run is labelled by the name a person gave it (sessions.Labels, from a feed that
// has them), else by what differs between the runs; names (a missing one: the session's
// file name) label them only when nothing does.
func New(feeds []sessions.Feed, names []string, opts tui.Options) Model {
	o := Model{
		feeds: feeds, logger: opts.Log(), st: look.NewStyles(opts.Renderer), help: look.NewHelp(opts.Renderer),
		keys:  newOverlayKeys(),
		width: tui.DefaultWidth, height: tui.DefaultHeight,
		curves: make([][]sessions.Record, len(feeds)), scalars: make([][]sessions.Record, len(feeds)), heads: make([][]headOff, len(feeds)), last: make([]sessions.Record, len(feeds)),
		errs: make([]string, len(feeds)), closed: make([]bool, len(feeds)),
		cursor: overlayCursor{follow: true}, sel: -1,
	}
	if opts.Width > 0 && opts.Height > 0 {
		o.width, o.height = opts.Width, opts.Height
	}
	given := make([]string, len(feeds))
	for i, f := range feeds {
		o.metas = append(o.metas, f.Meta())
		o.names = append(o.names, overlayName(i, o.metas[i], names))
		if l, ok := f.(labelled); ok {
			if ls, err := l.Labels(); err == nil {
				given[i] = ls.Name
			}
		}
	}
	o.labels, o.groups = describeRuns(o.metas, o.names, given)
	for i := range feeds {
		o.read(i)
	}
	o.render()
	return o
}

// Run shows the comparison view of feeds until the user quits (q, ctrl+c) or ctx is done;
// both return nil.
func Run(ctx context.Context, feeds []sessions.Feed, names []string, opts tui.Options) error {
	if len(feeds) == 0 {
		return errors.New("overlay: no sessions to compare")
	}
	_, err := tui.RunProgram(ctx, New(feeds, names, opts), opts)
	return err
}

// overlayMsg reports which feeds changed (or that a tick passed).
type overlayMsg struct{ changed, closed []bool }

// Init starts polling the feeds.
func (o Model) Init() tea.Cmd { return o.wait() }

// wait polls every feed's Changed signal once per tick, never blocking a producer.
func (o Model) wait() tea.Cmd {
	chs := make([]<-chan struct{}, len(o.feeds))
	for i, f := range o.feeds {
		if !o.closed[i] {
			chs[i] = f.Changed()
		}
	}
	return func() tea.Msg {
		time.Sleep(tui.TickInterval)
		msg := overlayMsg{changed: make([]bool, len(chs)), closed: make([]bool, len(chs))}
		for i, ch := range chs {
			if ch == nil {
				continue
			}
			select {
			case _, ok := <-ch:
				msg.changed[i], msg.closed[i] = true, !ok
			default:
			}
		}
		return msg
	}
}

// View returns the screen rendered by the last Update.
func (o Model) View() string { return o.frame }

// Update handles keys, resizes and feed changes.
func (o Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		o.width, o.height = max(msg.Width, 1), max(msg.Height, 1)
		o.render()
	case tea.KeyMsg:
		return o.key(msg)
	case overlayMsg:
		changed := false
		o.curves = append([][]sessions.Record(nil), o.curves...)
		o.scalars = append([][]sessions.Record(nil), o.scalars...)
		o.heads = append([][]headOff(nil), o.heads...)
		o.last = append([]sessions.Record(nil), o.last...)
		o.closed = append([]bool(nil), o.closed...)
		for i := range o.feeds {
			if i < len(msg.changed) && msg.changed[i] {
				o.read(i)
				changed = true
			}
			if i < len(msg.closed) && msg.closed[i] {
				o.closed[i] = true
			}
		}
		if changed {
			o.render()
		}
		return o, o.wait()
	}
	return o, nil
}

// key dispatches one key through the overlay's key table; every key but quit works with
// the help open (it shows in place of the chart), as on the dashboard.
func (o Model) key(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste {
		// Fast typing arrives as one message (">>"): take the runes one by one.
		var cmds []tea.Cmd
		for _, r := range msg.Runes {
			nm, cmd := o.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt})
			o, cmds = nm.(Model), append(cmds, cmd)
		}
		return o, tea.Batch(cmds...)
	}
	k := o.keys
	switch {
	case key.Matches(msg, k.Quit):
		return o, tea.Quit
	case key.Matches(msg, k.Help):
		o.showHelp = !o.showHelp
	case key.Matches(msg, k.Back):
		if o.showHelp {
			o.showHelp = false
		} else {
			o.cursor.follow = true
		}
	case key.Matches(msg, k.Next):
		o.sel = overlayCycle(o.sel, 1, len(o.groups))
	case key.Matches(msg, k.Prev):
		o.sel = overlayCycle(o.sel, -1, len(o.groups))
	case key.Matches(msg, k.Metric):
		o.metric = (o.metric + 1) % numMetrics
	case key.Matches(msg, k.LogScale):
		o.log = !o.log
	case key.Matches(msg, k.Zoom):
		o.fromZero = !o.fromZero
	case key.Matches(msg, k.Seeds):
		o.seeds = !o.seeds
	case key.Matches(msg, k.Wall):
		o.wall = !o.wall
	case key.Matches(msg, k.SmoothMore):
		o.smooth = look.SmoothStep(o.smooth, 1)
	case key.Matches(msg, k.SmoothLess):
		o.smooth = look.SmoothStep(o.smooth, -1)
	default:
		before := o.cursor
		if !o.cursor.move(k, msg, o.steps()) || o.cursor == before {
			return o, nil
		}
	}
	o.render()
	return o, nil
}

// overlayCycle moves a highlight among n series and none (-1): tab goes none, 0, 1, …, n−1, none.
func overlayCycle(sel, by, n int) int {
	return (sel+1+by+n+1)%(n+1) - 1
}

// read re-reads feed i's evaluations of the whole model, its newest record and its
// operator events.
func (o *Model) read(i int) {
	recs, err := o.feeds[i].Evals(-1, 0)
	o.errs = append([]string(nil), o.errs...)
	if err != nil {
		o.errs[i] = err.Error()
		o.logger.Printf("tui: overlay: %s: %v", o.names[i], err)
		return
	}
	evs, err := o.feeds[i].Events(-1)
	if err != nil {
		o.errs[i] = err.Error()
		o.logger.Printf("tui: overlay: %s: events: %v", o.names[i], err)
		return
	}
	sc, err := o.feeds[i].Scalars(-1, scalarPoints)
	if err != nil {
		o.errs[i] = err.Error()
		o.logger.Printf("tui: overlay: %s: scalars: %v", o.names[i], err)
		return
	}
	last, _, err := o.feeds[i].At(-1)
	if err != nil {
		o.errs[i] = err.Error()
		o.logger.Printf("tui: overlay: %s: newest record: %v", o.names[i], err)
		return
	}
	o.errs[i] = ""
	o.curves[i] = sessions.WholeEvals(recs)
	o.scalars = append([][]sessions.Record(nil), o.scalars...)
	o.scalars[i] = derived.ActiveRecords(sc, derived.Pauses(evs, last.Step))
	o.heads[i], o.last[i] = headsOff(evs), last
}

// steps returns every run's steps of the metric shown (evaluated steps; every record's
// for the loss), ascending, without repeats: the steps the cursor moves among.
func (o *Model) steps() []int {
	var all []int
	for i := range o.feeds {
		for _, r := range o.records(i, o.metric) {
			if _, ok := o.metric.of(r); ok {
				all = append(all, r.Step)
			}
		}
	}
	return sortedUnique(all)
}
