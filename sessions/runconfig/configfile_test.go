package runconfig

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"windtunnel/models/arch"
)

// TestWriteReadBack: a configuration written as TOML or YAML (every key, zeros and empty
// lists included) reads back to the same configuration over any preset, and names every
// key Keys lists; Lookup reads keys in any case.
func TestWriteReadBack(t *testing.T) {
	c, err := Build(Recipe{Preset: PresetQuick, Task: "hmm", Model: arch.KindLSTM, Flags: flags(func(o *Overrides) {
		o.Tunnel.K, o.EvalK, o.Steps, o.Seed, o.ProbeEvery, o.Precision = 8, []int{8, 16}, 40, 7, 0, "float64"
	}, "k", "eval-k", "steps", "seed", "probe-every", "precision")})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(c)
	for _, format := range []string{"toml", "yaml"} {
		var b bytes.Buffer
		if err := Write(&b, c, format); err != nil {
			t.Fatal(err)
		}
		for _, k := range Keys() {
			last := k[strings.LastIndex(k, ".")+1:]
			if !strings.Contains(b.String(), last) {
				t.Errorf("%s lacks the key %s:\n%s", format, k, b.String())
			}
		}
		path := filepath.Join(t.TempDir(), "c."+format)
		if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		src, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := src.Apply(Config{}) // every key given: nothing comes from the base
		if err != nil {
			t.Fatal(err)
		}
		if g, _ := json.Marshal(got); string(g) != string(want) {
			t.Errorf("%s read back:\n got %s\nwant %s", format, g, want)
		}
	}
	if v, ok := Lookup(c, "Tunnel.K"); !ok || v != 8.0 {
		t.Errorf("Lookup(tunnel.K) = %v, %v", v, ok)
	}
	if v, ok := Lookup(c, "eval_k"); !ok || v != "[8,16]" {
		t.Errorf("Lookup(eval_k) = %v, %v", v, ok)
	}
	if _, ok := Lookup(c, "transformer.nope"); ok {
		t.Error("Lookup found a key the configuration does not have")
	}
}
