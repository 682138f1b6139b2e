package runpicker

import (
	"context"
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"windtunnel/sessions"
	"windtunnel/sessions/index"
	"windtunnel/sessions/relay"
	"windtunnel/tui"
)

// Open opens a run's feed for the dashboard: a live run through its control socket (its
// operator's keys reach it), a recorded one replayed from its session, read again every
// follow in case a run still writes it. release closes the feed.
func Open(ctx context.Context, r index.Run, follow time.Duration) (feed sessions.Feed, release func() error, err error) {
	if r.Live != nil || (r.Socket != "" && r.Note == "") {
		f, err := relay.OpenFeed(ctx, r.Socket)
		if err != nil {
			return nil, nil, fmt.Errorf("runpicker: %s: %w", sessions.SafeText(r.Path), err)
		}
		return f, f.Close, nil
	}
	rd, err := sessions.Open(r.Path)
	if err != nil {
		return nil, nil, err
	}
	if err := rd.Check(); err != nil {
		rd.Close()
		return nil, nil, err
	}
	rd.Follow(follow)
	return rd, rd.Close, nil
}

// FollowEvery is how often a replayed session is read again for what a run still adds.
const FollowEvery = 500 * time.Millisecond

// Browser is the picker with the dashboard behind it: enter opens the run under the cursor
// in an embedded dashboard (tui.Options.Embedded), and leaving that dashboard (q on a
// replay, d or s in a live run's quit dialog) comes back to the list, listed again.
type Browser struct {
	ctx     context.Context
	list    Model
	opts    tui.Options
	open    func(context.Context, index.Run) (sessions.Feed, func() error, error)
	dash    tea.Model
	gen     int // counts the dashboards opened; their commands' messages carry it (dashMsg)
	release func() error
	opening bool
}

// dashMsg is a message of the dashboard opened gen-th: one that arrives after it was left
// is dropped, not handed to the next one.
type dashMsg struct {
	gen int
	msg tea.Msg
}

// openedMsg carries the feed of the run opened.
type openedMsg struct {
	run     index.Run
	feed    sessions.Feed
	release func() error
	err     error
}

// NewBrowser returns the picker of the runs list lists, opening them with open (Open,
// following every FollowEvery, when nil) in dashboards drawn with opts.
func NewBrowser(ctx context.Context, list Lister, po Options, opts tui.Options,
	open func(context.Context, index.Run) (sessions.Feed, func() error, error)) Browser {
	if open == nil {
		open = func(ctx context.Context, r index.Run) (sessions.Feed, func() error, error) {
			return Open(ctx, r, FollowEvery)
		}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	po.Renderer = opts.Renderer
	po.Width, po.Height = opts.Width, opts.Height
	opts.Embedded = true
	return Browser{ctx: ctx, list: New(ctx, list, po), opts: opts, open: open}
}

// Init lists the runs.
func (b Browser) Init() tea.Cmd { return b.list.Init() }

// Update hands messages to the open dashboard, else to the picker; a run chosen is opened.
func (b Browser) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if ws, ok := msg.(tea.WindowSizeMsg); ok {
		b.opts.Width, b.opts.Height = ws.Width, ws.Height
		b.list, _ = b.list.Update(ws)
	}
	if dm, ok := msg.(dashMsg); ok {
		return b.fromDash(dm)
	}
	if b.dash != nil {
		var cmd tea.Cmd
		b.dash, cmd = b.dash.Update(msg)
		return b, b.tag(cmd)
	}
	switch msg := msg.(type) {
	case ChosenMsg:
		if b.opening {
			return b, nil
		}
		b.opening = true
		b.list.Message = "opening " + sessions.SafeText(msg.Run.Path) + "…"
		ctx, open, r := b.ctx, b.open, msg.Run
		return b, func() tea.Msg {
			f, release, err := open(ctx, r)
			return openedMsg{run: r, feed: f, release: release, err: err}
		}
	case openedMsg:
		b.opening, b.list.Message = false, ""
		if msg.err != nil {
			b.list.Message = b.list.st.Warn.Render(sessions.SafeText(msg.err.Error()))
			return b, nil
		}
		opts := b.opts
		opts.RunPID = msg.run.Pid
		opts.DetachNote = "back to the list of runs; the run goes on and keeps recording its session"
		b.dash, b.release = tui.New(msg.feed, opts), msg.release
		b.gen++
		return b, b.tag(b.dash.Init())
	case tea.WindowSizeMsg:
		return b, nil
	}
	var cmd tea.Cmd
	b.list, cmd = b.list.Update(msg)
	return b, cmd
}

// tag marks the messages of cmd, a command of the shown dashboard, with its generation.
func (b Browser) tag(cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	gen := b.gen
	return func() tea.Msg { return dashMsg{gen, cmd()} }
}

// fromDash hands a message of the shown dashboard's commands back to it (a batch as a
// batch of tagged commands), drops one of a dashboard already left, and goes back to the
// list on tui.LeftMsg.
func (b Browser) fromDash(dm dashMsg) (tea.Model, tea.Cmd) {
	if b.dash == nil || dm.gen != b.gen {
		return b, nil
	}
	switch msg := dm.msg.(type) {
	case nil:
		return b, nil
	case tea.BatchMsg:
		cmds := make([]tea.Cmd, len(msg))
		for i, c := range msg {
			cmds[i] = b.tag(c)
		}
		return b, tea.Batch(cmds...)
	case tea.QuitMsg:
		return b, tea.Quit
	case tui.LeftMsg:
		b.dash = nil
		if b.release != nil {
			b.release()
			b.release = nil
		}
		return b, b.list.Refresh()
	}
	var cmd tea.Cmd
	b.dash, cmd = b.dash.Update(dm.msg)
	return b, b.tag(cmd)
}

// View draws the open dashboard, else the picker.
func (b Browser) View() string {
	if b.dash != nil {
		return b.dash.View()
	}
	return b.list.View()
}

// Close releases the feed of a dashboard still open.
func (b Browser) Close() {
	if b.release != nil {
		b.release()
	}
}

// Run shows the picker of the runs of po.Dir (List), titled po.Title, with po.Settings (a
// sweep's), on the terminal opts name until the user quits it (q, ctrl+c) or ctx is done;
// each run chosen opens in the dashboard, and leaving it comes back to the list.
func Run(ctx context.Context, po Options, opts tui.Options) error {
	dir := po.Dir
	list := func(ctx context.Context) ([]index.Run, error) { return List(ctx, dir, "") }
	b := NewBrowser(ctx, list, po, opts, nil)
	final, err := tui.RunProgram(ctx, b, opts)
	if fb, ok := final.(Browser); ok {
		fb.Close()
	}
	return err
}
