package sweep

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"go.yaml.in/yaml/v3"

	"windtunnel/sessions/index"
	"windtunnel/sessions/runconfig"
)

// maxFileBytes bounds a sweep file.
const maxFileBytes = 1 << 20

// tree is a decoded sweep file: a scalar (as written), a list or a map whose keys keep the
// file's order.
type tree struct {
	scalar string
	isNull bool
	list   []tree
	keys   []string
	vals   map[string]tree
	kind   byte // 's' scalar, 'l' list, 'm' map
}

// ReadFile reads a sweep file: TOML (.toml) or YAML (.yaml, .yml; JSON is YAML too), in one
// of two forms. W&B's grid sweep — `method: grid` and `parameters:`, each flag with
// `values: [...]` or one `value:` — or Hydra's sweeper — `hydra: sweeper: params:`, each flag
// with a comma list, choice(...) or range(...). Flags are run's flags, without dashes.
func ReadFile(path string) (Grid, error) {
	data, err := runconfig.ReadUserFile(path, maxFileBytes) // a FIFO refused, not waited on
	if err != nil {
		return Grid{}, fmt.Errorf("sweep: %w", err)
	}
	var t tree
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".toml":
		if d := runconfig.TOMLDepth(data); d > runconfig.MaxDepth { // before the parser, which has no bound
			return Grid{}, fmt.Errorf("sweep: %s: arrays, tables or dotted keys nested %d deep: not a sweep file (at most %d)", path, d, runconfig.MaxDepth)
		}
		t, err = decodeTOML(data)
	case ".yaml", ".yml", ".json":
		t, err = decodeYAML(data)
	default:
		return Grid{}, fmt.Errorf("sweep: %s: want a .toml, .yaml or .yml file", path)
	}
	if err != nil {
		return Grid{}, fmt.Errorf("sweep: %s: %w", path, err)
	}
	g, err := gridOf(t)
	if err != nil {
		return Grid{}, fmt.Errorf("sweep: %s: %w", path, err)
	}
	return g, nil
}

// gridOf reads the axes of a decoded file in W&B's or Hydra's form.
func gridOf(t tree) (Grid, error) {
	if t.kind != 'm' {
		return Grid{}, fmt.Errorf("want a table of settings (method and parameters, or hydra.sweeper.params)")
	}
	if _, ok := t.vals["hydra"]; ok {
		for _, k := range t.keys {
			if k != "hydra" {
				return Grid{}, fmt.Errorf("%q beside hydra: only hydra.sweeper.params is read", k)
			}
		}
		return hydraGrid(t.vals["hydra"])
	}
	var g Grid
	method := "grid"
	var rnd Random
	rnd.Seed = 1
	for _, k := range t.keys {
		v := t.vals[k]
		switch k {
		case "method":
			if v.kind != 's' || (v.scalar != "grid" && v.scalar != "random") {
				return Grid{}, fmt.Errorf("method %q: want grid or random (bayes needs the results of the runs before it, which a sweep trains at once)", v.scalar)
			}
			method = v.scalar
		case "run_cap", "count", "random_seed":
			n, err := wholeNumber(k, v)
			if err != nil {
				return Grid{}, err
			}
			if k == "random_seed" {
				rnd.Seed = n
			} else if rnd.Count = int(n); n < 1 || n > MaxPoints {
				return Grid{}, fmt.Errorf("%s %d: want 1..%d", k, n, MaxPoints)
			}
		case "name", "description":
		case "metric":
			m, err := metricOf(v)
			if err != nil {
				return Grid{}, err
			}
			g.Metric = m
		case "parameters":
			if v.kind != 'm' {
				return Grid{}, fmt.Errorf("parameters: want a table of flags")
			}
			for _, flag := range v.keys {
				a, err := wandbAxis(flag, v.vals[flag])
				if err != nil {
					return Grid{}, err
				}
				if g.Has(a.Flag) {
					return Grid{}, fmt.Errorf("parameters: %s given twice", a.Flag)
				}
				g.Set(a)
			}
		default:
			return Grid{}, fmt.Errorf("unknown key %q (a sweep file has method, parameters, metric, name and description, and with method random run_cap and random_seed; or hydra.sweeper.params)", k)
		}
	}
	if _, ok := t.vals["parameters"]; !ok {
		return Grid{}, fmt.Errorf("no parameters: empty grid")
	}
	return withMethod(g, method, rnd, t.vals)
}

