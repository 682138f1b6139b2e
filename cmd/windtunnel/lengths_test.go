package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvalKFlag runs a tiny hmm with --eval-k, and probes it: the JSON carries the curve
// at every K (the training K marked), the text a length-generalisation block; a bad
// --eval-k is a usage error naming the flag.
func TestEvalKFlag(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hmm.wtlab")
	args := []string{"run", "--headless", "--task", "hmm", "--states", "3", "--symbols", "3", "--k", "4", "--eval-k", "9,4,6",
		"--layers", "1", "--heads", "2", "--width", "16", "--batch", "8", "--probe", "24", "--steps", "10",
		"--eval-every", "5", "--probe-every", "5", "--geometry-n", "8", "--out", path}
	if code, _, errs := runCLI(args...); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	code, out, errs := runCLI("probe", path, "--json")
	var probed struct {
		Eval struct {
			KL      float64 `json:"kl_bits"`
			Lengths []struct {
				K     int       `json:"k"`
				Train bool      `json:"train"`
				KL    float64   `json:"kl_bits"`
				ByPos []float64 `json:"kl_by_position"`
			} `json:"lengths"`
		} `json:"eval"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &probed) != nil {
		t.Fatalf("probe: exit %d\n%s%s", code, out, errs)
	}
	rep := probed.Eval
	if len(rep.Lengths) != 3 || rep.Lengths[0].K != 4 || rep.Lengths[1].K != 6 || rep.Lengths[2].K != 9 ||
		!rep.Lengths[0].Train || rep.Lengths[1].Train || rep.Lengths[0].KL != rep.KL || len(rep.Lengths[2].ByPos) != 9 {
		t.Errorf("probe lengths: %+v (main KL %v)", rep.Lengths, rep.KL)
	}
	code, out, _ = runCLI("probe", path)
	if code != 0 || !strings.Contains(out, "length generalisation (* trained at K=4") || !strings.Contains(out, "  9 ") {
		t.Errorf("probe text: exit %d\n%s", code, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--headless", "--task", "hmm", "--eval-k", "20,0"}, "--eval-k 0"},
		{[]string{"run", "--headless", "--task", "hmm", "--eval-k", "600"}, "--eval-k 600"},
		{[]string{"run", "--headless", "--task", "bijection", "--eval-k", "20,30"}, "--eval-k"},
	} {
		if code, _, errs := runCLI(c.args...); code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 naming %q", c.args, code, errs, c.want)
		}
	}
}
