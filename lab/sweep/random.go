package sweep

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// Random makes a grid a random search, as W&B's `method: random` and Hydra's Optuna sweeper
// with its RandomSampler: Count configurations are drawn, each flag's value from its axis
// (Axis.Dist, or one of its values), by a generator seeded with Seed, so the same file draws
// the same points on every machine, and a larger Count draws the same first ones.
type Random struct {
	Count int    `json:"count"`
	Seed  uint64 `json:"seed"`
}

// Distribution is what a random search draws a flag's value from, with W&B's names: uniform
// (Min..Max), int_uniform (the integers Min..Max), log_uniform_values (log-uniform between
// the values Min and Max), log_uniform (e^uniform(Min, Max)), normal (Mu, Sigma), log_normal
// (e^normal(Mu, Sigma)), and q_uniform, q_log_uniform_values, q_normal, q_log_normal (the
// same rounded to a multiple of Q, 1 if not given).
type Distribution struct {
	Kind  string  `json:"kind"`
	Min   float64 `json:"min,omitempty"`
	Max   float64 `json:"max,omitempty"`
	Mu    float64 `json:"mu,omitempty"`
	Sigma float64 `json:"sigma,omitempty"`
	Q     float64 `json:"q,omitempty"`
}

// distKinds are the distributions a random search draws from, with the keys each needs.
var distKinds = map[string][]string{
	"uniform": {"min", "max"}, "int_uniform": {"min", "max"}, "log_uniform_values": {"min", "max"},
	"log_uniform": {"min", "max"}, "normal": {"mu", "sigma"}, "log_normal": {"mu", "sigma"},
	"q_uniform": {"min", "max"}, "q_log_uniform_values": {"min", "max"}, "q_normal": {"mu", "sigma"}, "q_log_normal": {"mu", "sigma"},
}

// DistKinds lists the distributions, sorted.
func DistKinds() []string {
	var ks []string
	for k := range distKinds {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// check rejects a distribution with bounds it cannot draw from.
func (d Distribution) check() error {
	need, ok := distKinds[d.Kind]
	switch {
	case !ok:
		return fmt.Errorf("distribution %q: want one of %s (or values: [...])", d.Kind, strings.Join(DistKinds(), ", "))
	case slices.Contains(need, "min") && !(d.Min < d.Max):
		return fmt.Errorf("%s: want min < max, got %g and %g", d.Kind, d.Min, d.Max)
	case slices.Contains(need, "sigma") && !(d.Sigma > 0):
		return fmt.Errorf("%s: want sigma > 0, got %g", d.Kind, d.Sigma)
	case d.Q < 0:
		return fmt.Errorf("%s: want q > 0, got %g", d.Kind, d.Q)
	case strings.HasSuffix(d.Kind, "log_uniform_values") && d.Min <= 0:
		return fmt.Errorf("%s: want min > 0, got %g", d.Kind, d.Min)
	case d.Kind == "int_uniform" && (d.Min != math.Trunc(d.Min) || d.Max != math.Trunc(d.Max)):
		return fmt.Errorf("int_uniform: want whole numbers, got %g and %g", d.Min, d.Max)
	}
	for _, x := range []float64{d.Min, d.Max, d.Mu, d.Sigma, d.Q} {
		if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > 1e300 {
			return fmt.Errorf("%s: %g is not a number it can draw with", d.Kind, x)
		}
	}
	return nil
}

// String is the distribution as a sweep's description shows it: "log_uniform_values(0.0001, 0.01)".
func (d Distribution) String() string {
	args := []float64{d.Min, d.Max}
	if slices.Contains(distKinds[d.Kind], "sigma") {
		args = []float64{d.Mu, d.Sigma}
	}
	s := fmt.Sprintf("%s(%g, %g", d.Kind, args[0], args[1])
	if d.Q > 0 {
		s += fmt.Sprintf(", q=%g", d.Q)
	}
	return s + ")"
}

// source draws numbers from a PCG generator by rules of its own (not math/rand's helpers), so
// that a seed draws the same values whatever Go's version.
type source struct{ g *rand.PCG }

func newSource(seed uint64) *source { return &source{rand.NewPCG(seed, 0x5eed_5eed)} }

// float is uniform in [0, 1).
func (s *source) float() float64 { return float64(s.g.Uint64()>>11) / (1 << 53) }

// intn is uniform in 0..n-1 (rejection sampling: no bias).
func (s *source) intn(n int) int {
	limit := math.MaxUint64 - math.MaxUint64%uint64(n)
	for {
		if v := s.g.Uint64(); v < limit {
			return int(v % uint64(n))
		}
	}
}

// normal is a standard normal draw (Box–Muller).
func (s *source) normal() float64 {
	u := 1 - s.float() // (0, 1]
	return math.Sqrt(-2*math.Log(u)) * math.Cos(2*math.Pi*s.float())
}

// draw is a value of d.
func (s *source) draw(d Distribution) float64 {
	var x float64
	switch strings.TrimPrefix(d.Kind, "q_") {
	case "uniform":
		x = d.Min + (d.Max-d.Min)*s.float()
	case "int_uniform":
		return d.Min + float64(s.intn(int(d.Max-d.Min)+1))
	case "log_uniform_values":
		x = math.Exp(math.Log(d.Min) + (math.Log(d.Max)-math.Log(d.Min))*s.float())
	case "log_uniform":
		x = math.Exp(d.Min + (d.Max-d.Min)*s.float())
	case "normal":
		x = d.Mu + d.Sigma*s.normal()
	case "log_normal":
		x = math.Exp(d.Mu + d.Sigma*s.normal())
	}
	if strings.HasPrefix(d.Kind, "q_") {
		q := d.Q
		if q == 0 {
			q = 1
		}
		x = math.Round(x/q) * q
	}
	return x
}

// pick is an index into n values by their probabilities (nil: all alike).
func (s *source) pick(n int, probs []float64) int {
	if len(probs) == 0 {
		return s.intn(n)
	}
	u, acc := s.float(), 0.0
	for i, p := range probs {
		if acc += p; u < acc {
			return i
		}
	}
	return n - 1
}

// drawnText is a drawn number as a flag's value: a whole number as one (a flag of whole
// numbers takes it), else four significant digits.
func drawnText(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.FormatInt(int64(x), 10)
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

// crossed reports whether a random search crosses flag's values (task, model and seed: every
// drawn configuration is trained for each) rather than drawing one.
func crossed(flag string) bool { return flag == "task" || flag == "model" || flag == "seed" }

// draws is a random search's configurations: g.Random.Count of them, each a value for every
// drawn axis (index into drawn), all different; an error when the axes have fewer
// different configurations than that.
func (g *Grid) draws(drawn []Axis) ([][]string, error) {
	src := newSource(g.Random.Seed)
	seen := map[string]bool{}
	var out [][]string
	for tries := 0; len(out) < g.Random.Count; tries++ {
		if tries >= 100*g.Random.Count+1000 {
			return nil, fmt.Errorf("sweep: method random: only %d different configurations found in %d draws, fewer than the %d asked for (fewer values to draw from? use method grid)", len(out), tries, g.Random.Count)
		}
		vals := make([]string, len(drawn))
		for i, a := range drawn {
			if a.Dist != nil {
				vals[i] = drawnText(src.draw(*a.Dist))
			} else {
				vals[i] = a.Values[src.pick(len(a.Values), a.Probabilities)]
			}
		}
		key := strings.Join(vals, "\x00")
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, vals)
	}
	return out, nil
}
