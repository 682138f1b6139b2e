package models

import (
	"math"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"windtunnel/models/arch"
	"windtunnel/tunnels"
)

// TestInitTorch checks PyTorch's default initialisation parameter by parameter: embeddings
// N(0, 1), weight matrices U(±1/√fan_in) (fan_in = rows in the in×out layout), biases
// U(±1/√fan_in of their weight), gains 1; and that the normal initialisation keeps its draws.
func TestInitTorch(t *testing.T) {
	bij, err := tunnels.NewBijection(20)
	if err != nil {
		t.Fatal(err)
	}
	hmm, err := tunnels.New("hmm", tunnels.Config{K: 20})
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		kind  string  // "normal": N(0, sd²); "uniform": U(±bound); "const": every entry fill
		scale float64 // sd, bound or fill
	}
	cases := []struct {
		name  string
		spec  arch.Spec
		tun   tunnels.Tunnel
		rules func(name string, rows, cols int) want
	}{
		{"transformer", arch.Spec{Kind: arch.KindTransformer, Transformer: arch.TransformerConfig{Layers: 2, Heads: 4, Width: 64}}, bij,
			func(name string, rows, cols int) want {
				switch {
				case name == "tok" || name == "pos":
					return want{"normal", 1}
				case strings.HasSuffix(name, "norm1") || strings.HasSuffix(name, "norm2") || name == "norm":
					return want{"const", 1}
				case strings.HasSuffix(name, "b1"):
					return want{"uniform", 1 / math.Sqrt(64)}
				case strings.HasSuffix(name, "b2"):
					return want{"uniform", 1 / math.Sqrt(256)}
				}
				return want{"uniform", 1 / math.Sqrt(float64(rows))}
			}},
		{"transformer-untied-head", arch.Spec{Kind: arch.KindTransformer, Transformer: arch.TransformerConfig{Layers: 1, Heads: 2, Width: 32}}, hmm,
			func(name string, rows, cols int) want {
				switch {
				case name == "tok" || name == "pos":
					return want{"normal", 1}
				case strings.Contains(name, "norm"):
					return want{"const", 1}
				case strings.HasSuffix(name, "b1"):
					return want{"uniform", 1 / math.Sqrt(32)}
				case strings.HasSuffix(name, "b2"):
					return want{"uniform", 1 / math.Sqrt(128)}
				}
				return want{"uniform", 1 / math.Sqrt(float64(rows))}
			}},
		{"mlp", arch.Spec{Kind: arch.KindMLP, MLP: arch.MLPConfig{Blocks: 2, Width: 48}}, bij,
			func(name string, rows, cols int) want {
				switch {
				case name == "tok" || name == "pos":
					return want{"normal", 1}
				case strings.HasSuffix(name, "ln.g") || name == "norm":
					return want{"const", 1}
				case strings.HasSuffix(name, "ln.b"):
					return want{"const", 0}
				case strings.HasSuffix(name, "b1"):
					return want{"uniform", 1 / math.Sqrt(48)}
				case strings.HasSuffix(name, "b2"):
					return want{"uniform", 1 / math.Sqrt(192)}
				}
				return want{"uniform", 1 / math.Sqrt(float64(rows))}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := New(c.spec, c.tun, Options{Dtype: tensor.Float64, Seed: 3, Init: arch.InitTorch, Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range m.Params() {
				sh := p.Value.Shape()
				rows, cols := sh[0], sh[1]
				w := c.rules(p.Name, rows, cols)
				x := p.Value.Data().([]float64)
				n := float64(len(x))
				var sum, sq, mx float64
				for _, v := range x {
					sum += v
					sq += v * v
					mx = max(mx, math.Abs(v))
				}
				mean, sd := sum/n, math.Sqrt(sq/n-(sum/n)*(sum/n))
				switch w.kind {
				case "const":
					for _, v := range x {
						if v != w.scale {
							t.Fatalf("%s: entry %g, want every entry %g", p.Name, v, w.scale)
						}
					}
				case "normal":
					// The sample sd of n draws is within 4·sd/√(2n) of sd (and the mean within 4·sd/√n).
					if math.Abs(sd-w.scale) > 4*w.scale/math.Sqrt(2*n) || math.Abs(mean) > 4*w.scale/math.Sqrt(n) {
						t.Errorf("%s: mean %.4f sd %.4f over %d entries, want N(0, %g²)", p.Name, mean, sd, len(x), w.scale)
					}
				case "uniform":
					// U(±b): every |x| ≤ b, the largest near b, sd b/√3 (within 4 standard errors).
					wantSD := w.scale / math.Sqrt(3)
					if mx > w.scale || (n >= 64 && mx < 0.9*w.scale) || math.Abs(sd-wantSD) > 4*wantSD*0.75/math.Sqrt(n) {
						t.Errorf("%s (%d×%d): max |x| %.4f sd %.4f, want U(±%.4f) (sd %.4f)", p.Name, rows, cols, mx, sd, w.scale, wantSD)
					}
				}
			}
		})
	}
	// The normal initialisation is the one runs have always used: explicit or left out, the same draws.
	spec := cases[0].spec
	a, err := New(spec, bij, Options{Dtype: tensor.Float64, Seed: 3, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(spec, bij, Options{Dtype: tensor.Float64, Seed: 3, Workers: 1, Init: arch.InitNormal})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range a.Params() {
		x, y := p.Value.Data().([]float64), b.Params()[i].Value.Data().([]float64)
		for j := range x {
			if x[j] != y[j] {
				t.Fatalf("%s[%d]: %g with Init \"\", %g with normal", p.Name, j, x[j], y[j])
			}
		}
	}
	if _, err := New(arch.Spec{Kind: arch.KindLSTM}, bij, Options{Init: arch.InitTorch}); err == nil {
		t.Error("LSTM with init torch: no error")
	}
	if _, err := New(spec, bij, Options{Init: "xavier"}); err == nil {
		t.Error("init xavier: no error")
	}
}
