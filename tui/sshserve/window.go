package sshserve

// MaxWidth and MaxHeight bound the terminal size a viewer's dashboard is drawn at. A
// client may report any size up to 2³²−1 cells a side (pty-req, window-change); the
// dashboard's frame, its panes' caches and the renderer's buffers grow with the size it is
// drawn at, so a larger terminal gets the dashboard at this size in its top-left corner.
// 400×200 is more than any real screen shows legibly.
const (
	MaxWidth  = 400
	MaxHeight = 200
)

// clampWindow bounds a terminal size reported by a client to MaxWidth×MaxHeight (0 and
// below stay 0: unknown).
func clampWindow(w, h int) (int, int) {
	return min(max(w, 0), MaxWidth), min(max(h, 0), MaxHeight)
}
