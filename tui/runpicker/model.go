package runpicker

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/table"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"windtunnel/sessions"
	"windtunnel/sessions/index"
	"windtunnel/tui/look"
)

// Lister lists the runs the picker shows (List, for a folder).
type Lister func(ctx context.Context) ([]index.Run, error)

// RunsMsg carries a listing of the runs.
type RunsMsg struct {
	Runs []index.Run
	Err  error
}

// ChosenMsg is what the picker sends when the user opens a run (enter).
type ChosenMsg struct{ Run index.Run }

// keys are the picker's own keys; the table's move the cursor (↑/↓, k/j, pgup/pgdn, g/G).
type keys struct {
	Open, Filter, Sort, Reverse, Refresh, Quit, Apply, Cancel key.Binding
}

func newKeys() keys {
	b := func(k []string, h, d string) key.Binding {
		return key.NewBinding(key.WithKeys(k...), key.WithHelp(h, d))
	}
	return keys{
		Open:    b([]string{"enter"}, "enter", "open"),
		Filter:  b([]string{"/"}, "/", "filter"),
		Sort:    b([]string{"s"}, "s", "sort"),
		Reverse: b([]string{"S"}, "S", "reverse"),
		Refresh: b([]string{"r"}, "r", "refresh"),
		Quit:    b([]string{"q", "ctrl+c"}, "q", "quit"),
		Apply:   b([]string{"enter"}, "enter", "keep filter"),
		Cancel:  b([]string{"esc"}, "esc", "drop filter"),
	}
}

// Model is the run picker: ls's columns of the runs of a folder in a table (bubbles'
// table), a filter typed after / (ParseQuery: ls's --where conditions and words), the
// order s cycles through (SortKeys; S reverses it). enter sends ChosenMsg for the run
// under the cursor; q quits, unless Embedded.
type Model struct {
	ctx   context.Context
	list  Lister
	title string
	st    look.Styles
	help  help.Model
	keys  keys

	all     []index.Run
	shown   []index.Run
	cells   []row
	set     index.Settings // a sweep's swept flags and each session's values (none: another folder)
	sorts   []string       // the orders s cycles through (SortKeys, and a sweep's)
	listed  bool
	err     string
	query   Query
	qerr    string
	input   textinput.Model
	editing bool
	sortAt  int
	reverse bool
	wd      string // sessions are shown relative to it

	tbl     table.Model
	cols    []column
	widths  []int
	w, h    int
	Message string // a line the host shows above the keys (opening a run, an error)
}

// Options configure the picker.
type Options struct {
	// Title heads the screen ("windtunnel replay runs/").
	Title string
	// Dir is the folder whose sessions are shown relative to it.
	Dir string
	// Renderer styles it for its terminal (nil: lipgloss's default).
	Renderer *lipgloss.Renderer
	// Width and Height are the screen's size until the terminal reports one.
	Width, Height int
	// Settings are the swept flags of a sweep's (or a compare's) folder and each session's
	// values of them (lab/sweep's Manifest.Settings): each is a column beside bit error
	// (a), (b) and accuracy, and an order s cycles through. None for another folder.
	Settings index.Settings
}

// New returns the picker of the runs list lists.
func New(ctx context.Context, list Lister, o Options) Model {
	ns := lipgloss.NewStyle
	if o.Renderer != nil {
		ns = o.Renderer.NewStyle
	}
	in := textinput.New()
	in.Prompt = "filter › "
	in.Placeholder = "task=hmm tag=lr bit_error<0.1 or words"
	in.Cursor.SetMode(cursor.CursorStatic)
	in.CharLimit = 200
	tbl := table.New(table.WithFocused(true))
	tbl.SetStyles(table.Styles{
		Header:   ns().Bold(true).Padding(0, pad, 0, 0),
		Cell:     ns().Padding(0, pad, 0, 0),
		Selected: ns().Reverse(true),
	})
	m := Model{ctx: ctx, list: list, title: o.Title, st: look.NewStyles(o.Renderer), help: look.NewHelp(o.Renderer),
		keys: newKeys(), input: in, tbl: tbl, wd: o.Dir, w: max(o.Width, 1), h: max(o.Height, 1),
		set: o.Settings, sorts: sortKeys(o.Settings)}
	if m.ctx == nil {
		m.ctx = context.Background()
	}
	if abs, err := filepath.Abs(o.Dir); err == nil && o.Dir != "" {
		m.wd = abs
	}
	m.relayout()
	return m
}

