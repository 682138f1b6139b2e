package sshserve

import (
	"context"
	"fmt"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"windtunnel/sessions"
	"windtunnel/tui"
)

// picker is a session's root model: it lists the runs and opens the one picked (at once
// when exactly one is live), then hands every message to that run's dashboard. Leaving the
// dashboard (q on a replay, d or s on a live run) comes back to the list when the viewer
// picked the run there, and ends the session when the picker opened it unasked.
type picker struct {
	ctx  context.Context
	src  Source
	v    *viewer
	opts tui.Options // the dashboard's options; Width and Height follow the terminal
	st   pickStyles

	runs    []Run
	listed  bool   // the first listing arrived
	err     string // the last listing or opening error
	cursor  int
	opening string // the run being opened
	auto    bool   // the run being opened, or shown, was opened unasked (the only live one)
	dash    tea.Model
	gen     int    // counts the dashboards opened; their commands' messages carry it (dashMsg)
	release func() // releases the shown dashboard's feed
}

// dashMsg is a message of the dashboard opened gen-th: one that arrives after that
// dashboard was left is dropped, not handed to the next one.
type dashMsg struct {
	gen int
	msg tea.Msg
}

// Notes of the quit dialog: what detaching does, by where it leads.
const (
	noteDisconnect = "disconnect; the run goes on and keeps recording its session"
	noteBack       = "back to the list of runs; the run goes on and keeps recording its session"
)

// pickStyles are the picker's styles, rendered for the session's terminal.
type pickStyles struct{ title, dim, cursor, warn, live lipgloss.Style }

// runsMsg carries a listing of the runs.
type runsMsg struct {
	runs []Run
	err  error
}

// openedMsg carries the feed of a run opened for the viewer and the function releasing it.
type openedMsg struct {
	run     Run
	feed    sessions.Feed
	release func()
	err     error
}

// newPicker returns the picker of one session; opts.Renderer draws it.
func newPicker(ctx context.Context, src Source, v *viewer, opts tui.Options) picker {
	ns := lipgloss.NewStyle
	if opts.Renderer != nil {
		ns = opts.Renderer.NewStyle
	}
	st := pickStyles{
		title:  ns().Bold(true),
		dim:    ns().Faint(true),
		cursor: ns().Reverse(true),
		warn:   ns().Foreground(lipgloss.AdaptiveColor{Light: "160", Dark: "203"}).Bold(true),
		live:   ns().Foreground(lipgloss.AdaptiveColor{Light: "28", Dark: "78"}),
	}
	opts.Width, opts.Height = clampWindow(opts.Width, opts.Height)
	return picker{ctx: ctx, src: src, v: v, opts: opts, st: st}
}

// Init lists the runs.
func (p picker) Init() tea.Cmd { return p.list() }

// list asks the Source for the runs.
func (p picker) list() tea.Cmd {
	return func() tea.Msg {
		runs, err := p.src.Runs(p.ctx)
		return runsMsg{runs, err}
	}
}

// open asks the Source for a run's feed; the session keeps its release function.
func (p picker) open(r Run) tea.Cmd {
	v := p.v
	return func() tea.Msg {
		f, release, err := p.src.Open(p.ctx, r, v.key.By(), v.key.Operator)
		if err != nil {
			return openedMsg{run: r, err: err}
		}
		return openedMsg{run: r, feed: f, release: v.hold(release)}
	}
}

// Update follows the terminal's size (at most MaxWidth×MaxHeight), moves through the list and opens the run picked;
// once a dashboard is open, it gets every message.
func (p picker) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if ws, ok := msg.(tea.WindowSizeMsg); ok {
		ws.Width, ws.Height = clampWindow(ws.Width, ws.Height) // what the client says, bounded
		p.opts.Width, p.opts.Height = ws.Width, ws.Height
		msg = ws
	}
	if dm, ok := msg.(dashMsg); ok {
		return p.fromDash(dm)
	}
	if p.dash != nil {
		var cmd tea.Cmd
		p.dash, cmd = p.dash.Update(msg)
		return p, p.tag(cmd)
	}
	switch msg := msg.(type) {
	case runsMsg:
		first := !p.listed
		p.listed, p.err = true, ""
		if msg.err != nil {
			p.err = "listing the runs: " + msg.err.Error()
			return p, nil
		}
		p.runs = ordered(msg.runs)
		p.cursor = min(p.cursor, max(len(p.runs)-1, 0))
		if live := countLive(p.runs); first && live == 1 {
			p.opening, p.auto = p.runs[0].Name, true
			return p, p.open(p.runs[0])
		}
	case openedMsg:
		p.opening = ""
		if msg.err != nil {
			p.err = fmt.Sprintf("opening %s: %v", msg.run.Name, msg.err)
			return p, nil
		}
		opts := p.opts
		opts.DetachNote, opts.RunPID = noteBack, msg.run.Pid
		if p.auto {
			opts.DetachNote = noteDisconnect
		}
		p.dash, p.release = tui.New(p.v.feed(msg.run, msg.feed), opts), msg.release
		p.gen++
		return p, p.tag(p.dash.Init())
	case tea.KeyMsg:
		switch msg.String() {
		case "q", "ctrl+c", "esc":
			return p, tea.Quit
		case "up", "k":
			p.cursor = max(p.cursor-1, 0)
		case "down", "j":
			p.cursor = min(p.cursor+1, max(len(p.runs)-1, 0))
		case "r":
			return p, p.list()
		case "enter":
			if p.opening == "" && p.cursor < len(p.runs) {
				p.opening, p.err, p.auto = p.runs[p.cursor].Name, "", false
				return p, p.open(p.runs[p.cursor])
			}
		}
	}
	return p, nil
}

