package diagnostics

import "math"

// Ablation unit names used in Effect.Unit.
const (
	// UnitHead is one attention head zeroed.
	UnitHead = "head"
	// UnitAttn is a whole layer's attention zeroed.
	UnitAttn = "attn"
	// UnitMLP is a layer's MLP zeroed.
	UnitMLP = "mlp"
	// UnitLayer is a whole layer (attention and MLP) zeroed.
	UnitLayer = "layer"
)

// Effect is the change in bit error and KL on the probe set when one unit of the network is ablated.
type Effect struct {
	// Unit is what was ablated: UnitHead, UnitAttn, UnitMLP or UnitLayer.
	Unit string `json:"unit"`
	// Layer is the ablated unit's layer.
	Layer int `json:"layer"`
	// Head is the ablated head, or −1 when Unit is not UnitHead.
	Head int `json:"head"`
	// DeltaBits is the ablated minus the base bit error (a), per-position, in bits.
	DeltaBits float64 `json:"delta_bits"`
	// DeltaKL is the ablated minus the base mean KL(p*‖q), in bits.
	DeltaKL float64 `json:"delta_kl"`
}

// EffectOf returns the Effect of ablating a unit from the base and ablated Scores (Delta = ablated − base); Head is forced to −1 unless unit is UnitHead.
func EffectOf(unit string, layer, head int, base, ablated Scores) Effect {
	if unit != UnitHead {
		head = -1
	}
	return Effect{
		Unit:      unit,
		Layer:     layer,
		Head:      head,
		DeltaBits: ablated.BitErrorPosition - base.BitErrorPosition,
		DeltaKL:   ablated.KLBits - base.KLBits,
	}
}

// HeadTable returns a layers×heads table, [layer][head], of DeltaBits for the head effects, NaN where absent.
//
// Effects that are not UnitHead or fall outside the table are ignored; of
// duplicates the last wins.
func HeadTable(effects []Effect, layers, heads int) [][]float64 {
	t := grid(max(layers, 0), max(heads, 0))
	for _, row := range t {
		for h := range row {
			row[h] = math.NaN()
		}
	}
	for _, e := range effects {
		if e.Unit == UnitHead && e.Layer >= 0 && e.Layer < layers && e.Head >= 0 && e.Head < heads {
			t[e.Layer][e.Head] = e.DeltaBits
		}
	}
	return t
}

// Costly is e when zeroing its unit costs bits (DeltaBits > 0), else nil: the recorded
// worst effect (Worst) is "the costliest" only then — when every Δ ≤ 0, zeroing any unit
// helps or is free, and the least negative one is no cost. Every reader that names the
// costliest unit asks this.
func Costly(e *Effect) *Effect {
	if e == nil || !(e.DeltaBits > 0) {
		return nil
	}
	return e
}

// Worst returns the effect with the largest DeltaBits (the first on ties, NaN skipped) and whether there was one.
func Worst(effects []Effect) (Effect, bool) {
	var w Effect
	found := false
	for _, e := range effects {
		if e.DeltaBits != e.DeltaBits {
			continue
		}
		if !found || e.DeltaBits > w.DeltaBits {
			w, found = e, true
		}
	}
	return w, found
}