// Init lists the runs.
func (m Model) Init() tea.Cmd { return m.Refresh() }

// Refresh lists the runs again.
func (m Model) Refresh() tea.Cmd {
	ctx, list := m.ctx, m.list
	return func() tea.Msg {
		runs, err := list(ctx)
		return RunsMsg{runs, err}
	}
}

// Selected is the run under the cursor, if any.
func (m Model) Selected() (index.Run, bool) {
	i := m.tbl.Cursor()
	if i < 0 || i >= len(m.shown) {
		return index.Run{}, false
	}
	return m.shown[i], true
}

// Shown is the runs the filter keeps, in the order shown.
func (m Model) Shown() []index.Run { return m.shown }

// Update takes the listing, the terminal's size and the keys.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = max(msg.Width, 1), max(msg.Height, 1)
		m.relayout()
		return m, nil
	case RunsMsg:
		m.listed, m.err = true, ""
		if msg.Err != nil {
			m.err = "listing the runs: " + sessions.SafeText(msg.Err.Error())
			return m, nil
		}
		m.all = msg.Runs
		m.apply()
		return m, nil
	case tea.KeyMsg:
		if m.editing {
			return m.edit(msg)
		}
		switch {
		case key.Matches(msg, m.keys.Open):
			if r, ok := m.Selected(); ok {
				return m, func() tea.Msg { return ChosenMsg{r} }
			}
			return m, nil
		case key.Matches(msg, m.keys.Filter):
			m.editing = true
			m.input.SetValue(m.input.Value())
			m.input.CursorEnd()
			return m, m.input.Focus()
		case key.Matches(msg, m.keys.Sort):
			m.sortAt = (m.sortAt + 1) % len(m.sorts)
			m.apply()
			return m, nil
		case key.Matches(msg, m.keys.Reverse):
			m.reverse = !m.reverse
			m.apply()
			return m, nil
		case key.Matches(msg, m.keys.Refresh):
			return m, m.Refresh()
		case key.Matches(msg, m.keys.Quit):
			return m, tea.Quit
		case key.Matches(msg, m.keys.Cancel):
			if m.input.Value() != "" {
				m.input.SetValue("")
				m.query, m.qerr = Query{}, ""
				m.apply()
			}
			return m, nil
		}
		before := m.tbl.Cursor()
		var cmd tea.Cmd
		m.tbl, cmd = m.tbl.Update(msg)
		if m.tbl.Cursor() != before {
			m.fill()
		}
		return m, cmd
	}
	return m, nil
}

