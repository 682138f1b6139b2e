package models

import (
	"math"
	"testing"
	"windtunnel/models/arch"

	"gorgonia.org/tensor"

	"windtunnel/backends/accel"
	"windtunnel/tunnels"
)

// residentCase is a tunnel and transformer the device executor is checked on.
type residentCase struct {
	name string
	tn   func() (tunnels.Tunnel, error)
	cfg  arch.TransformerConfig
	mode tunnels.TargetMode
}

func residentCases() []residentCase {
	return []residentCase{
		{"bijection tied", func() (tunnels.Tunnel, error) { return tunnels.NewBijection(5) }, arch.TransformerConfig{Layers: 2, Heads: 2, Width: 16}, tunnels.Sampled},
		{"hmm posterior untied", func() (tunnels.Tunnel, error) { return tunnels.NewHMM(3, 4, 6) }, arch.TransformerConfig{Layers: 1, Heads: 4, Width: 8, MLP: 12}, tunnels.Posterior},
		{"recall", func() (tunnels.Tunnel, error) { return tunnels.NewRecallLayout(2, 8, 8, 2, 2, "kv") }, arch.TransformerConfig{Layers: 2, Heads: 1, Width: 8}, tunnels.Sampled},
	}
}

// TestResidentGradients: one step of the device executor on the host device gives the CPU
// path's loss and every parameter's gradient, with a head ablated and a unit gated off.
func TestResidentGradients(t *testing.T) {
	for _, c := range residentCases() {
		t.Run(c.name, func(t *testing.T) {
			tn, err := c.tn()
			if err != nil {
				t.Fatal(err)
			}
			mdl, err := NewTransformer(c.cfg, tn, Options{Dtype: tensor.Float32, Seed: 7, Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			if c.cfg.Heads > 1 {
				if err := mdl.SetHeadMask(0, 1, false); err != nil {
					t.Fatal(err)
				}
			}
			if c.cfg.Layers > 1 {
				if err := mdl.SetUnit(len(mdl.Units())-1, false); err != nil {
					t.Fatal(err)
				}
			}
			b := tunnels.NewBatch(tn, 6)
			b.Fill(tn, 3, 0)
			loss, err := mdl.TrainStep(tn, b, c.mode)
			if err != nil {
				t.Fatal(err)
			}
			var want [][]float32
			for _, p := range mdl.Params() {
				want = append(want, append([]float32(nil), p.Grad.Data().([]float32)...))
			}
			h := accel.NewHost(nil)
			r, err := NewResident(mdl, tn, b.N, h, ResidentOptions{Beta1: 0.9, Beta2: 0.999, Eps: 1e-8})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			got, err := r.Step(b, c.mode)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-loss) > 1e-5 {
				t.Errorf("loss %v, CPU path %v", got, loss)
			}
			flat := make([]float32, r.total)
			if err := h.Read(flat, r.g); err != nil {
				t.Fatal(err)
			}
			sq := 0.0
			for i, p := range mdl.Params() {
				for j, w := range want[i] {
					g := flat[r.offs[i]+j]
					sq += float64(g) * float64(g)
					if math.Abs(float64(g-w)) > 1e-5+1e-4*math.Abs(float64(w)) {
						t.Fatalf("%s[%d]: gradient %v, CPU path %v", p.Name, j, g, w)
					}
				}
			}
			if sq == 0 {
				t.Fatal("every gradient is zero")
			}
			if n, _ := r.Update(0); math.Abs(n-math.Sqrt(sq)) > 1e-5*math.Sqrt(sq) {
				t.Errorf("gradient norm %v, want %v", n, math.Sqrt(sq))
			}
		})
	}
}
