package tui

import "windtunnel/tui/look"

// Default terminal size until the first WindowSizeMsg (none arrives without a TTY), and the
// sizes at which the layout changes.
const (
	DefaultWidth  = 80
	DefaultHeight = 24
	minWidth      = 80 // below minWidth×minHeight the screen says it is too small
	minHeight     = 24
	splitWidth    = 120 // from here a page's three panes show under the run summary
	splitHeight   = 36
	gridWidth     = 160 // from here a page of four panes shows at once, the run pane too
	gridHeight    = 48
)

// layoutMode is how the screen is laid out at a terminal size.
type layoutMode int

const (
	modeSmall layoutMode = iota // below minWidth×minHeight: a notice, no panes
	modeTabs                    // the run summary, a tab bar and the focused pane
	modeSplit                   // the run summary, the page bar and the page's other three panes
	modeGrid                    // the run summary, the page bar and the page's four panes
)

// modeFor is the layout of a w×h terminal.
func modeFor(w, h int) layoutMode {
	switch {
	case w < minWidth || h < minHeight:
		return modeSmall
	case w >= gridWidth && h >= gridHeight:
		return modeGrid
	case w >= splitWidth && h >= splitHeight:
		return modeSplit
	}
	return modeTabs
}

// The chrome: every line and cell of the screen that is not a pane's content, counted here
// only. The screen is the body, then the scrubber and the footer. In tabs mode the body is
// the run summary (header), the tab bar and the focused pane's box; in split mode the
// header and the page bar over three boxes; in grid mode the header and the page bar over
// four boxes. A box's border takes a line above and below its content and a cell on either
// side.
const (
	scrubH   = 1            // the step scrubber
	footerH  = 1            // the status message and the short help
	headerH  = 2            // the run summary above the tab bar (tabs mode)
	tabBarH  = 1            // the tab bar (tabs mode)
	pageBarH = 1            // the page bar (grid mode)
	borderW  = look.BorderW // a box's left and right edges
	borderH  = look.BorderH // a box's top and bottom edges
)

// rect is the outer size of a box.
type rect struct{ w, h int }

// inner is the content size of a box of outer size r.
func (r rect) inner() (int, int) { return max(r.w-borderW, 0), max(r.h-borderH, 0) }

// bodyHeight is the height of the body on a screen h lines high.
func bodyHeight(h int) int { return h - scrubH - footerH }

// tabRect is the focused pane's box in tabs mode, in a body w×h.
func tabRect(w, h int) rect { return rect{w, h - headerH - tabBarH} }

// minBoxH is the lowest box drawn in tabs mode: one line of content.
const minBoxH = borderH + 1

// page is one screen of the grid layout: four panes, by index into the root's panes, in the
// slots top-left, bottom-left, top-right, bottom-right. The run pane is on every page.
type page struct {
	name  string
	panes [4]int
	first int // the pane focused when the page is opened with ] or [
}

// pages are the grid's screens; in tabs mode they are the groups ] and [ jump between.
var pages = []page{
	{name: "Training", panes: [4]int{0, 3, 1, 2}, first: 1},
	{name: "Geometry", panes: [4]int{0, 4, 5, 6}, first: 4},
	{name: "Optimiser", panes: [4]int{0, 9, 7, 8}, first: 7},
}

// pageOf returns the page holding pane i, or -1 when every page has it (the run pane).
func pageOf(i int) int {
	found := -1
	for p, pg := range pages {
		for _, j := range pg.panes {
			if j == i {
				if found >= 0 {
					return -1
				}
				found = p
				break
			}
		}
	}
	return found
}

// gridSlots are the four boxes of a grid page under the header and the page bar, in a body
// w×h: a left column of 2/5 of the width with the run pane (its text and a sparkline) over
// the rest, and a right column split in half.
func gridSlots(w, h int) [4]rect {
	h -= headerH + pageBarH
	lw := w * 2 / 5
	runH := min(runLines+4+borderH, h/2) // the text and a 4-line sparkline
	rh := h / 2
	return [4]rect{{lw, runH}, {lw, h - runH}, {w - lw, rh}, {w - lw, h - rh}}
}

// splitSlots are the three boxes of a split page under the header and the page bar, in a
// body w×h: a left column of 2/5 of the width with the page's bottom-left pane of the grid
// (or the run pane while it has focus), and a right column split in half.
func splitSlots(w, h int) [3]rect {
	h -= headerH + pageBarH
	lw := w * 2 / 5
	rh := h / 2
	return [3]rect{{lw, h}, {w - lw, rh}, {w - lw, h - rh}}
}

// splitPanes are the panes of page pg in split mode's slots: the run pane takes the left
// slot while it has focus.
func splitPanes(pg page, focus int) [3]int {
	left := pg.panes[1]
	if focus == pg.panes[0] {
		left = focus
	}
	return [3]int{left, pg.panes[2], pg.panes[3]}
}

// mode is the layout of the current terminal size.
func (m *Model) mode() layoutMode { return modeFor(m.width, m.height) }

// layout gives every pane its inner size for the current terminal size: the size of its
// box in the grid or split page, or the focused pane's box in tabs mode.
func (m *Model) layout() {
	w, bh := m.width, bodyHeight(m.height)
	switch m.mode() {
	case modeGrid:
		for _, pg := range pages {
			for slot, r := range gridSlots(w, bh) {
				m.panes[pg.panes[slot]].SetSize(r.inner())
			}
		}
	case modeSplit:
		rs := splitSlots(w, bh)
		for _, pg := range pages {
			m.panes[pg.panes[0]].SetSize(rs[0].inner())
			for slot, i := range pg.panes[1:] {
				m.panes[i].SetSize(rs[slot].inner())
			}
		}
	default:
		for _, p := range m.panes {
			p.SetSize(tabRect(w, bh).inner())
		}
	}
}