// metricOf reads a sweep file's metric: {name: bit_error_sample, goal: minimize}.
func metricOf(v tree) (*Metric, error) {
	if v.kind != 'm' {
		return nil, fmt.Errorf("metric: want name and goal (metric: {name: bit_error, goal: minimize})")
	}
	m := &Metric{Goal: "minimize"}
	for _, k := range v.keys {
		x := v.vals[k]
		if x.kind != 's' {
			return nil, fmt.Errorf("metric.%s: want a value", k)
		}
		switch k {
		case "name":
			m.Name = x.scalar
		case "goal":
			m.Goal = x.scalar
		default:
			return nil, fmt.Errorf("metric: unknown key %q (want name and goal)", k)
		}
	}
	if !slices.Contains(index.MetricFields, m.Name) {
		return nil, fmt.Errorf("metric.name %q: want one of %s", m.Name, strings.Join(index.MetricFields, ", "))
	}
	if m.Goal != "minimize" && m.Goal != "maximize" {
		return nil, fmt.Errorf("metric.goal %q: want minimize or maximize", m.Goal)
	}
	return m, nil
}

// wandbAxis is one W&B parameter: {values: [...]} or {value: x}, or for a random search a
// distribution (wandbDist).
func wandbAxis(flag string, v tree) (Axis, error) {
	flag = strings.TrimLeft(flag, "-")
	if err := checkFlag(flag); err != nil {
		return Axis{}, err
	}
	if v.kind != 'm' {
		return Axis{}, fmt.Errorf("parameters.%s: want values: [...] or value: x", flag)
	}
	a := Axis{Flag: flag}
	for _, k := range v.keys {
		x := v.vals[k]
		switch k {
		case "values":
			if x.kind != 'l' {
				return Axis{}, fmt.Errorf("parameters.%s.values: want a list", flag)
			}
			for _, e := range x.list {
				s, err := valueText(e)
				if err != nil {
					return Axis{}, fmt.Errorf("parameters.%s.values: %w", flag, err)
				}
				a.Values = append(a.Values, s)
			}
		case "value":
			s, err := valueText(x)
			if err != nil {
				return Axis{}, fmt.Errorf("parameters.%s.value: %w", flag, err)
			}
			a.Values = append(a.Values, s)
		case "distribution", "min", "max", "mu", "sigma", "q", "probabilities":
		default:
			return Axis{}, fmt.Errorf("parameters.%s: unknown key %q (want values or value, or a distribution)", flag, k)
		}
	}
	if err := wandbDist(flag, v, &a); err != nil {
		return Axis{}, err
	}
	if len(a.Values) == 0 && a.Dist == nil {
		return Axis{}, fmt.Errorf("parameters.%s has no values: empty grid", flag)
	}
	return a, nil
}

// hydraGrid reads hydra.sweeper: its params, and for a random search (Hydra's Optuna
// sweeper with its RandomSampler) sampler and n_trials (hydraRandom).
func hydraGrid(h tree) (Grid, error) {
	if h.kind != 'm' {
		return Grid{}, fmt.Errorf("hydra: want sweeper.params")
	}
	var g Grid
	for _, k := range h.keys {
		switch k {
		case "mode": // MULTIRUN: what a sweep is anyway
			continue
		case "sweeper":
		default:
			return Grid{}, fmt.Errorf("hydra.%s: not read (only hydra.sweeper.params)", k)
		}
		s := h.vals[k]
		if s.kind != 'm' {
			return Grid{}, fmt.Errorf("hydra.sweeper: want params")
		}
		rnd, err := hydraRandom(s)
		if err != nil {
			return Grid{}, err
		}
		g.Random = rnd
		p, ok := s.vals["params"]
		if !ok {
			continue
		}
		if p.kind != 'm' {
			return Grid{}, fmt.Errorf("hydra.sweeper.params: want a table of flags")
		}
		for _, flag := range p.keys {
			name := strings.TrimLeft(flag, "-")
			if err := checkFlag(name); err != nil {
				return Grid{}, err
			}
			a := Axis{Flag: name}
			v := p.vals[flag]
			switch v.kind {
			case 'l':
				for _, e := range v.list {
					x, err := valueText(e)
					if err != nil {
						return Grid{}, fmt.Errorf("hydra.sweeper.params.%s: %w", name, err)
					}
					a.Values = append(a.Values, x)
				}
			case 's':
				d, isDist, err := hydraDist(v.scalar)
				switch {
				case err != nil:
					return Grid{}, fmt.Errorf("hydra.sweeper.params.%s: %w", name, err)
				case isDist:
					a.Dist = &d
				default:
					if a.Values, err = ParseValues(v.scalar); err != nil {
						return Grid{}, fmt.Errorf("hydra.sweeper.params.%s: %w", name, err)
					}
				}
			default:
				return Grid{}, fmt.Errorf("hydra.sweeper.params.%s: want a comma list", name)
			}
			if len(a.Values) == 0 && a.Dist == nil {
				return Grid{}, fmt.Errorf("hydra.sweeper.params.%s has no values: empty grid", name)
			}
			if g.Has(name) {
				return Grid{}, fmt.Errorf("hydra.sweeper.params: %s given twice", name)
			}
			g.Set(a)
		}
	}
	if len(g.Axes) == 0 {
		return Grid{}, fmt.Errorf("hydra.sweeper.params is empty: empty grid")
	}
	return g, nil
}

