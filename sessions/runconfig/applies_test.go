package runconfig

import "testing"

// TestCheckApplies: task and model flags pass for their own task and model and are
// refused, the first in order, for others; an unknown or empty model checks task flags only.
func TestCheckApplies(t *testing.T) {
	for _, c := range []struct {
		given       []string
		task, model string
		want        string // "" accepted
	}{
		{[]string{"steps", "lr", "seed"}, "bijection", "lstm", ""},
		{[]string{"v"}, "bijection", "transformer", ""},
		{[]string{"k", "states", "eval-k"}, "hmm", "mamba", ""},
		{[]string{"pairs", "layout"}, "recall", "transformer", ""},
		{[]string{"heads", "qk-lr", "value-lr"}, "hmm", "transformer", ""},
		{[]string{"mlp-input"}, "bijection", "mlp-prefix", ""},
		{[]string{"steps", "k"}, "bijection", "transformer", "--k applies to --task hmm only, not bijection"},
		{[]string{"v"}, "recall", "", "--v applies to --task bijection only, not recall"},
		{[]string{"layout", "v"}, "hmm", "lstm", "--layout applies to --task recall only, not hmm"},
		{[]string{"heads"}, "bijection", "lstm", "--heads applies to --model transformer only, not lstm"},
		{[]string{"mlp-input"}, "hmm", "mlp", "--mlp-input applies to --model mlp-prefix only, not mlp"},
		{[]string{"heads", "mlp-input"}, "hmm", "", ""},
		{[]string{"heads"}, "hmm", "nonsense", ""},
	} {
		err := CheckApplies(c.given, c.task, c.model)
		if (err == nil) != (c.want == "") || err != nil && err.Error() != c.want {
			t.Errorf("%v on %s %s: %v, want %q", c.given, c.task, c.model, err, c.want)
		}
	}
}
