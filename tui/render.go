package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"windtunnel/tui/look"
)

// render lays the screen out into m.frame, exactly width × height. Every part comes from a
// cache that is redrawn only when its inputs changed.
func (m *Model) render() {
	w, h := m.width, m.height
	bh := bodyHeight(h)
	var body string
	switch m.mode() {
	case modeSmall:
		m.frame = tooSmall(w, h)
		if m.quit.open {
			m.frame = place(m.frame, m.quit.view(w, h, m.sh.st), w, h)
		}
		m.stats.Frames++
		return
	case modeGrid:
		body = m.renderGrid(w, bh)
	case modeSplit:
		body = m.renderSplit(w, bh)
	default:
		body = m.renderTabs(w, bh)
	}
	parts := [3]string{body, m.scrubView(w), m.footer(w)}
	if v := m.views; v.frameParts != parts || v.frameW != w || v.frameH != h {
		// Strings that come from the caches compare by pointer first, so this is cheap.
		v.frameParts, v.frameW, v.frameH = parts, w, h
		v.frame = exact(body+"\n"+parts[1]+"\n"+parts[2], w, h)
	}
	m.frame = m.views.frame
	if m.quit.open {
		m.frame = place(m.frame, m.quit.view(w, h, m.sh.st), w, h)
	}
	m.stats.Frames++
}

// tooSmall is the notice shown instead of the panes on a terminal smaller than the least
// size they are laid out for, centred in w×h and wrapped at spaces when w is narrower still.
func tooSmall(w, h int) string {
	var lines []string
	for _, l := range look.FlowParts([]string{"terminal too small:", fmt.Sprintf("need %d×%d, have %d×%d", minWidth, minHeight, w, h)}, " ", w) {
		lines = append(lines, look.Wrap(l, w)...)
	}
	top := max((h-len(lines))/2, 0)
	out := make([]string, 0, h)
	for range top {
		out = append(out, "")
	}
	for _, l := range lines {
		out = append(out, strings.Repeat(" ", max((w-ansi.StringWidth(l))/2, 0))+l)
	}
	return look.Fit(strings.Join(out, "\n"), w, h)
}

// exact returns s when it has h lines (its parts are each exactly w wide), else fits it.
func exact(s string, w, h int) string {
	if strings.Count(s, "\n") == h-1 {
		return s
	}
	return look.Fit(s, w, h)
}

// renderGrid shows the run summary, the page bar and the page's four panes: run over
// ablation (or keys) on the left, bit error over attention (or manifold over
// frame-precision) on the right.
func (m *Model) renderGrid(w, h int) string {
	head := m.header(w)
	if m.showHelp {
		return head + "\n" + m.helpBox(w, h-headerH)
	}
	bar := m.views.pageBar.get(m.sh, pageBarKey{w, m.page}, func() string { return pageBar(m.page, w, m.sh.st) })
	pg := pages[m.page]
	rs := gridSlots(w, h)
	var parts [5]string
	parts[0] = head + "\n" + bar
	for slot := range 4 {
		i := pg.panes[slot]
		parts[slot+1] = m.boxed(i, rs[slot].w, rs[slot].h, i == m.focus)
	}
	if v := m.views; v.gridParts != parts {
		v.gridParts = parts
		v.grid = parts[0] + "\n" + look.HCat(look.VCat(parts[1], parts[2]), look.VCat(parts[3], parts[4]))
	}
	return m.views.grid
}

// renderSplit shows the run summary, the page bar and three of the page's panes: the
// bottom-left pane of the grid (or the run pane while focused) on the left, the right
// column's two on the right.
func (m *Model) renderSplit(w, h int) string {
	head := m.header(w)
	if m.showHelp {
		return head + "\n" + m.helpBox(w, h-headerH)
	}
	bar := m.views.pageBar.get(m.sh, pageBarKey{w, m.page}, func() string { return pageBar(m.page, w, m.sh.st) })
	rs := splitSlots(w, h)
	var parts [5]string
	parts[0] = head + "\n" + bar
	for slot, i := range splitPanes(pages[m.page], m.focus) {
		parts[slot+1] = m.boxed(i, rs[slot].w, rs[slot].h, i == m.focus)
	}
	if v := m.views; v.gridParts != parts {
		v.gridParts = parts
		v.grid = parts[0] + "\n" + look.HCat(parts[1], look.VCat(parts[2], parts[3]))
	}
	return m.views.grid
}

// header is the run summary, w cells wide and headerH lines high: each line's parts (split
// at " · ") kept from the left as long as they fit, so none is cut.
func (m *Model) header(w int) string {
	sh := m.sh
	return m.views.header.get(sh, headerKey{w, sh.gen}, func() string {
		lines := strings.Split(headerLines(sh), "\n")
		for i, l := range lines {
			lines[i] = look.FitParts(l, " · ", w)
		}
		return look.Fit(strings.Join(lines, "\n"), w, headerH)
	})
}

