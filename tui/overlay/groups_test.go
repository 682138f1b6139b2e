package overlay

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"windtunnel/sessions"
)

// labMeta is a run's Meta with a lab-like configuration: cfg's fields over a base
// configuration (JSON values; "" removes a field). The file is /runs/<file>.
func labMeta(model, file string, cfg map[string]string) sessions.Meta {
	base := map[string]string{
		"task": `"bijection"`, "model": fmt.Sprintf("%q", model), "steps": "3000", "batch": "64",
		"lr": "0.001", "seed": "1", "workers": "2", "blas": `"auto"`, "eval_every": "250",
		"transformer": `{"Layers":4,"Heads":4,"Width":64,"MLP":0}`, "mlp": `{"Width":0,"Layers":4}`,
		"tunnel": `{"V":20,"K":0}`,
	}
	for k, v := range cfg {
		base[k] = v
		if v == "" {
			delete(base, k)
		}
	}
	raw := map[string]json.RawMessage{}
	for k, v := range base {
		raw[k] = json.RawMessage(v)
	}
	b, err := json.Marshal(raw)
	if err != nil {
		panic(err)
	}
	m := sessions.Meta{Task: "bijection", Model: model, Steps: 3000, Device: "cpu", Config: b, Path: "/runs/" + file}
	switch model {
	case "mlp":
		m.Params, m.Layers = 150000, 4
	default:
		m.Params, m.Layers, m.Heads = 201344, 4, 4
	}
	return m
}

// TestOverlayLabels checks that runs are labelled by the fields that differ between them,
// and by their file names only when none does.
func TestOverlayLabels(t *testing.T) {
	tf := func(file string, cfg map[string]string) sessions.Meta { return labMeta("transformer", file, cfg) }
	mlp := func(file string, cfg map[string]string) sessions.Meta { return labMeta("mlp", file, cfg) }
	noConfig := func(m sessions.Meta) sessions.Meta { m.Config = nil; return m }
	for _, c := range []struct {
		name  string
		metas []sessions.Meta
		names []string
		want  []string
	}{
		{"model", []sessions.Meta{tf("a", nil), mlp("b", nil)}, nil, []string{"transformer", "mlp"}},
		{"seed", []sessions.Meta{tf("a", nil), tf("b", map[string]string{"seed": "2"})}, nil,
			[]string{"transformer seed 1", "transformer seed 2"}},
		{"lr", []sessions.Meta{tf("a", nil), tf("b", map[string]string{"lr": "0.003"})}, nil,
			[]string{"transformer lr 1e-3", "transformer lr 3e-3"}},
		{"model and lr", []sessions.Meta{tf("a", nil), mlp("b", map[string]string{"lr": "3e-3"})}, nil,
			[]string{"transformer lr 1e-3", "mlp lr 3e-3"}},
		{"model, lr and seed", []sessions.Meta{tf("a", nil), mlp("b", map[string]string{"lr": "0.0003", "seed": "7"})}, nil,
			[]string{"transformer lr 1e-3 seed 1", "mlp lr 3e-4 seed 7"}},
		{"nested size", []sessions.Meta{tf("a", nil), tf("b", map[string]string{"transformer": `{"Layers":4,"Heads":4,"Width":96,"MLP":0}`})}, nil,
			[]string{"transformer width 64", "transformer width 96"}},
		{"other model's sizes ignored", []sessions.Meta{mlp("a", nil), mlp("b", map[string]string{"transformer": `{"Width":96}`})}, nil,
			[]string{"a", "b"}},
		{"identical: file names", []sessions.Meta{tf("a.wtlab", nil), tf("b.wtlab", nil)}, nil, []string{"a.wtlab", "b.wtlab"}},
		{"identical: given names", []sessions.Meta{tf("a.wtlab", nil), tf("b.wtlab", nil)}, []string{"first", ""},
			[]string{"first", "b.wtlab"}},
		{"operational fields ignored", []sessions.Meta{tf("a", nil), tf("b", map[string]string{"workers": "16", "blas": `"gonum"`, "eval_every": "500"})}, nil,
			[]string{"a", "b"}},
		{"a field one run lacks", []sessions.Meta{tf("a", map[string]string{"eval_k": ""}), tf("b", map[string]string{"eval_k": "[20,30]", "lr": "0.01"})}, nil,
			[]string{"transformer lr 1e-3", "transformer lr 0.01"}},
		{"device", []sessions.Meta{tf("a", nil), func() sessions.Meta { m := tf("b", nil); m.Device = "cuda"; return m }()}, nil,
			[]string{"transformer cpu", "transformer cuda"}},
		{"no configuration: the Meta", []sessions.Meta{noConfig(tf("a", nil)), noConfig(mlp("b", nil))}, nil, []string{"transformer", "mlp"}},
		{"no configuration: sizes", []sessions.Meta{noConfig(tf("a", nil)), func() sessions.Meta { m := noConfig(tf("b", nil)); m.Params = 2677440; return m }()}, nil,
			[]string{"transformer params 201,344", "transformer params 2,677,440"}},
		{"labels that collide get the name", []sessions.Meta{tf("a", nil), tf("b", nil), tf("c", map[string]string{"lr": "0.003"})}, nil,
			[]string{"transformer lr 1e-3 · a", "transformer lr 1e-3 · b", "transformer lr 3e-3"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			labels, _ := describeRuns(c.metas, c.names, nil)
			if !reflect.DeepEqual(labels, c.want) {
				t.Errorf("labels %q, want %q", labels, c.want)
			}
		})
	}
}

