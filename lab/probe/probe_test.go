package probe

import (
	"strings"
	"testing"

	"windtunnel/diagnostics"
	"windtunnel/sessions"
)

// TestMessages: a session whose first checkpoint is later than the step asked names it, and
// the ablated units (the costliest too) are named, never by -1.
func TestMessages(t *testing.T) {
	if err := noCheckpointError("s.wtlab", 10, []int{50, 100}, 50); !strings.Contains(err.Error(), "the first is at step 50 (checkpoints at 50 100)") {
		t.Errorf("before the first checkpoint: %v", err)
	}
	for _, c := range []struct {
		e    diagnostics.Effect
		want string
	}{
		{diagnostics.Effect{Unit: "head", Layer: 0, Head: 3, DeltaBits: 0.1}, "L0 H3"},
		{diagnostics.Effect{Unit: "attn", Layer: 1, Head: -1, DeltaBits: 0.1}, "L1 attention"},
		{diagnostics.Effect{Unit: "mlp", Layer: 1, Head: -1, DeltaBits: 0.1}, "L1 MLP"},
		{diagnostics.Effect{Unit: "layer", Layer: 2, Head: -1, DeltaBits: 0.1}, "L2 layer"},
	} {
		if got := unitName(c.e); got != c.want {
			t.Errorf("unitName(%+v) = %q, want %q", c.e, got, c.want)
		}
		rep := Report{Geometry: &sessions.Snapshot{Ablation: []diagnostics.Effect{c.e}, Costliest: &c.e}}
		if txt := rep.Text(); !strings.Contains(txt, "costliest: "+c.want+", ") || strings.Contains(txt, "-1") {
			t.Errorf("costliest of %+v:\n%s", c.e, txt)
		}
	}
	// Every Δ < 0: no unit is "costliest" (the least negative was called that).
	e := diagnostics.Effect{Unit: "layer", Layer: 0, Head: -1, DeltaBits: -0.02}
	rep := Report{Geometry: &sessions.Snapshot{Ablation: []diagnostics.Effect{e, {Unit: "layer", Layer: 1, Head: -1, DeltaBits: -0.3}}, Costliest: &e}}
	if txt := rep.Text(); !strings.Contains(txt, "costliest: none (every Δ ≤ 0") {
		t.Errorf("every Δ < 0:\n%s", txt)
	}
}
