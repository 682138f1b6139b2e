package sweep

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"windtunnel/sessions"
)

// MaxPoints bounds a grid: Slurm's default MaxArraySize allows array indices 0..1000.
const MaxPoints = 1000

// Axis is one swept flag of `windtunnel run` and its values, in the order given.
type Axis struct {
	// Flag is the run flag's name without dashes ("lr", "width", "task").
	Flag string `json:"flag"`
	// Values are the flag's values as run parses them.
	Values []string `json:"values"`
	// Probabilities, in a random search, are each value's chance to be drawn (nil: alike).
	Probabilities []float64 `json:"probabilities,omitempty"`
	// Dist, in a random search, is what the value is drawn from instead of Values.
	Dist *Distribution `json:"distribution,omitempty"`
}

// Point is one grid point: its index (the Slurm array index), a name that says which point it
// is, the run flags that make it and its planned steps.
type Point struct {
	Index int      `json:"index"`
	Name  string   `json:"name"`
	Args  []string `json:"args"`
	// Steps is the run's planned length (its resolved configuration's), for the ETA.
	Steps int `json:"steps"`
	// Work is a step's cost beside other points' (parameters × tokens a step, StepWork),
	// for the ETA; 0 where unknown (a manifest written before it): every step alike.
	Work float64 `json:"work,omitempty"`
}

// Session is the point's session file name (Name + sessions.Suffix).
func (p Point) Session() string { return p.Name + sessions.Suffix }

// DefaultDir is the folder of a sweep of this kind ("sweep", "compare",
// "primitives-<budget>") started at now when none is named: ./runs/<kind>-<time>.
func DefaultDir(kind string, now time.Time) string {
	return filepath.Join(sessions.RunsDir, kind+"-"+sessions.Stamp(now))
}

// engineFlags are the run flags a sweep sets itself for every point; a grid may not set them.
var engineFlags = map[string]string{
	"out":         "each point's session is DIR/<point>" + sessions.Suffix,
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
	// Random makes it a random search (nil: every combination of the axes' values).
	Random *Random `json:"random,omitempty"`
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

// Set adds an axis, or replaces the axis of the same flag where it stands (a command-line
// --set overrides a sweep file's axis, its values or distribution, as Hydra's overrides do).
func (g *Grid) Set(a Axis) {
	for i := range g.Axes {
		if g.Axes[i].Flag == a.Flag {
			g.Axes[i] = a
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
// of more than one value (or drawn from a distribution) and for the seed (a setting common
// to all points is left out). A random search (g.Random) crosses the task, model and seed
// axes as a grid does and draws g.Random.Count configurations of the others (draws), which
// stand where the first of them stands. A value listed twice on one axis is an error, and so
// is a grid of no points or of more than MaxPoints.
func (g *Grid) Points() ([]Point, error) {
	if len(g.Axes) == 0 {
		return nil, fmt.Errorf("sweep: empty grid: nothing to sweep")
	}
	for _, a := range g.Axes {
		if err := g.checkAxis(a); err != nil {
			return nil, err
		}
	}
	// The columns whose rows are combined: an axis each, or the drawn axes together.
	type column struct {
		axes []Axis
		rows [][]string
	}
	var cols []column
	var drawn []Axis
	at := -1
	for _, a := range g.Axes {
		if g.Random != nil && !crossed(a.Flag) {
			if at < 0 {
				at = len(cols)
				cols = append(cols, column{})
			}
			drawn = append(drawn, a)
			continue
		}
		c := column{axes: []Axis{a}}
		for _, v := range a.Values {
			c.rows = append(c.rows, []string{v})
		}
		cols = append(cols, c)
	}
	if at >= 0 {
		rows, err := g.draws(drawn)
		if err != nil {
			return nil, err
		}
		cols[at] = column{axes: drawn, rows: rows}
	}
	n := 1
	for _, c := range cols {
		if n *= len(c.rows); n > MaxPoints {
			return nil, fmt.Errorf("sweep: the grid has more than %d points (Slurm's default MaxArraySize)", MaxPoints)
		}
	}
	points := make([]Point, 0, n)
	names := map[string]bool{}
	idx := make([]int, len(cols))
	for i := 0; i < n; i++ {
		rem := i
		for k := len(cols) - 1; k >= 0; k-- {
			idx[k] = rem % len(cols[k].rows)
			rem /= len(cols[k].rows)
		}
		var args, parts []string
		for k, c := range cols {
			for j, a := range c.axes {
				v := c.rows[idx[k]][j]
				args = append(args, "--"+a.Flag+"="+v)
				switch {
				case a.Flag == "task" || a.Flag == "model":
					parts = append(parts, nameValue(v))
				case a.Flag == "seed" || len(a.Values) > 1 || a.Dist != nil:
					parts = append(parts, a.Flag+"="+nameValue(v))
				}
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

// checkAxis rejects an axis Points cannot expand: a flag a grid may not set, no values, a
// value listed twice, probabilities that do not match its values, a distribution it cannot
// draw from or one outside a random search.
func (g *Grid) checkAxis(a Axis) error {
	if err := checkFlag(a.Flag); err != nil {
		return err
	}
	if a.Dist != nil {
		switch {
		case g.Random == nil:
			return fmt.Errorf("sweep: --%s: a distribution (%s) in a grid sweep: only method random draws from one", a.Flag, a.Dist.Kind)
		case crossed(a.Flag):
			return fmt.Errorf("sweep: --%s: a distribution for %s: a random search trains every %s listed (give values)", a.Flag, a.Flag, a.Flag)
		}
		if err := a.Dist.check(); err != nil {
			return fmt.Errorf("sweep: --%s: %w", a.Flag, err)
		}
		return nil
	}
	if len(a.Values) == 0 {
		return fmt.Errorf("sweep: --%s has no values: empty grid", a.Flag)
	}
	seen := map[string]bool{}
	for _, v := range a.Values {
		if seen[v] {
			return fmt.Errorf("sweep: --%s lists %q twice", a.Flag, v)
		}
		seen[v] = true
	}
	if a.Probabilities != nil {
		sum := 0.0
		for _, p := range a.Probabilities {
			if !(p >= 0) {
				return fmt.Errorf("sweep: --%s: probability %g: want ≥ 0", a.Flag, p)
			}
			sum += p
		}
		switch {
		case g.Random == nil:
			return fmt.Errorf("sweep: --%s: probabilities in a grid sweep: only method random draws by them", a.Flag)
		case len(a.Probabilities) != len(a.Values):
			return fmt.Errorf("sweep: --%s: %d probabilities for %d values", a.Flag, len(a.Probabilities), len(a.Values))
		case math.Abs(sum-1) > 1e-6:
			return fmt.Errorf("sweep: --%s: probabilities sum to %g, want 1", a.Flag, sum)
		}
	}
	return nil
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