// TestOverlayGroups checks that runs equal but for the seed form one series, and that
// everything else stays a series of its own.
func TestOverlayGroups(t *testing.T) {
	tf := func(file string, cfg map[string]string) sessions.Meta { return labMeta("transformer", file, cfg) }
	mlp := func(file string, cfg map[string]string) sessions.Meta { return labMeta("mlp", file, cfg) }
	seed := func(n int) map[string]string { return map[string]string{"seed": fmt.Sprint(n)} }
	type group struct {
		label   string
		members []int
	}
	for _, c := range []struct {
		name  string
		metas []sessions.Meta
		want  []group
	}{
		{"3 seeds × 2 models", []sessions.Meta{tf("a", seed(1)), tf("b", seed(2)), tf("c", seed(3)), mlp("d", seed(1)), mlp("e", seed(2)), mlp("f", seed(3))},
			[]group{{"transformer (3 seeds)", []int{0, 1, 2}}, {"mlp (3 seeds)", []int{3, 4, 5}}}},
		{"interleaved", []sessions.Meta{tf("a", seed(1)), mlp("b", seed(1)), tf("c", seed(2))},
			[]group{{"transformer (2 seeds)", []int{0, 2}}, {"mlp seed 1", []int{1}}}},
		{"seeds of one configuration only", []sessions.Meta{tf("a", seed(1)), tf("b", seed(2)), tf("c", seed(3))},
			[]group{{"transformer (3 seeds)", []int{0, 1, 2}}}},
		{"another lr stays apart", []sessions.Meta{tf("a", seed(1)), tf("b", seed(2)), tf("c", map[string]string{"seed": "1", "lr": "0.003"})},
			[]group{{"transformer lr 1e-3 (2 seeds)", []int{0, 1}}, {"transformer lr 3e-3 seed 1", []int{2}}}},
		{"seeds evaluated at other steps", []sessions.Meta{tf("a", seed(1)), tf("b", map[string]string{"seed": "2", "eval_every": "300"})},
			[]group{{"transformer (2 seeds)", []int{0, 1}}}},
		{"repeats of one seed stay apart", []sessions.Meta{tf("a", seed(1)), tf("b", seed(1))},
			[]group{{"a", []int{0}}, {"b", []int{1}}}},
		{"no seed recorded", []sessions.Meta{tf("a", map[string]string{"seed": ""}), tf("b", map[string]string{"seed": ""}), mlp("c", map[string]string{"seed": ""})},
			[]group{{"transformer · a", []int{0}}, {"transformer · b", []int{1}}, {"mlp", []int{2}}}},
		{"one run", []sessions.Meta{tf("a", nil)}, []group{{"a", []int{0}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, groups := describeRuns(c.metas, nil, nil)
			var got []group
			for _, g := range groups {
				got = append(got, group{g.label, g.members})
				if g.band() != (len(g.seeds) > 0) {
					t.Errorf("%s: band %v with seeds %q", g.label, g.band(), g.seeds)
				}
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("groups %+v, want %+v", got, c.want)
			}
		})
	}
}

// TestOverlayRunFields checks the flattening of a configuration and the number format.
func TestOverlayRunFields(t *testing.T) {
	f := runFields(labMeta("mlp", "a", map[string]string{"target": `"sampled"`, "eval_k": "[20,30]", "clip": "null", "x": "true"}))
	for k, want := range map[string]string{
		"task": "bijection", "model": "mlp", "device": "cpu", "lr": "1e-3", "seed": "1", "mlp.Width": "0",
		"tunnel.V": "20", "target": "sampled", "eval_k": "[20,30]", "clip": "null", "x": "true",
		derivedKey + "params": "150,000", derivedKey + "heads": "0",
	} {
		if f[k] != want {
			t.Errorf("%s = %q, want %q", k, f[k], want)
		}
	}
	for _, k := range []string{"workers", "blas", "eval_every", "transformer.Width"} {
		if v, ok := f[k]; ok {
			t.Errorf("%s = %q kept", k, v)
		}
	}
	for in, want := range map[string]string{
		"3": "3", "-2": "-2", "0.003": "3e-3", "3e-4": "3e-4", "0.01": "0.01", "0.5": "0.5",
		"1.5e7": "1.5e7", "2.5": "2.5", "0": "0", "0.0": "0", "-0.001": "-1e-3",
	} {
		if got := compactNumber(json.Number(in)); got != want {
			t.Errorf("compactNumber(%s) = %s, want %s", in, got, want)
		}
	}
	if got := labelField("transformer.Width"); got != "width" {
		t.Errorf("labelField: %q", got)
	}
	if l := runLabel(sessions.Meta{}, map[string]string{"lr": "1e-3"}, []string{"lr"}); !strings.HasPrefix(l, "session lr") {
		t.Errorf("label of a run without a model: %q", l)
	}
}

// TestOverlayGroupsDerivedRule checks the overlay groups by the rule of sessions/derived:
// steps, device and precision split; workers, BLAS, cadences and geometry size do not.
func TestOverlayGroupsDerivedRule(t *testing.T) {
	tf := func(file string, cfg map[string]string) sessions.Meta { return labMeta("transformer", file, cfg) }
	for _, c := range []struct {
		name  string
		other map[string]string // the second run's fields (seed 2)
		want  [][]int
	}{
		{"steps split", map[string]string{"steps": "300"}, [][]int{{0}, {1}}},
		{"device splits", map[string]string{"device": `"cuda"`}, [][]int{{0}, {1}}},
		{"precision splits", map[string]string{"precision": `"float64"`}, [][]int{{0}, {1}}},
		{"default device and precision named", map[string]string{"device": `"cpu"`, "precision": `"float32"`}, [][]int{{0, 1}}},
		{"machine and cadences pool", map[string]string{"workers": "16", "blas": `"gonum"`, "eval_every": "10",
			"checkpoint_every": "100", "probe_every": "50", "geometry_n": "128"}, [][]int{{0, 1}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			other := map[string]string{"seed": "2"}
			for k, v := range c.other {
				other[k] = v
			}
			got := Groups([]sessions.Meta{tf("a", nil), tf("b", other)})
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("Groups = %v, want %v", got, c.want)
			}
		})
	}
}

