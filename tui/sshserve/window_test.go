package sshserve

import (
	"context"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"

	"windtunnel/tui"
)

func TestClampWindow(t *testing.T) {
	for _, c := range []struct{ w, h, wantW, wantH int }{
		{80, 24, 80, 24},
		{MaxWidth, MaxHeight, MaxWidth, MaxHeight},
		{MaxWidth + 1, MaxHeight + 1, MaxWidth, MaxHeight},
		{10000, 10000, MaxWidth, MaxHeight},
		{1<<32 - 1, 1<<32 - 1, MaxWidth, MaxHeight},
		{0, 0, 0, 0},
		{-5, 30, 0, 30},
	} {
		if w, h := clampWindow(c.w, c.h); w != c.wantW || h != c.wantH {
			t.Errorf("clampWindow(%d, %d) = %d, %d; want %d, %d", c.w, c.h, w, h, c.wantW, c.wantH)
		}
	}
}

// heapInUse is the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// waitForAfter waits until the text received after the first from bytes, escape sequences
// stripped, contains want, and returns how much had been received then.
func (s *screen) waitForAfter(from int, want string) int {
	s.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for time.Now().Before(deadline) {
		raw := s.raw()
		if strings.Contains(ansi.Strip(raw[from:]), want) {
			return len(raw)
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.t.Fatalf("the screen never showed %q after byte %d", want, from)
	return 0
}

// cursorMoves are the escape sequences that move the cursor to another line (the
// renderer skips unchanged lines with them).
var cursorMoves = regexp.MustCompile(`\x1b\[[0-9;]*[ABEFHf]`)

// lineWidths is the widest line drawn in raw and how many lines were exactly w wide.
func lineWidths(raw string, w int) (widest, atW int) {
	for _, l := range strings.Split(ansi.Strip(cursorMoves.ReplaceAllString(raw, "\n")), "\n") {
		n := ansi.StringWidth(strings.TrimRight(l, "\r"))
		widest = max(widest, n)
		if n == w {
			atW++
		}
	}
	return widest, atW
}

// TestServeHugeWindow: a read-only viewer reporting a 10000×10000 terminal, at the pty
// request and again in a window change, gets the dashboard drawn at MaxWidth×MaxHeight
// (no line wider); the server's heap stays within maxHeap of what it was, and it stays
// responsive to that viewer and to another one.
func TestServeHugeWindow(t *testing.T) {
	t.Parallel()
	const huge = 10000
	const maxHeap = 200 << 20
	src := newFakeSource("bijection")
	addr, host, k := startServer(t, src, nil)
	before := heapInUse()

	c, err := dial(t, addr, host, gossh.PublicKeys(k.viewer))
	if err != nil {
		t.Fatal(err)
	}
	s := openScreen(t, c, "xterm-256color", huge, huge)
	n := s.waitForAfter(0, "page [1 Training]") // the wide layout
	if err := s.sess.WindowChange(30, 100); err != nil {
		t.Fatal(err)
	}
	n = s.waitForAfter(n, "┗"+strings.Repeat("━", 98)+"┛")
	if err := s.sess.WindowChange(huge, huge); err != nil {
		t.Fatal(err)
	}
	n = s.waitForAfter(n, "page [1 Training]")
	s.press("?") // still answers keys
	s.waitForAfter(n, "Keys — ?, h or esc closes")
	if widest, atMax := lineWidths(s.raw(), MaxWidth); widest > MaxWidth || atMax == 0 {
		t.Errorf("widest line drawn %d cells, %d lines of MaxWidth = %d; want the dashboard drawn at MaxWidth", widest, atMax, MaxWidth)
	}
	after := heapInUse()
	t.Logf("heap %.1f MB before, %.1f MB with the viewer at %d×%d (%.1f MB more)",
		float64(before)/(1<<20), float64(after)/(1<<20), huge, huge, (float64(after)-float64(before))/(1<<20))
	if after > before+maxHeap {
		t.Errorf("heap grew by %d MB, want under %d MB", (after-before)>>20, maxHeap>>20)
	}

	// Another viewer gets in and sees its dashboard.
	c2, err := dial(t, addr, host, gossh.PublicKeys(k.operator))
	if err != nil {
		t.Fatal(err)
	}
	s2 := openScreen(t, c2, "xterm", 100, 30)
	s2.waitFor("LIVE training · bijection")
}

// TestPickerClampsWindow: the model a session runs (the picker, and through it the
// dashboard) sees a huge reported size as MaxWidth×MaxHeight.
func TestPickerClampsWindow(t *testing.T) {
	t.Parallel()
	p := newPicker(context.Background(), newFakeSource("bijection"), &viewer{}, tui.Options{Width: 10000, Height: 10000})
	if p.opts.Width != MaxWidth || p.opts.Height != MaxHeight {
		t.Errorf("picker drawn at %d×%d from a 10000×10000 pty, want %d×%d", p.opts.Width, p.opts.Height, MaxWidth, MaxHeight)
	}
	m, _ := p.Update(tea.WindowSizeMsg{Width: 10000, Height: 1 << 31})
	if q := m.(picker); q.opts.Width != MaxWidth || q.opts.Height != MaxHeight {
		t.Errorf("picker at %d×%d after a 10000×2³¹ window change, want %d×%d", q.opts.Width, q.opts.Height, MaxWidth, MaxHeight)
	}
	if lines := strings.Split(m.View(), "\n"); len(lines) > MaxHeight {
		t.Errorf("picker view %d lines, want at most %d", len(lines), MaxHeight)
	}
}
