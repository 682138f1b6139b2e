package derived

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"windtunnel/sessions"
)

// base is a stored configuration as sessions written before the size structs had JSON
// tags spell it ("Layers"; trimmed to the fields that matter).
const base = `{"task":"bijection","tunnel":{"V":20},"model":"transformer",
"transformer":{"Layers":4,"Heads":4,"Width":64},"lstm":{"Width":0},"steps":300,"batch":64,
"lr":0.003,"warmup":50,"eval_every":100,"checkpoint_every":0,"probe_size":256,"probe_every":100,
"geometry_n":64,"seed":1,"target":"","device":"cuda","blas":"auto","workers":2,"precision":"float32"}`

// with returns base with the top-level fields of patch replaced (null deletes).
func with(t *testing.T, patch string) json.RawMessage {
	t.Helper()
	var m, p map[string]any
	if err := json.Unmarshal([]byte(base), &m); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(patch), &p); err != nil {
		t.Fatal(err)
	}
	for k, v := range p {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSameConfiguration(t *testing.T) {
	cases := []struct {
		name  string
		patch string // applied to base for the second run
		same  bool
		diff  string // the one Difference expected when not same
	}{
		{"identical", `{}`, true, ""},
		{"seed differs", `{"seed":7}`, true, ""},
		{"workers differ", `{"workers":16}`, true, ""},
		{"blas differs", `{"blas":"gonum"}`, true, ""},
		{"eval cadence differs", `{"eval_every":25}`, true, ""},
		{"checkpoint cadence differs", `{"checkpoint_every":500}`, true, ""},
		{"probe cadence differs", `{"probe_every":0}`, true, ""},
		{"geometry size differs", `{"geometry_n":128}`, true, ""},
		{"all ignored at once", `{"seed":3,"workers":1,"blas":"openblas","eval_every":1,"probe_every":null,"geometry_n":null}`, true, ""},
		{"omitted zero key", `{"target":null,"checkpoint_every":null}`, true, ""},
		{"omitted empty object field", `{"lstm":null}`, true, ""},
		{"sizes in today's lower-case keys", `{"tunnel":{"v":20},"transformer":{"layers":4,"heads":4,"width":64}}`, true, ""},
		{"omitted default precision", `{"precision":null}`, true, ""},
		{"prefix MLP input unset is prefix", `{"mlp_prefix":{"blocks":0,"width":0,"hidden":0,"input":"prefix"}}`, true, ""},
		{"prefix MLP input token", `{"mlp_prefix":{"input":"token"}}`, false, "mlp_prefix.input: prefix vs token"},
		{"number spelling", `{"lr":3e-3,"steps":300.0}`, true, ""},
		{"steps differ", `{"steps":3000}`, false, "steps: 300 vs 3000"},
		{"device differs", `{"device":"cpu"}`, false, "device: cuda vs cpu"},
		{"device omitted is cpu", `{"device":null}`, false, "device: cuda vs cpu"},
		{"precision differs", `{"precision":"float64"}`, false, "precision: float32 vs float64"},
		{"lr differs", `{"lr":0.001}`, false, "lr: 0.003 vs 0.001"},
		{"width differs", `{"transformer":{"Layers":4,"Heads":4,"Width":128}}`, false, "transformer.width: 64 vs 128"},
		{"task differs", `{"task":"hmm"}`, false, "task: bijection vs hmm"},
		{"model differs", `{"model":"lstm"}`, false, "model: transformer vs lstm"},
		{"target set", `{"target":"posterior"}`, false, "target: sampled vs posterior"},
		{"eval_k set", `{"eval_k":[20,30]}`, false, "eval_k: unset vs [20,30]"},
	}
	a := json.RawMessage(base)
	ka, err := ConfigKey(a)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := with(t, c.patch)
			kb, err := ConfigKey(b)
			if err != nil {
				t.Fatal(err)
			}
			if got := ka == kb; got != c.same {
				t.Errorf("same = %v, want %v\nkey a %s\nkey b %s", got, c.same, ka, kb)
			}
			ds, err := Differences(a, b)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range ds {
				got = append(got, d.String())
			}
			want := []string(nil)
			if c.diff != "" {
				want = []string{c.diff}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Differences = %q, want %q", got, want)
			}
		})
	}
}

func TestConfigKeyErrors(t *testing.T) {
	for _, bad := range []string{``, `{`, `{"steps":}`, `[1,2]`, `"cfg"`, `{} {}`} {
		if k, err := ConfigKey(json.RawMessage(bad)); err == nil {
			t.Errorf("ConfigKey(%q) = %q, want an error", bad, k)
		} else if !strings.HasPrefix(err.Error(), "derived: ") {
			t.Errorf("ConfigKey(%q) error %q lacks the package prefix", bad, err)
		}
		if _, err := Differences(json.RawMessage(base), json.RawMessage(bad)); err == nil {
			t.Errorf("Differences with %q: want an error", bad)
		}
	}
}

func TestKey(t *testing.T) {
	if _, err := Key(sessions.Meta{Path: "old.wtlab"}); err == nil || !strings.Contains(err.Error(), "old.wtlab") {
		t.Errorf("Key without a configuration: err = %v, want one naming the file", err)
	}
	k, err := Key(sessions.Meta{Config: json.RawMessage(base)})
	want, _ := ConfigKey(json.RawMessage(base))
	if err != nil || k != want {
		t.Errorf("Key = %q, %v; want ConfigKey's %q", k, err, want)
	}
}