// TestOverlayGivenNames: a run's given name (run --name, windtunnel tag) is its label; a
// seed band whose runs all carry one name is labelled by it, and naming runs never groups
// or splits them.
func TestOverlayGivenNames(t *testing.T) {
	tf := func(file string, cfg map[string]string) sessions.Meta { return labMeta("transformer", file, cfg) }
	seed := func(n int) map[string]string { return map[string]string{"seed": fmt.Sprint(n)} }
	metas := []sessions.Meta{tf("a", seed(1)), tf("b", seed(2)), tf("c", map[string]string{"seed": "1", "lr": "0.003"})}
	labels, groups := describeRuns(metas, nil, []string{"base", "base", "hot"})
	if want := []string{"base · a", "base · b", "hot"}; !reflect.DeepEqual(labels, want) { // one name twice: told apart by file
		t.Errorf("labels %q, want %q", labels, want)
	}
	if len(groups) != 2 || groups[0].label != "base (2 seeds)" || groups[1].label != "hot" {
		t.Errorf("groups %+v", groups)
	}
	_, groups = describeRuns(metas, nil, []string{"base", "other", ""})
	if len(groups) != 2 || groups[0].label != "transformer lr 1e-3 (2 seeds)" || !reflect.DeepEqual(groups[0].members, []int{0, 1}) {
		t.Errorf("differently named seeds: %+v", groups)
	}
}