// edit takes a key while the filter is typed: the filter applies as it is typed (an
// unreadable one is named, the last good one kept); enter keeps it, esc drops it.
func (m Model) edit(msg tea.KeyMsg) (Model, tea.Cmd) {
	switch {
	case key.Matches(msg, m.keys.Apply):
		m.editing = false
		m.input.Blur()
		return m, nil
	case key.Matches(msg, m.keys.Cancel):
		m.editing = false
		m.input.Blur()
		m.input.SetValue("")
		m.query, m.qerr = Query{}, ""
		m.apply()
		return m, nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	q, err := ParseQuery(m.input.Value())
	if err != nil {
		m.qerr = err.Error()
		return m, cmd
	}
	m.query, m.qerr = q, ""
	m.apply()
	return m, cmd
}

// apply filters and orders the runs and refills the table, the cursor kept on its run.
func (m *Model) apply() {
	var keep string
	if r, ok := m.Selected(); ok {
		keep = r.Path
	}
	m.shown = m.shown[:0:0]
	for _, r := range m.all {
		if m.query.Keep(r) {
			m.shown = append(m.shown, r)
		}
	}
	sortRuns(m.shown, m.sorts[m.sortAt], m.set, m.reverse)
	m.cells = make([]row, len(m.shown))
	at := 0
	for i, r := range m.shown {
		m.cells[i] = newRow(r, m.wd, m.set)
		if r.Path == keep {
			at = i
		}
	}
	m.relayout()
	m.tbl.SetCursor(at)
	m.fill()
}

// relayout fits the columns and the table to the screen.
func (m *Model) relayout() {
	labelled := false
	for _, r := range m.shown {
		labelled = labelled || r.Labels.Name != "" || len(r.Labels.Tags) > 0
	}
	m.cols, m.widths = layout(m.cells, labelled, m.set.Flags, m.w)
	m.tbl.SetRows(nil)
	m.tbl.SetColumns(tableColumns(m.cols, m.widths))
	m.tbl.SetWidth(m.w)
	m.tbl.SetHeight(max(m.h-3, 2))
	m.fill()
}

// fill sets the table's rows, the cursor's marked.
func (m *Model) fill() {
	rows := make([]table.Row, len(m.cells))
	cur := m.tbl.Cursor()
	for i, c := range m.cells {
		rows[i] = tableRow(c, m.cols, m.widths, i == cur)
	}
	m.tbl.SetRows(rows)
}

// View draws the picker in exactly the terminal's width and height: a title, the table
// (or why it is empty), the filter line and the keys.
func (m Model) View() string {
	w, h := m.w, m.h
	live := 0
	for _, r := range m.all {
		if r.Live != nil {
			live++
		}
	}
	order := sortName(m.sorts[m.sortAt])
	if m.reverse {
		order += " (reversed)"
	}
	head := look.FirstFit(w,
		fmt.Sprintf("%s · %s, %d live · sorted by %s", m.title, sessions.Plural(len(m.all), "run"), live, order),
		fmt.Sprintf("%s · %s · by %s", m.title, sessions.Plural(len(m.all), "run"), order), m.title)
	lines := []string{m.st.Title.Render(look.PadLine(head, w))}
	body := max(h-3, 1)
	var rows []string
	switch {
	case !m.listed:
		rows = []string{"listing the runs…"}
	case len(m.all) == 0:
		rows = []string{"No sessions here: `windtunnel run` records one, `windtunnel ls --dir DIR` lists another folder."}
	case len(m.shown) == 0:
		rows = []string{fmt.Sprintf("None of the %s matches the filter (esc drops it).", sessions.Plural(len(m.all), "run"))}
	default:
		rows = strings.Split(m.tbl.View(), "\n")
	}
	for i := 0; i < body; i++ {
		l := ""
		if i < len(rows) {
			l = rows[i]
		}
		lines = append(lines, look.PadLine(l, w))
	}
	lines = append(lines, look.PadLine(m.filterLine(), w))
	var bs []key.Binding
	if m.editing {
		bs = []key.Binding{m.keys.Apply, m.keys.Cancel}
	} else {
		bs = []key.Binding{m.keys.Open, m.keys.Filter, m.keys.Sort, m.keys.Reverse, m.keys.Refresh, m.keys.Quit}
	}
	lines = append(lines, look.PadLine(look.FitHelp(m.help, bs, w), w))
	return strings.Join(lines[:h], "\n")
}

// filterLine is the filter being typed, the filter kept and what it keeps, or the error of
// the listing, the filter or the host (Message).
func (m Model) filterLine() string {
	switch {
	case m.qerr != "":
		return m.st.Warn.Render("filter: " + m.qerr)
	case m.err != "":
		return m.st.Warn.Render(m.err)
	case m.Message != "":
		return m.Message
	case m.editing:
		return m.input.View()
	case m.input.Value() != "":
		return fmt.Sprintf("filter: %s · %d of %d", sessions.SafeText(m.input.Value()), len(m.shown), len(m.all))
	}
	return m.st.Dim.Render("/ filters: task=hmm, tag=lr, bit_error<0.1, or words")
}