// tag marks the messages of cmd, a command of the shown dashboard, with its generation
// (nil stays nil).
func (p picker) tag(cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	gen := p.gen
	return func() tea.Msg { return dashMsg{gen, cmd()} }
}

// fromDash hands a message of the shown dashboard's commands back to it (a batch of
// commands is run as a batch of tagged ones), drops one of a dashboard already left, and
// leaves the dashboard on tui.LeftMsg: back to the list, or the session ends when the
// dashboard was opened unasked.
func (p picker) fromDash(dm dashMsg) (tea.Model, tea.Cmd) {
	if p.dash == nil || dm.gen != p.gen {
		return p, nil
	}
	switch msg := dm.msg.(type) {
	case nil:
		return p, nil
	case tea.BatchMsg:
		cmds := make([]tea.Cmd, len(msg))
		for i, c := range msg {
			cmds[i] = p.tag(c)
		}
		return p, tea.Batch(cmds...)
	case tui.LeftMsg:
		if p.auto {
			return p, tea.Quit
		}
		p.dash = nil
		if p.release != nil {
			p.release()
			p.release = nil
		}
		return p, p.list()
	}
	var cmd tea.Cmd
	p.dash, cmd = p.dash.Update(dm.msg)
	return p, p.tag(cmd)
}

// ordered orders the live runs before the finished ones, and those of a group (a sweep's
// or a compare's folder) together, after the runs of none, the groups in the order their
// first run comes; otherwise the Source's order is kept.
func ordered(runs []Run) []Run {
	out := make([]Run, 0, len(runs))
	for _, live := range []bool{true, false} {
		var groups []string
		for _, r := range runs {
			if r.Live != live {
				continue
			}
			if r.Group == "" {
				out = append(out, r)
			} else if !slices.Contains(groups, r.Group) {
				groups = append(groups, r.Group)
			}
		}
		for _, g := range groups {
			for _, r := range runs {
				if r.Live == live && r.Group == g {
					out = append(out, r)
				}
			}
		}
	}
	return out
}

// listLine is a line of the list: a run (run ≥ 0, its index) or a group's heading.
type listLine struct {
	run  int
	text string
}

// listLines are the list's lines: each run's, a group's heading before its first run.
func (p picker) listLines() []listLine {
	var out []listLine
	prev := ""
	for i, r := range p.runs {
		if r.Group != "" && (r.Group != prev || i == 0 || p.runs[i-1].Live != r.Live) {
			n := 0
			for _, o := range p.runs {
				if o.Group == r.Group && o.Live == r.Live {
					n++
				}
			}
			out = append(out, listLine{run: -1, text: p.st.title.Render(r.Group+"/") + p.st.dim.Render(" · "+sessions.Plural(n, "run"))})
		}
		prev = r.Group
		out = append(out, listLine{run: i, text: p.row(r, i == p.cursor)})
	}
	return out
}

// countLive counts the live runs.
func countLive(runs []Run) int {
	n := 0
	for _, r := range runs {
		if r.Live {
			n++
		}
	}
	return n
}

// View draws the dashboard once a run is open, else the list of runs.
func (p picker) View() string {
	if p.dash != nil {
		return p.dash.View()
	}
	w, h := max(p.opts.Width, 20), max(p.opts.Height, 6)
	role := "read-only"
	if p.v.key.Operator {
		role = "operator"
	}
	head := []string{
		p.st.title.Render("windtunnel serve") + p.st.dim.Render(fmt.Sprintf(" · %s key %s", role, p.v.key.Fingerprint)),
		"",
	}
	live := countLive(p.runs)
	switch {
	case !p.listed:
		head = append(head, "listing the runs…")
	case p.opening != "":
		head = append(head, "opening "+p.opening+"…")
	case len(p.runs) == 0:
		head = append(head, "No run is live, and no recorded run was found.")
	case live == 0:
		head = append(head, "No run is live. Recent runs, replayed read-only:")
	default:
		head = append(head, fmt.Sprintf("%d runs are live: pick one.", live))
	}
	var foot []string
	if p.err != "" {
		foot = append(foot, p.st.warn.Render(p.err))
	}
	foot = append(foot, p.st.dim.Render("↑/↓ move · enter open · r refresh · q quit"))
	rows := max(h-len(head)-len(foot)-1, 1)
	list := p.listLines()
	at := 0
	for i, l := range list {
		if l.run == p.cursor {
			at = i
		}
	}
	top := max(at-rows+1, 0)
	lines := head
	for i := top; i < len(list) && i < top+rows; i++ {
		lines = append(lines, list[i].text)
	}
	for len(lines) < h-len(foot) {
		lines = append(lines, "")
	}
	lines = append(lines, foot...)
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, w, "…")
	}
	return strings.Join(lines, "\n")
}

// row is one run of the list.
func (p picker) row(r Run, selected bool) string {
	state := p.st.dim.Render("■ done")
	if r.Live {
		state = p.st.live.Render("● live")
	}
	step := fmt.Sprintf("step %d", r.Step)
	if r.Steps > 0 {
		step = fmt.Sprintf("step %d/%d", r.Step, r.Steps)
	}
	name := r.Name
	if r.Label != "" {
		name += " " + r.Label
	}
	if selected {
		name = p.st.cursor.Render(name)
	}
	mark := "  "
	if selected {
		mark = "▸ "
	}
	if r.Group != "" {
		mark = "  " + mark
	}
	return fmt.Sprintf("%s%s  %s  %s", mark, state, name, p.st.dim.Render(fmt.Sprintf("%s · %s · %s", r.Task, r.Model, step)))
}
