package sweep

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// MaxPoints bounds a grid: Slurm's default MaxArraySize allows array indices 0..1000.
const MaxPoints = 1000

// Axis is one swept flag of `windtunnel run` and its values, in the order given.
type Axis struct {
	// Flag is the run flag's name without dashes ("lr", "width", "task").
	Flag string `json:"flag"`
	// Values are the flag's values as run parses them.
	Values []string `json:"values"`
}

// Point is one grid point: its index (the Slurm array index), a name that says which point it
// is, the run flags that make it and its planned steps.
type Point struct {
	Index int      `json:"index"`
	Name  string   `json:"name"`
	Args  []string `json:"args"`
	// Steps is the run's planned length (its resolved configuration's), for the ETA.
	Steps int `json:"steps"`
}

// Session is the point's session file name (Name + ".wtlab").
func (p Point) Session() string { return p.Name + ".wtlab" }

// engineFlags are the run flags a sweep sets itself for every point; a grid may not set them.
var engineFlags = map[string]string{
	"out":         "each point's session is DIR/<point>.wtlab",
	"resume":      "a point resumes from its own session",
	"headless":    "every point runs headless",
	"detach":      "the engine starts the points",
	"predictions": "every point would write the same file",
	"help":        "",
}

var flagName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,39}$`)

// checkFlag rejects a flag name that cannot be a run flag or that the engine sets itself.
// Whether run knows the flag is checked by the caller, which builds every point's
// configuration with run's own flags.
func checkFlag(name string) error {
	if !flagName.MatchString(name) {
		return fmt.Errorf("sweep: %q is not a flag name (want e.g. lr, width, eval-every)", name)
	}
	if why, ok := engineFlags[name]; ok {
		if why == "" {
			return fmt.Errorf("sweep: --%s cannot be swept", name)
		}
		return fmt.Errorf("sweep: --%s cannot be swept: %s", name, why)
	}
	return nil
}

// checkArg rejects a point's argument that Points could not have written: it is
// --flag=value with a flag a grid may set (checkFlag). A manifest read back may come from
// someone else, and an --out or --resume added to a point would write a session outside the
// sweep's folder.
func checkArg(a string) error {
	name, _, ok := strings.Cut(strings.TrimPrefix(a, "--"), "=")
	if !ok || !strings.HasPrefix(a, "--") {
		return fmt.Errorf("sweep: argument %q is not --flag=value", a)
	}
	return checkFlag(name)
}

// ParseSet reads one --set argument, FLAG=V1,V2,...: the flag with or without its dashes,
// values split at commas outside brackets ("eval-k=[20,30],[20]" is two values, "20,30" and
// "20"), or Hydra's choice(a,b) and range(start,stop[,step]) (stop excluded).
func ParseSet(s string) (Axis, error) {
	name, list, ok := strings.Cut(s, "=")
	if !ok {
		return Axis{}, fmt.Errorf("sweep: --set %q: want FLAG=V1,V2,... (e.g. lr=1e-3,3e-4)", s)
	}
	name = strings.TrimLeft(strings.TrimSpace(name), "-")
	if err := checkFlag(name); err != nil {
		return Axis{}, err
	}
	vals, err := ParseValues(list)
	if err != nil {
		return Axis{}, fmt.Errorf("sweep: --set %s: %w", name, err)
	}
	return Axis{Flag: name, Values: vals}, nil
}

// ParseValues splits a list of values: commas outside brackets separate them, a bracketed
// value is one value whose commas stay ("[20,30]" is "20,30"), choice(...) lists values and
// range(a,b[,s]) counts from a up to b (excluded) in steps of s. An empty list is an error.
func ParseValues(list string) ([]string, error) {
	list = strings.TrimSpace(list)
	switch {
	case strings.HasPrefix(list, "range(") && strings.HasSuffix(list, ")"):
		return parseRange(list[len("range(") : len(list)-1])
	case strings.HasPrefix(list, "choice(") && strings.HasSuffix(list, ")"):
		list = list[len("choice(") : len(list)-1]
	}
	var out []string
	depth, start := 0, 0
	add := func(v string) error {
		v = strings.TrimSpace(v)
		if strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") {
			v = strings.TrimSpace(v[1 : len(v)-1])
		}
		if v == "" {
			return fmt.Errorf("an empty value in %q", list)
		}
		out = append(out, v)
		return nil
	}
	for i, r := range list {
		switch r {
		case '[':
			depth++
		case ']':
			if depth--; depth < 0 {
				return nil, fmt.Errorf("unbalanced ] in %q", list)
			}
		case ',':
			if depth == 0 {
				if err := add(list[start:i]); err != nil {
					return nil, err
				}
				start = i + 1
			}
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("unbalanced [ in %q", list)
	}
	if strings.TrimSpace(list) == "" {
		return nil, fmt.Errorf("no values: empty grid")
	}
	if err := add(list[start:]); err != nil {
		return nil, err
	}
	return out, nil
}

// parseRange is Hydra's range(start, stop[, step]) over integers, stop excluded.
func parseRange(args string) ([]string, error) {
	parts := strings.Split(args, ",")
	if len(parts) < 2 || len(parts) > 3 {
		return nil, fmt.Errorf("range(%s): want range(start,stop) or range(start,stop,step)", args)
	}
	n := make([]int, 3)
	n[2] = 1
	for i, p := range parts {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return nil, fmt.Errorf("range(%s): %q is not an integer", args, strings.TrimSpace(p))
		}
		n[i] = v
	}
	if n[2] <= 0 {
		return nil, fmt.Errorf("range(%s): the step must be positive", args)
	}
	var out []string
	for v := n[0]; v < n[1]; v += n[2] {
		if len(out) >= MaxPoints {
			return nil, fmt.Errorf("range(%s): more than %d values", args, MaxPoints)
		}
		out = append(out, strconv.Itoa(v))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("range(%s) has no values: empty grid", args)
	}
	return out, nil
}

// Grid is the swept axes, in order: the first varies slowest.
type Grid struct {
	Axes []Axis `json:"axes"`
	// Metric is what the sweep is judged by (a sweep file's metric); nil: none given.
	Metric *Metric `json:"metric,omitempty"`
}

// Metric is what a sweep is judged by, a sweep file's `metric: {name, goal}` as in W&B: a
// metric of a point's newest whole-model evaluation (index.MetricFields: bit_error,
// bit_error_sample, kl_bits, tvd, accuracy …) and whether lower (minimize) or higher
// (maximize) is better. sweep status shows it and names the best point.
type Metric struct {
	Name string `json:"name"`
	Goal string `json:"goal"`
}

// Set adds an axis, or replaces the values of the axis of the same flag where it stands
// (a command-line --set overrides a sweep file's axis, as Hydra's overrides do).
func (g *Grid) Set(a Axis) {
	for i := range g.Axes {
		if g.Axes[i].Flag == a.Flag {
			g.Axes[i].Values = a.Values
			return
		}
	}
	g.Axes = append(g.Axes, a)
}

// Has reports whether the grid sweeps flag.
func (g *Grid) Has(flag string) bool {
	for _, a := range g.Axes {
		if a.Flag == flag {
			return true
		}
	}
	return false
}

// Points expands the grid into its points: every combination of the axes' values, the
// first axis slowest. A point's name is its task and model, then flag=value for each axis
// of more than one value and for the seed (a setting common to all points is left out). A value listed twice on one axis is an error, and so is a grid of no
// points or of more than MaxPoints.
func (g *Grid) Points() ([]Point, error) {
	n := 1
	for _, a := range g.Axes {
		if err := checkFlag(a.Flag); err != nil {
			return nil, err
		}
		if len(a.Values) == 0 {
			return nil, fmt.Errorf("sweep: --%s has no values: empty grid", a.Flag)
		}
		seen := map[string]bool{}
		for _, v := range a.Values {
			if seen[v] {
				return nil, fmt.Errorf("sweep: --%s lists %q twice", a.Flag, v)
			}
			seen[v] = true
		}
		if n *= len(a.Values); n > MaxPoints {
			return nil, fmt.Errorf("sweep: the grid has more than %d points (Slurm's default MaxArraySize)", MaxPoints)
		}
	}
	if len(g.Axes) == 0 {
		return nil, fmt.Errorf("sweep: empty grid: nothing to sweep")
	}
	points := make([]Point, 0, n)
	names := map[string]bool{}
	idx := make([]int, len(g.Axes))
	for i := 0; i < n; i++ {
		rem := i
		for k := len(g.Axes) - 1; k >= 0; k-- {
			idx[k] = rem % len(g.Axes[k].Values)
			rem /= len(g.Axes[k].Values)
		}
		var args, parts []string
		for k, a := range g.Axes {
			v := a.Values[idx[k]]
			args = append(args, "--"+a.Flag+"="+v)
			switch {
			case a.Flag == "task" || a.Flag == "model":
				parts = append(parts, nameValue(v))
			case a.Flag == "seed" || len(a.Values) > 1:
				parts = append(parts, a.Flag+"="+nameValue(v))
			}
		}
		name := strings.Join(parts, "-")
		if len(name) > 200 || names[name] {
			name = fmt.Sprintf("%.180s-p%d", name, i)
		}
		names[name] = true
		points = append(points, Point{Index: i, Name: name, Args: args})
	}
	return points, nil
}

// nameValue is a value as it appears in a point's name: letters, digits and . _ + - kept,
// every other character (a slash of a path, a comma of a list, a space) an underscore.
func nameValue(v string) string {
	b := []byte(v)
	for i, c := range b {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '+' || c == '-'
		if !ok {
			b[i] = '_'
		}
	}
	if s := string(b); s != "" && s != "." && s != ".." {
		return s
	}
	return "_"
}

// validName reports whether a point name read from a folder is one Points could have made:
// a file name in the folder, never a path out of it.
func validName(s string) bool {
	if s == "" || len(s) > 240 || strings.HasPrefix(s, ".") {
		return false
	}
	for _, c := range []byte(s) {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '+' || c == '-' || c == '='
		if !ok {
			return false
		}
	}
	return true
}
