package runconfig

import (
	"fmt"
	"slices"
	"windtunnel/models/arch"

	"windtunnel/tunnels"
)

// PaperEvalK are the lengths the hmm presets evaluate at: the training length and the
// paper's two longer ones.
func PaperEvalK() []int { return []int{20, 30, 50} }

// EvalLengths is the sorted set of observation counts K an hmm run is scored at: EvalK with
// the training K added (it is always scored); nil when EvalK is empty or the task has no
// length to vary.
func (c Config) EvalLengths() []int {
	if c.Task != "hmm" || len(c.EvalK) == 0 {
		return nil
	}
	ks := append([]int{c.Tunnel.WithDefaults().K}, c.EvalK...)
	slices.Sort(ks)
	return slices.Compact(ks)
}

// validateEvalK checks EvalK: only the hmm task has a length to vary, and each K must be a
// length the tunnel can draw.
func (c Config) validateEvalK() error {
	if len(c.EvalK) == 0 {
		return nil
	}
	if c.Task != "hmm" {
		return &arch.FieldError{Field: "EvalK", Value: c.EvalK, Reason: "want none: only the hmm task has a length K to vary"}
	}
	for _, k := range c.EvalK {
		if k < tunnels.MinK || k > tunnels.MaxK {
			return &arch.FieldError{Field: "EvalK", Value: k, Reason: fmt.Sprintf("want each K in %d..%d", tunnels.MinK, tunnels.MaxK)}
		}
	}
	return nil
}