// renderTabs shows the run summary, a tab bar and the focused pane, or the full help.
func (m *Model) renderTabs(w, h int) string {
	sh := m.sh
	head := m.header(w)
	tabs := m.views.tabs.get(sh, tabsKey{w, m.focus}, func() string { return m.tabBar(w) })
	top := head + "\n" + tabs
	if m.showHelp { // over the tabs, under the summary: a page of keys at a time
		return head + "\n" + m.helpBox(w, h-headerH)
	}
	r := tabRect(w, h)
	if r.h < minBoxH {
		return top
	}
	return top + "\n" + m.boxed(m.focus, r.w, r.h, true)
}

// helpBox is the full help in a w×h box: its page m.helpPage when it takes several (? turns
// them, the title says which).
func (m *Model) helpBox(w, h int) string {
	return m.views.help.get(m.sh, helpKey{w, h, m.helpPage}, func() string {
		iw, ih := rect{w, h}.inner()
		pages := look.HelpPages(m.helpGroups(), iw, ih, m.sh.st)
		p := min(m.helpPage, len(pages)-1)
		title := "Keys — ?, h or esc closes"
		switch {
		case len(pages) > 1 && p < len(pages)-1:
			title = fmt.Sprintf("Keys %d/%d — ? or h: next page, esc closes", p+1, len(pages))
		case len(pages) > 1:
			title = fmt.Sprintf("Keys %d/%d — ?, h or esc closes", p+1, len(pages))
		}
		return look.Box(title, look.FullHelp(pages[p], iw, ih, m.sh.st), w, h, true, m.sh.st)
	})
}

// helpPages is the number of pages of the full help at the current size.
func (m *Model) helpPages() int {
	w, bh := m.width, bodyHeight(m.height)
	h := bh - headerH
	iw, ih := rect{w, h}.inner()
	return len(look.HelpPages(m.helpGroups(), iw, ih, m.sh.st))
}

// boxed returns pane i's view in its w×h box, re-boxing only when the view, the size or
// the focus changed.
func (m *Model) boxed(i, w, h int, focused bool) string {
	p := m.panes[i]
	content := p.View()
	if len(m.views.boxes) != len(m.panes) {
		m.views.boxes = make([]boxCache, len(m.panes))
	}
	c := &m.views.boxes[i]
	if c.ok && c.epoch == m.sh.epoch && c.w == w && c.h == h && c.focused == focused && c.content == content {
		return c.out
	}
	m.sh.renders++
	*c = boxCache{ok: true, epoch: m.sh.epoch, w: w, h: h, focused: focused, content: content,
		out: look.Box(p.Title(), content, w, h, focused, m.sh.st)}
	return c.out
}

// tabBar lists the panes, with full titles when they fit, else the focused one in full and
// the others short, else all short, else those around the focused one that fit (tabWindow).
func (m *Model) tabBar(w int) string {
	full, mixed, short := make([]string, len(m.panes)), make([]string, len(m.panes)), make([]string, len(m.panes))
	for i, p := range m.panes {
		full[i], mixed[i], short[i] = p.Title(), p.Tab(), p.Tab()
	}
	mixed[m.focus] = full[m.focus]
	for _, titles := range [][]string{full, mixed, short} {
		if tabBarWidth(titles) <= w {
			return tabBar(titles, m.focus, w, m.sh.st)
		}
	}
	return tabWindow(short, m.focus, w, m.sh.st)
}

// tabWindow is the tab bar of the tabs around the focused one that fit w cells, with ‹ or
// › where tabs are left out (tab reaches them).
func tabWindow(titles []string, focus, w int, st look.Styles) string {
	lo, hi := focus, focus+1 // the window [lo, hi)
	fits := func(lo, hi int) bool {
		n := tabBarWidth(titles[lo:hi])
		if lo > 0 {
			n += 2
		}
		if hi < len(titles) {
			n += 2
		}
		return n <= w
	}
	for grown := true; grown; {
		grown = false
		if hi < len(titles) && fits(lo, hi+1) {
			hi, grown = hi+1, true
		}
		if lo > 0 && fits(lo-1, hi) {
			lo, grown = lo-1, true
		}
	}
	bar := tabRow(titles[lo:hi], focus-lo, st)
	if lo > 0 {
		bar = st.Dim.Render("‹ ") + bar
	}
	if hi < len(titles) {
		bar += st.Dim.Render(" ›")
	}
	return look.PadLine(bar, w)
}

// scrubView is the scrubber line, cached on what it shows.
func (m *Model) scrubView(w int) string {
	sh, sc := m.sh, m.scrub
	k := scrubKey{w, sh.step, sh.first, sh.last, sh.any, sh.follow, sh.replay, sh.ended, sc.input, sc.buf, sh.zoomText()}
	return m.views.scrub.get(sh, k, func() string { return sc.View(w) })
}

