package tui

// Default terminal size until the first WindowSizeMsg (none arrives without a TTY).
const (
	defaultWidth  = 80
	defaultHeight = 24
	gridWidth     = 160 // at this size and above a page of four panes shows at once
	gridHeight    = 48
)

// The chrome: every line and cell of the screen that is not a pane's content, counted here
// only. The screen is the body, then the scrubber and the footer. In tabs mode the body is
// the run summary (header), the tab bar and the focused pane's box; in grid mode the page
// bar over four boxes. A box's border takes a line above and below its content and a cell
// on either side.
const (
	scrubH   = 1 // the step scrubber
	footerH  = 1 // the status message and the short help
	headerH  = 2 // the run summary above the tab bar (tabs mode)
	tabBarH  = 1 // the tab bar (tabs mode)
	pageBarH = 1 // the page bar (grid mode)
	borderW  = 2 // a box's left and right edges
	borderH  = 2 // a box's top and bottom edges
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

// gridSlots are the four boxes of a grid page under the page bar, in a body w×h: a left
// column of 2/5 of the width with the run pane (its text and a sparkline) over the rest,
// and a right column split in half.
func gridSlots(w, h int) [4]rect {
	h -= pageBarH
	lw := w * 2 / 5
	runH := min(runLines+4+borderH, h/2) // the text and a 4-line sparkline
	rh := h / 2
	return [4]rect{{lw, runH}, {lw, h - runH}, {w - lw, rh}, {w - lw, h - rh}}
}

// grid reports whether the terminal is large enough to show a page of panes at once.
func (m *Model) grid() bool { return m.width >= gridWidth && m.height >= gridHeight }

// layout gives every pane its inner size for the current terminal size: the size of its
// box in the grid, or the focused pane's box in tabs mode.
func (m *Model) layout() {
	w, bh := m.width, bodyHeight(m.height)
	if m.grid() {
		for _, pg := range pages {
			for slot, r := range gridSlots(w, bh) {
				m.panes[pg.panes[slot]].SetSize(r.inner())
			}
		}
		return
	}
	for _, p := range m.panes {
		p.SetSize(tabRect(w, bh).inner())
	}
}
