package cpuclock

import (
	"runtime"
	"testing"
	"time"
)

// spin keeps a core busy for about d of wall time.
func spin(d time.Duration) (n int) {
	for t0 := time.Now(); time.Since(t0) < d; n++ {
	}
	return n
}

// TestClocks: a sleep costs next to no CPU time on the thread's clock (on Linux); a busy
// loop of 200 ms at least a few tens of milliseconds on both clocks (less than its wall time
// only where the machine is loaded).
func TestClocks(t *testing.T) {
	p0 := Process()
	if got := Thread(func() { time.Sleep(100 * time.Millisecond) }); runtime.GOOS == "linux" && got > 30*time.Millisecond {
		t.Errorf("a 100 ms sleep cost %v of the thread's CPU", got)
	}
	busy := Thread(func() { spin(200 * time.Millisecond) })
	p1 := Process()
	if busy < 20*time.Millisecond || busy > 2*time.Second {
		t.Errorf("a 200 ms busy loop cost %v of the thread's CPU", busy)
	}
	if p1 != 0 && p1-p0 < busy/2 { // 0: not read on this system
		t.Errorf("the process's clock moved %v over a thread's %v", p1-p0, busy)
	}
}
