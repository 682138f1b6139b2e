package derived

import (
	"math"
	"testing"
	"time"

	"windtunnel/sessions/runconfig"
	"windtunnel/tunnels"
)

// TestHMMContextFree: on the presets' HMM the context-free level is the uniform guess's
// (log2 S less the posteriors' mean entropy) within 0.005 bits — each sequence draws its own
// matrices, so the states are exchangeable and a symbol alone says nothing of which one
// emitted it —, two independent samples agree within 0.005 bits,
// scored on the sequences it was fitted on its bit error (a) equals its KL (the entropy of a
// conditional mean exceeds the posteriors' by their mean KL from it: an identity), and the
// level is what the quick primitives table's per-position MLP reached (0.4226 ± 0.0047 bits
// (a), 3 seeds: docs/primitives.md) within 0.01. The largest HMM a configuration may ask for
// is estimated on fewer sequences, in bounded time.
func TestHMMContextFree(t *testing.T) {
	c, err := runconfig.Preset(runconfig.PresetQuick, "hmm")
	if err != nil {
		t.Fatal(err)
	}
	tn, err := tunnels.New(c.Task, c.Tunnel)
	if err != nil {
		t.Fatal(err)
	}
	h := tn.(*tunnels.HMM)
	a := ContextFreeLevel(c) // HMMContextFree's bit error (a): the one 20,000-sequence estimate
	// The uniform guess's bit error (a) is log2 S minus the posteriors' mean entropy.
	b := tunnels.NewBatch(h, 2000)
	b.Fill(h, 99, 0)
	meanH := 0.0
	for _, e := range b.EntropyBits {
		meanH += e / float64(len(b.EntropyBits))
	}
	uniform := math.Log2(float64(b.C)) - meanH
	a2, kl, err := hmmContextFree(h, 5000, 7, 8)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(a-uniform) > 0.005 || math.Abs(a2-a) > 0.005 || math.Abs(a2-kl) > 0.005 || math.Abs(a-0.4226) > 0.01 {
		t.Errorf("level %.4f bits (a); another sample %.4f, its KL %.4f: want within 0.005 of the uniform guess's %.4f and of each other, within 0.01 of the MLP's 0.4226", a, a2, kl, uniform)
	}
	same, sameKL, err := hmmContextFree(h, 2000, 5, 5)
	if err != nil || math.Abs(same-sameKL) > 1e-9 {
		t.Errorf("fitted and scored on the same sequences: bit error (a) %.12f, KL %.12f: want equal", same, sameKL)
	}
	t.Logf("presets' HMM: context-free %.4f bits (a); another sample %.4f, its KL %.4f; uniform %.4f", a, a2, kl, uniform)

	if testing.Short() {
		return // the largest HMM's bound below: 2 s of sampling
	}
	big, err := tunnels.NewHMM(tunnels.MaxStates, tunnels.MaxSymbols, tunnels.MaxK)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if a, _, err := HMMContextFree(big); err != nil || math.IsNaN(a) || a < 0 {
		t.Errorf("the largest HMM: %v, %v", a, err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the largest HMM took %v", d)
	}
	t.Logf("the largest HMM in %v", time.Since(start))
}
