package runconfig

import (
	"testing"

	"windtunnel/tunnels"
)

// TestPresets checks that every preset builds a valid configuration for every task, and
// the mid preset's promise: a head dimension of at least 32.
func TestPresets(t *testing.T) {
	for _, name := range PresetNames() {
		for _, task := range tunnels.Names() {
			c, err := Preset(name, task)
			if err != nil {
				t.Fatalf("Preset(%s, %s): %v", name, task, err)
			}
			if err := c.Validate(); err != nil {
				t.Errorf("Preset(%s, %s) does not validate: %v", name, task, err)
			}
			if hd := c.Transformer.Width / c.Transformer.Heads; name == PresetMid && hd < 32 {
				t.Errorf("mid %s: head dimension %d, want ≥ 32", task, hd)
			}
		}
	}
	if _, err := Preset("huge", "bijection"); err == nil {
		t.Error("an unknown preset was accepted")
	}
}