// rootViews caches the parts of the screen the root draws itself.
type rootViews struct {
	header, tabs, scrub, footer, help, pageBar viewCache
	boxes                                      []boxCache

	gridParts      [5]string // the page bar and the boxes the grid was joined from
	grid           string
	frameParts     [3]string // body, scrubber and footer of the frame
	frameW, frameH int
	frame          string
}

// boxCache is one pane's boxed view and what it was drawn from.
type boxCache struct {
	ok          bool
	epoch, w, h int
	focused     bool
	content     string
	out         string
}

type (
	headerKey  struct{ w, gen int }
	tabsKey    struct{ w, focus int }
	helpKey    struct{ w, h, page int }
	pageBarKey struct{ w, page int }
	footerKey  struct {
		w, focus int
		msg      string
		quit     bool
		paused   bool
	}
	scrubKey struct {
		w, step, first, last              int
		any, follow, replay, ended, input bool
		buf, zoom                         string
	}
)

// footer is the status or error message, if any, then the short help.
func (m *Model) footer(w int) string {
	msg := m.status
	if msg == "" && m.feedErr != "" {
		msg = "feed: " + m.feedErr
	}
	return m.views.footer.get(m.sh, footerKey{w, m.focus, msg, m.quit.open, m.quit.paused}, func() string {
		if msg != "" {
			msg = m.sh.st.Warn.Render(msg) + "  "
		}
		if m.quit.open {
			return look.PadLine(msg+quitHelp(m.help, m.sh.keys, m.quit, w-ansi.StringWidth(msg)), w)
		}
		return look.PadLine(msg+shortHelp(m.help, m.sh.keys, m.panes[m.focus].Help(), w-ansi.StringWidth(msg)), w)
	})
}

// helpGroups lists every key, grouped: global, scrubber, then each pane's own; then the
// legend of the numbers.
func (m *Model) helpGroups() []look.HelpGroup {
	k := m.sh.keys
	// Global, the panes with one key, the scrubber, the other panes, the quit dialog: in
	// this order the columns fill evenly, so that every key shows at 80×24.
	groups := []look.HelpGroup{{Title: "Global", Bindings: k.global()}}
	var more []look.HelpGroup
	for _, p := range m.panes {
		if len(p.Help()) == 1 {
			groups = append(groups, look.HelpGroup{Title: p.Title(), Bindings: p.Help()})
		} else {
			more = append(more, look.HelpGroup{Title: p.Title(), Bindings: p.Help()})
		}
	}
	groups = append(append(groups, look.HelpGroup{Title: "Scrubber", Bindings: append(m.scrub.Help(), k.Enter, k.Erase)}), more...)
	if m.runGoesOn() {
		// Resume and detach is listed though only a paused run's dialog offers it (it says so).
		groups = append(groups, look.HelpGroup{Title: "Quit dialog (q)", Bindings: append(k.quitDialog(), k.ResumeDetach)})
	}
	n := 0
	if e := m.sh.lastEval(); e != nil {
		n = len(e.Eval.BayesEntropy)
	}
	mouse := look.HelpGroup{Title: "Mouse", Text: []string{"wheel: zoom the charts over steps in and out about the cursor",
		"on the scrubber bar, click: go to that step; drag: zoom to the steps dragged over"}}
	return append(groups, Legend(m.sh.meta, n), mouse)
}

// tabBar lists the panes with the focused one marked [like this].
func tabBar(titles []string, focus, w int, st look.Styles) string {
	return look.PadLine(tabRow(titles, focus, st), w)
}

// tabRow is the tabs joined, unpadded.
func tabRow(titles []string, focus int, st look.Styles) string {
	var parts []string
	for i, t := range titles {
		if i == focus {
			parts = append(parts, st.TabActive.Render("["+t+"]"))
		} else {
			parts = append(parts, st.Tab.Render(" "+t+" "))
		}
	}
	return strings.Join(parts, st.Dim.Render("│"))
}

// pageBar names the pages, the shown one marked [like this], and the keys that switch.
func pageBar(cur, w int, st look.Styles) string {
	var parts []string
	for i, pg := range pages {
		label := fmt.Sprintf("%d %s", i+1, pg.name)
		if i == cur {
			parts = append(parts, st.TabActive.Render("["+label+"]"))
		} else {
			parts = append(parts, st.Tab.Render(" "+label+" "))
		}
	}
	return look.PadLine("page "+strings.Join(parts, st.Dim.Render("│"))+st.Dim.Render("  ] [ switch pages · 1–9, 0 panes"), w)
}

// tabBarWidth is the width tabBar needs for titles.
func tabBarWidth(titles []string) int {
	n := len(titles) - 1 // separators
	for _, t := range titles {
		n += ansi.StringWidth(t) + 2
	}
	return n
}
