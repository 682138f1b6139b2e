package lab

import (
	"testing"

	"windtunnel/models/arch"
)

// TestCPUDeviceName: the CPU device is named by its worker count in words a reader would
// write, "1 CPU thread" (not "1 CPU threads", issue 44 item 16), "2 CPU threads".
func TestCPUDeviceName(t *testing.T) {
	for _, c := range []struct {
		workers int
		want    string
	}{{1, "1 CPU thread"}, {2, "2 CPU threads"}} {
		cfg := tiny(arch.KindTransformer)
		cfg.Workers = c.workers
		tr, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := tr.Device().Name; got != c.want {
			t.Errorf("--workers %d: device %q, want %q", c.workers, got, c.want)
		}
		tr.Close()
	}
}
