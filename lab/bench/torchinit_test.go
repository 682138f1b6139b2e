package bench

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"windtunnel/models/arch"
)

// TestTorchReferenceInit checks that the PyTorch reference's --init draws what arch.InitNormal
// and arch.InitTorch say (docs/paper1.md's GELU measurement trains it with --init torch): for
// every parameter of a d=64, MLP 256 model, its standard deviation within 4 standard errors
// of the distribution's, no magnitude past a uniform's bound, biases 0 and gains 1 where
// they are constant.
func TestTorchReferenceInit(t *testing.T) {
	t.Parallel()
	py, script := torchForTest(t)
	const d, mlp = 64, 256
	embed, w, down := 1.0, 1/math.Sqrt(d), 1/math.Sqrt(mlp)
	// want returns the distribution of a parameter: a constant (std 0), N(0, s²) or U(±b).
	type dist struct {
		uniform bool
		scale   float64 // the normal's standard deviation, the uniform's bound, a constant's value
		konst   bool
	}
	want := map[string]func(name string) dist{
		arch.InitNormal: func(name string) dist {
			switch {
			case strings.HasSuffix(name, "gain"):
				return dist{konst: true, scale: 1}
			case strings.HasSuffix(name, "bias"):
				return dist{konst: true, scale: 0}
			}
			return dist{scale: 0.02}
		},
		arch.InitTorch: func(name string) dist {
			switch {
			case strings.HasSuffix(name, "gain"):
				return dist{konst: true, scale: 1}
			case name == "tok" || name == "pos":
				return dist{scale: embed}
			case strings.HasSuffix(name, "down") || strings.HasSuffix(name, "down_bias"):
				return dist{uniform: true, scale: down}
			}
			return dist{uniform: true, scale: w}
		},
	}
	// Both initialisations from one run of the script (each run imports torch).
	inits := []string{arch.InitNormal, arch.InitTorch}
	var each []map[string]any
	for _, init := range inits {
		each = append(each, map[string]any{"init": init, "d": d, "layers": 2, "heads": 4, "mlp": mlp})
	}
	lines := countParams(t, py, script, each)
	for i, init := range inits {
		of := want[init]
		t.Run(init, func(t *testing.T) {
			out := lines[i]
			var got struct {
				Stats map[string][3]float64 `json:"init_stats"`
			}
			if err := json.Unmarshal(out, &got); err != nil || len(got.Stats) == 0 {
				t.Fatalf("output %q: %v", out, err)
			}
			for name, s := range got.Stats {
				std, maxAbs, n := s[0], s[1], s[2]
				dd := of(name)
				switch {
				case dd.konst:
					if std != 0 || maxAbs != math.Abs(dd.scale) {
						t.Errorf("%s: std %g, max |x| %g; want the constant %g", name, std, maxAbs, dd.scale)
					}
					continue
				case dd.uniform && maxAbs > dd.scale:
					t.Errorf("%s: max |x| %g past U(±%g)'s bound", name, maxAbs, dd.scale)
				}
				sd := dd.scale
				if dd.uniform {
					sd /= math.Sqrt(3)
				}
				// The standard error of a sample standard deviation is about σ/√(2n).
				if tol := 4 * sd / math.Sqrt(2*n); math.Abs(std-sd) > tol {
					t.Errorf("%s (%g values): std %g, want %g ± %g", name, n, std, sd, tol)
				}
			}
		})
	}
}
