package llmrun

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"windtunnel/sessions"
)

func sample() *Result {
	nan := sessions.Num(math.NaN())
	return &Result{Version: Version, Model: Model{Family: "llama", Layers: 2, Heads: 4, KVHeads: 2},
		Experiments: []string{"keys", "focus"},
		Keys:        &Keys{Real: [][]sessions.Num{{0.1, nan}, {0.2, 0.3}}, ByLayer: []sessions.Num{nan, 0.25}, Tokens: 9, Random: 0.3, Proxy: 0.05},
		Focus:       &Focus{Entropy: [][]sessions.Num{{1, 2, 3, 4}, {1, 1, 1, 1}}, ByLayer: []sessions.Num{2.5, 1}, Drop: 0.6},
		Manifold:    []Set{{Name: "mixed", N: 3, Share: []sessions.Num{0.5, 0.3, 0.1}, Points: [][2]sessions.Num{{1, 2}, {3, 4}, {5, nan}}, Entropy: []sessions.Num{1, 2, 3}}}}
}

func TestWriteRead(t *testing.T) {
	p := filepath.Join(t.TempDir(), FileName)
	if err := Write(p, sample()); err != nil {
		t.Fatal(err)
	}
	r, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(float64(r.Keys.Real[0][1])) || r.Keys.Real[1][1] != 0.3 || r.Manifold[0].Points[1][1] != 4 || r.Focus.Drop != 0.6 {
		t.Errorf("read back %+v", r)
	}
}

func TestReadHostile(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		edit func(r *Result)
		raw  string
		want string
	}{
		{name: "version", edit: func(r *Result) { r.Version = 99 }, want: "version 99"},
		{name: "layers", edit: func(r *Result) { r.Model.Layers = 1 << 30 }, want: "out of bounds"},
		{name: "key grid", edit: func(r *Result) { r.Keys.Real[1] = r.Keys.Real[1][:1] }, want: "keys layer 1 has 1 heads"},
		{name: "focus layers", edit: func(r *Result) { r.Focus.ByLayer = nil }, want: "focus: 0 layer means"},
		{name: "points", edit: func(r *Result) { r.Manifold[0].Entropy = nil }, want: "3 points, 0 entropies"},
		{name: "unknown field", raw: `{"version":1,"surprise":true}`, want: "unknown field"},
		{name: "not json", raw: `{"version":`, want: "unexpected EOF"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, c.name+".json")
			if c.raw != "" {
				os.WriteFile(p, []byte(c.raw), 0o644)
			} else {
				r := sample()
				c.edit(r)
				if err := Write(p, r); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := Read(p); err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "llmrun: ") {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
	big := filepath.Join(dir, "big.json")
	f, _ := os.Create(big)
	f.Truncate(MaxFile + 10)
	f.Close()
	if _, err := Read(big); err == nil || !strings.Contains(err.Error(), "over") {
		t.Errorf("oversized: %v", err)
	}
}
