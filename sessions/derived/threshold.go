package derived

import (
	"math"
	"windtunnel/sessions/runconfig"

	"windtunnel/backends/untrusted"
	"windtunnel/sessions"
)

// PassBits is the pass line of bit error (a), in bits: Paper I's criterion for the
// bijection and HMM tunnels (belief accumulation and belief transport), which compare's
// verdicts, the report, the figures and the dashboard's reference line all apply.
const PassBits = 0.15

// ContextFreeBits is the bit error, (a) and (b) alike, of the context-free predictor on a
// bijection of v symbols: a model that sees only the position (the per-position MLP) can do
// no better than the uniform guess over all v values, log2 v bits, where Bayes is uniform
// over the v−j values not yet revealed, log2(v−j) bits, at each of the v−1 scored positions
// j. That is mean_j log2(v/(v−j)): 1.107 bits at v = 20. NaN for v < 2.
func ContextFreeBits(v int) float64 {
	if v < 2 {
		return math.NaN()
	}
	s := 0.0
	for j := range v - 1 {
		s += math.Log2(float64(v) / float64(v-j))
	}
	return s / float64(v-1)
}

// ContextFree is the context-free level of a run's bit error where it is known: for a
// bijection, with v from its configuration or, when that is 0, from the length of an
// evaluation's per-position Bayes curve (v−1 scored positions, bayesLen). NaN for the other
// tasks, whose context-free level the record does not give.
func ContextFree(task string, v, bayesLen int) float64 {
	if task != "bijection" {
		return math.NaN()
	}
	if v == 0 && bayesLen > 0 {
		v = bayesLen + 1
	}
	return ContextFreeBits(v)
}

// ContextFreeOf is ContextFree for a recorded run: its task, and V from its stored
// configuration (tunnel.v, or tunnel.V as older sessions spell it) or, without one, from
// bayesLen.
func ContextFreeOf(m sessions.Meta, bayesLen int) float64 {
	var c runconfig.Config
	if len(m.Config) > 0 && untrusted.Unmarshal(m.Config, &c) != nil {
		c.Tunnel.V = 0 // unreadable: V from the Bayes curve
	}
	return ContextFree(m.Task, c.Tunnel.V, bayesLen)
}