func TestFieldsLeaveOutIgnoredAndZero(t *testing.T) {
	f, err := Fields(json.RawMessage(base))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range append(IgnoredFields(), "target", "lstm.Width", "precision") {
		if v, ok := f[k]; ok {
			t.Errorf("Fields has %s = %q, want it left out", k, v)
		}
	}
	for k, want := range map[string]string{"steps": "300", "lr": "0.003", "transformer.width": "64", "device": "cuda", "tunnel.v": "20"} {
		if f[k] != want {
			t.Errorf("Fields[%s] = %q, want %q", k, f[k], want)
		}
	}
}

func TestGroupIndices(t *testing.T) {
	cases := []struct {
		keys []string
		want [][]int
	}{
		{nil, nil},
		{[]string{"a"}, [][]int{{0}}},
		{[]string{"a", "b", "a", "c", "b"}, [][]int{{0, 2}, {1, 4}, {3}}},
		{[]string{"b", "b", "b"}, [][]int{{0, 1, 2}}},
	}
	for _, c := range cases {
		if got := GroupIndices(c.keys); !reflect.DeepEqual(got, c.want) {
			t.Errorf("GroupIndices(%q) = %v, want %v", c.keys, got, c.want)
		}
	}
}

func TestIgnoredFieldsFresh(t *testing.T) {
	a := IgnoredFields()
	a[0] = "steps"
	if IgnoredFields()[0] != "seed" {
		t.Error("IgnoredFields shares its slice with callers")
	}
}

func TestLabels(t *testing.T) {
	cfgs := []json.RawMessage{with(t, `{"steps":3000}`), json.RawMessage(base), with(t, `{"seed":9}`), with(t, `{"lr":0.001}`)}
	got, err := Labels(cfgs)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"lr 0.003, steps 3000", "lr 0.003, steps 300", "lr 0.003, steps 300", "lr 0.001, steps 300"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Labels = %q, want %q", got, want)
	}
	got, err = Labels([]json.RawMessage{json.RawMessage(base), with(t, `{"workers":1}`)})
	if err != nil || !reflect.DeepEqual(got, []string{"", ""}) {
		t.Errorf("Labels of one configuration = %q, %v; want two empty labels", got, err)
	}
	// A model block's sizes are named without the block (the groups are of one model).
	got, err = Labels([]json.RawMessage{json.RawMessage(`{"transformer":{"width":64},"mlp_prefix":{"input":"prefix"}}`),
		json.RawMessage(`{"transformer":{"width":96},"mlp_prefix":{"input":"onehot"}}`)})
	if want := []string{"input prefix, width 64", "input onehot, width 96"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Labels of model blocks = %q, %v; want %q", got, err, want)
	}
	// A target left out is the task's own, named (not "unset"); one naming the task's own
	// is the same configuration as one leaving it out.
	for _, c := range []struct {
		a, b string
		want []string
	}{
		{`{"target":"posterior"}`, `{"target":""}`, []string{"target posterior", "target default"}},
		{`{"task":"bijection","target":"posterior"}`, `{"task":"bijection"}`, []string{"target posterior", "target sampled"}},
		{`{"task":"hmm","target":"sampled"}`, `{"task":"hmm","target":""}`, []string{"target sampled", "target posterior"}},
		{`{"task":"bijection","target":"sampled"}`, `{"task":"bijection","target":""}`, []string{"", ""}},
	} {
		got, err = Labels([]json.RawMessage{json.RawMessage(c.a), json.RawMessage(c.b)})
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Labels(%s, %s) = %q, %v; want %q", c.a, c.b, got, err, c.want)
		}
	}
	if _, err := Labels([]json.RawMessage{json.RawMessage(`{`)}); err == nil {
		t.Error("Labels of invalid JSON: want an error")
	}
}

// TestContextFreeBits checks the context-free level of a bijection: 1.1073 bits at V=20
// (log2 20 − log2(20!)/19, the per-position MLP's level), V from the Bayes curve when the
// configuration has none, and none for the other tasks.
func TestContextFreeBits(t *testing.T) {
	lf, _ := math.Lgamma(21)
	want := math.Log2(20) - lf/math.Ln2/19
	if got := ContextFreeBits(20); math.Abs(got-want) > 1e-12 || math.Abs(got-1.1073) > 5e-5 {
		t.Errorf("ContextFreeBits(20) = %.6f, want %.6f ≈ 1.1073", got, want)
	}
	if got := ContextFreeBits(3); math.Abs(got-math.Log2(1.5)/2) > 1e-12 {
		t.Errorf("ContextFreeBits(3) = %v", got)
	}
	if !math.IsNaN(ContextFreeBits(1)) {
		t.Error("a level for a bijection of one symbol")
	}
	if got := ContextFree("bijection", 0, 19); got != ContextFreeBits(20) {
		t.Errorf("V from 19 scored positions: %v", got)
	}
	if !math.IsNaN(ContextFree("hmm", 20, 19)) {
		t.Error("a context-free level for hmm")
	}
}
