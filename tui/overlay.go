package tui

import (
	"fmt"
	"log"
	"math"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"windtunnel/sessions"
)

// overlayGlyphs mark the sessions' lines, so they stay apart without colour.
var overlayGlyphs = []rune{'•', '∘', '×', '+', '◆', '▲', '■', '○'}

// Overlay is the comparison view: bit error (a) against steps for several sessions on one
// chart, one line per session. Like Model it only reads its feeds, polls them at the
// dashboard's pace and redraws only when one of them changed, the size or the scale did.
type Overlay struct {
	feeds  []sessions.Feed
	names  []string
	metas  []sessions.Meta
	curves [][]sessions.Record // per feed: its evaluations of the whole model
	errs   []string
	closed []bool

	keys          overlayKeys
	st            styles
	help          help.Model
	log           bool
	width, height int
	frame         string
	logger        *log.Logger
}

// overlayKeys are the overlay's key table (dispatch and help).
type overlayKeys struct{ Quit, LogScale key.Binding }

// NewOverlay returns the comparison view of feeds, named by names (a missing name is the
// feed's model), at 80×24 until the terminal reports its size.
func NewOverlay(feeds []sessions.Feed, names []string, opts Options) Overlay {
	k := defaultKeys()
	o := Overlay{
		feeds: feeds, logger: opts.logger(), st: newStyles(opts.Renderer), help: newHelp(opts.Renderer),
		keys:  overlayKeys{Quit: k.Quit, LogScale: k.LogScale},
		width: defaultWidth, height: defaultHeight,
		curves: make([][]sessions.Record, len(feeds)), errs: make([]string, len(feeds)), closed: make([]bool, len(feeds)),
	}
	for i, f := range feeds {
		o.metas = append(o.metas, f.Meta())
		name := ""
		if i < len(names) {
			name = names[i]
		}
		if name == "" {
			name = o.metas[i].Model
		}
		o.names = append(o.names, name)
		o.read(i)
	}
	o.render()
	return o
}

// overlayMsg reports which feeds changed (or that a tick passed).
type overlayMsg struct{ changed, closed []bool }

// Init starts polling the feeds.
func (o Overlay) Init() tea.Cmd { return o.wait() }

// wait polls every feed's Changed signal once per tick, never blocking a producer.
func (o Overlay) wait() tea.Cmd {
	chs := make([]<-chan struct{}, len(o.feeds))
	for i, f := range o.feeds {
		if !o.closed[i] {
			chs[i] = f.Changed()
		}
	}
	return func() tea.Msg {
		time.Sleep(tickInterval)
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
func (o Overlay) View() string { return o.frame }

// Update handles keys, resizes and feed changes.
func (o Overlay) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		o.width, o.height = max(msg.Width, 1), max(msg.Height, 1)
		o.render()
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, o.keys.Quit):
			return o, tea.Quit
		case key.Matches(msg, o.keys.LogScale):
			o.log = !o.log
			o.render()
		}
	case overlayMsg:
		any := false
		o.curves = append([][]sessions.Record(nil), o.curves...)
		o.closed = append([]bool(nil), o.closed...)
		for i := range o.feeds {
			if i < len(msg.changed) && msg.changed[i] {
				o.read(i)
				any = true
			}
			if i < len(msg.closed) && msg.closed[i] {
				o.closed[i] = true
			}
		}
		if any {
			o.render()
		}
		return o, o.wait()
	}
	return o, nil
}

// read re-reads feed i's evaluations of the whole model.
func (o *Overlay) read(i int) {
	recs, err := o.feeds[i].Evals(-1, 0)
	o.errs = append([]string(nil), o.errs...)
	if err != nil {
		o.errs[i] = err.Error()
		o.logger.Printf("tui: overlay: %s: %v", o.names[i], err)
		return
	}
	o.errs[i] = ""
	var whole []sessions.Record
	for _, r := range recs {
		if r.Eval != nil && len(r.Eval.Ablated) == 0 {
			whole = append(whole, r)
		}
	}
	o.curves[i] = whole
}

// render draws the screen into o.frame, exactly width × height: a title, one legend line
// per session, the chart and the keys.
func (o *Overlay) render() {
	w, h := o.width, o.height
	st := o.st
	scale := "linear"
	if o.log {
		scale = "log"
	}
	lines := []string{fmt.Sprintf("bit error (a) over steps · %d sessions · %s (l)", len(o.feeds), scale)}
	var ss []series
	var xs, ys [][]float64
	xr := span{math.Inf(1), math.Inf(-1)}
	for i := range o.feeds {
		g := overlayGlyphs[i%len(overlayGlyphs)]
		style := st.lines[i%len(st.lines)]
		m := o.metas[i]
		desc := m.Model
		if m.Layers > 0 && m.Heads > 0 {
			desc += fmt.Sprintf(" %dL×%dH", m.Layers, m.Heads)
		}
		if m.Task != "" {
			desc += " · " + m.Task
		}
		c := o.curves[i]
		last := "no evaluations yet"
		if n := len(c); n > 0 {
			last = fmt.Sprintf("(a) %s @%d", fnum(c[n-1].Eval.BitErrorPosition, 3), c[n-1].Step)
		}
		if o.errs[i] != "" {
			last = st.warn.Render("error: " + o.errs[i])
		}
		lines = append(lines, fmt.Sprintf("%s %s — %s · %s", style.Render(string(g)), o.names[i], desc, last))
		x, y := make([]float64, 0, len(c)), make([]float64, 0, len(c))
		for _, r := range c {
			x = append(x, float64(r.Step))
			y = append(y, r.Eval.BitErrorPosition)
		}
		if len(x) > 0 {
			xr = span{math.Min(xr.lo, x[0]), math.Max(xr.hi, x[len(x)-1])}
		}
		xs, ys = append(xs, x), append(ys, y)
	}
	foot := padLine(o.help.ShortHelpView([]key.Binding{o.keys.LogScale, o.keys.Quit}), w)
	ch := h - len(lines) - footerH
	if ch >= 4 && !math.IsInf(xr.lo, 0) {
		width := max(w-6, 2)
		yr, yfmt := linearRange(ys...), valueLabels
		for i := range ys {
			idx := sessions.Thin(len(xs[i]), width)
			tx, ty := make([]float64, len(idx)), make([]float64, len(idx))
			for j, k := range idx {
				tx[j], ty[j] = xs[i][k], ys[i][k]
				if o.log {
					ty[j] = math.Log10(math.Max(ty[j], logFloor))
				}
			}
			xs[i], ys[i] = tx, ty
		}
		if o.log {
			yr, yfmt = logRange(ys...), powLabels
		}
		for i := len(xs) - 1; i >= 0; i-- { // the first session on top
			ss = append(ss, series{glyph: overlayGlyphs[i%len(overlayGlyphs)], style: st.lines[i%len(st.lines)], x: xs[i], y: ys[i]})
		}
		lines = append(lines, lineChart(w, ch, xr, yr, ss, intLabels, yfmt))
	} else if ch >= 1 {
		lines = append(lines, fit(st.dim.Render("no evaluations yet"), w, ch))
	}
	o.frame = fit(strings.Join(lines, "\n")+"\n"+foot, w, h)
	if len(lines) > h-footerH { // too small for the keys line: keep it in view
		o.frame = fit(strings.Join(lines[:max(h-footerH, 0)], "\n")+"\n"+foot, w, h)
	}
}