// valueText is one value as a run flag takes it: a scalar as written, a list joined by
// commas (--eval-k 20,30).
func valueText(t tree) (string, error) {
	switch {
	case t.isNull:
		return "", fmt.Errorf("a null value")
	case t.kind == 's':
		if t.scalar == "" {
			return "", fmt.Errorf("an empty value")
		}
		return t.scalar, nil
	case t.kind == 'l':
		parts := make([]string, 0, len(t.list))
		for _, e := range t.list {
			if e.kind != 's' || e.scalar == "" {
				return "", fmt.Errorf("a list value must hold plain values")
			}
			parts = append(parts, e.scalar)
		}
		if len(parts) == 0 {
			return "", fmt.Errorf("an empty list value")
		}
		return strings.Join(parts, ","), nil
	}
	return "", fmt.Errorf("a table where a value belongs")
}

// decodeYAML reads YAML keeping the order of keys and the text of scalars as written
// (1e-3 stays 1e-3).
func decodeYAML(data []byte) (tree, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return tree{}, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return tree{}, fmt.Errorf("empty file: empty grid")
	}
	return yamlTree(doc.Content[0], 0)
}

func yamlTree(n *yaml.Node, depth int) (tree, error) {
	if depth > 16 {
		return tree{}, fmt.Errorf("nested deeper than 16 levels")
	}
	if n.Kind == yaml.AliasNode {
		return tree{}, fmt.Errorf("line %d: aliases are not read in a sweep file", n.Line)
	}
	switch n.Kind {
	case yaml.ScalarNode:
		return tree{kind: 's', scalar: n.Value, isNull: n.Tag == "!!null"}, nil
	case yaml.SequenceNode:
		t := tree{kind: 'l'}
		for _, c := range n.Content {
			e, err := yamlTree(c, depth+1)
			if err != nil {
				return tree{}, err
			}
			t.list = append(t.list, e)
		}
		return t, nil
	case yaml.MappingNode:
		t := tree{kind: 'm', vals: map[string]tree{}}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				return tree{}, fmt.Errorf("line %d: a key must be a plain name", k.Line)
			}
			if _, dup := t.vals[k.Value]; dup {
				return tree{}, fmt.Errorf("line %d: %q given twice", k.Line, k.Value)
			}
			v, err := yamlTree(n.Content[i+1], depth+1)
			if err != nil {
				return tree{}, err
			}
			t.keys = append(t.keys, k.Value)
			t.vals[k.Value] = v
		}
		return t, nil
	}
	return tree{}, fmt.Errorf("line %d: unexpected YAML node", n.Line)
}

// decodeTOML reads TOML, keys in the file's order (toml.MetaData.Keys).
func decodeTOML(data []byte) (tree, error) {
	var m map[string]any
	md, err := toml.Decode(string(data), &m)
	if err != nil {
		return tree{}, err
	}
	order := map[string]int{}
	for i, k := range md.Keys() {
		if _, ok := order[k.String()]; !ok {
			order[k.String()] = i
		}
	}
	return tomlTree(m, "", order, 0)
}

func tomlTree(v any, path string, order map[string]int, depth int) (tree, error) {
	if depth > 16 {
		return tree{}, fmt.Errorf("nested deeper than 16 levels")
	}
	switch x := v.(type) {
	case map[string]any:
		t := tree{kind: 'm', vals: map[string]tree{}}
		for k := range x {
			t.keys = append(t.keys, k)
		}
		key := func(k string) string {
			if path == "" {
				return toml.Key{k}.String()
			}
			return path + "." + toml.Key{k}.String()
		}
		sort.Slice(t.keys, func(i, j int) bool { return order[key(t.keys[i])] < order[key(t.keys[j])] })
		for _, k := range t.keys {
			c, err := tomlTree(x[k], key(k), order, depth+1)
			if err != nil {
				return tree{}, err
			}
			t.vals[k] = c
		}
		return t, nil
	case []any:
		t := tree{kind: 'l'}
		for _, e := range x {
			c, err := tomlTree(e, path, order, depth+1)
			if err != nil {
				return tree{}, err
			}
			t.list = append(t.list, c)
		}
		return t, nil
	case []map[string]any:
		return tree{}, fmt.Errorf("%s: an array of tables where a value belongs", path)
	case string:
		return tree{kind: 's', scalar: x}, nil
	case int64:
		return tree{kind: 's', scalar: strconv.FormatInt(x, 10)}, nil
	case float64:
		return tree{kind: 's', scalar: strconv.FormatFloat(x, 'g', -1, 64)}, nil
	case bool:
		return tree{kind: 's', scalar: strconv.FormatBool(x)}, nil
	}
	return tree{}, fmt.Errorf("%s: a %T where a value belongs", path, v)
}
