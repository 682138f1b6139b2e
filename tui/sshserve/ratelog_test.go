package sshserve

import (
	"log"
	"strings"
	"testing"
	"time"
)

// TestRateLog: of a burst of lines of one kind, the first is logged at once and the rest
// summed up in one line at the end of the interval (the last of them, and how many); a
// line of another kind is not held back; after the interval a new line is logged at once.
func TestRateLog(t *testing.T) {
	const every = 100 * time.Millisecond
	var buf lockedBuffer
	r := newRateLog(log.New(&buf, "", 0), every)
	for i := range 50 {
		r.printf("evict", "evicted %d", i)
	}
	r.printf("key", "refused key")
	if got, want := buf.String(), "evicted 0\nrefused key\n"; got != want {
		t.Fatalf("logged at once %q, want %q", got, want)
	}
	time.Sleep(2 * every)
	if got, want := buf.String(), "evicted 0\nrefused key\nevicted 49 (49 more like it in the last 100ms)\n"; got != want {
		t.Fatalf("after the interval the log is %q, want %q", got, want)
	}
	time.Sleep(2 * every)
	r.printf("evict", "evicted again")
	r.printf("evict", "evicted once more")
	r.close()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if got := lines[len(lines)-2:]; got[0] != "evicted again" || got[1] != "evicted once more (1 more like it in the last 100ms)" {
		t.Errorf("a line after a quiet interval, then one held back and flushed by close: got %q", got)
	}
}
