package derived

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"windtunnel/diagnostics"
)

// Stat is a mean and spread over seeds.
type Stat struct {
	Mean float64 `json:"mean"`
	// SD is the sample standard deviation over seeds (0 for one seed).
	SD     float64   `json:"sd"`
	Values []float64 `json:"values"`
}

// StatOf summarises values.
func StatOf(xs []float64) Stat {
	m, sd := MeanSD(xs)
	return Stat{Mean: m, SD: sd, Values: append([]float64(nil), xs...)}
}

// String prints the mean ± sd with the given precision.
func (s Stat) String(prec int) string {
	if len(s.Values) < 2 {
		return fmt.Sprintf("%.*f", prec, s.Mean)
	}
	return fmt.Sprintf("%.*f±%.*f", prec, s.Mean, prec, s.SD)
}

// RunScore is the outcome of one compared run.
type RunScore struct {
	Task   string `json:"task"`
	Model  string `json:"model"`
	Seed   uint64 `json:"seed"`
	Params int    `json:"params"`
	Steps  int    `json:"steps"`
	// WallS is the run's wall time without its pauses (ActiveWall).
	WallS   float64            `json:"wall_s"`
	Scores  diagnostics.Scores `json:"-"`
	Session string             `json:"session"`
	// Key is the run's configuration key (ConfigKey): runs of one task and model
	// with different keys trained different things and fall in separate cells.
	Key string `json:"-"`
}

// Cell is one (task, model) entry of the comparison table.
type Cell struct {
	Task      string    `json:"task"`
	Model     string    `json:"model"`
	Primitive Primitive `json:"primitive"`
	Params    int       `json:"params"`
	Seeds     []uint64  `json:"seeds"`
	BitErrorA Stat      `json:"bit_error_position"`
	BitErrorB Stat      `json:"bit_error_sample"`
	KL        Stat      `json:"kl_bits"`
	Accuracy  Stat      `json:"accuracy"`
	WallS     Stat      `json:"wall_s"`
	// Pass says whether the mean of the primitive's metric meets its threshold.
	Pass bool `json:"pass"`
	// SeedsPassed counts the seeds whose run alone meets the threshold.
	SeedsPassed int `json:"seeds_passed"`
	// Paper is Paper I's verdict for the cell ("pass", "fail", or "" where it has none).
	Paper    string   `json:"paper,omitempty"`
	Sessions []string `json:"sessions"`
	// Copies are the sessions left out as copies of a replicate already counted (the same
	// configuration and seed, ReplicateKey), each naming the session counted and whether
	// their results disagree.
	Copies []string `json:"copies,omitempty"`
	// Config names what tells this cell's configuration from the other cells of its task
	// and model (Labels, e.g. "steps 3000"); "" when the task and model have one.
	Config string `json:"config,omitempty"`
}

// Table gathers runs into cells, in the order tasks × models, one cell per configuration
// (RunScore.Key, the rule of sessions/derived) of a task and model, in the order of their
// first run: seeds of one configuration are pooled, different configurations never are.
func Table(runs []RunScore, tasks, models []string) []Cell {
	var cells []Cell
	for _, task := range tasks {
		for _, model := range models {
			var rs []RunScore
			for _, r := range runs {
				if r.Task == task && r.Model == model {
					rs = append(rs, r)
				}
			}
			cells = append(cells, configCells(rs, task, model)...)
		}
	}
	return cells
}

// configCells splits the runs of one task and model by configuration into cells.
func configCells(runs []RunScore, task, model string) []Cell {
	keys := make([]string, len(runs))
	for i, r := range runs {
		keys[i] = r.Key
	}
	groups := GroupIndices(keys)
	labels := make([]string, len(groups))
	if len(groups) > 1 {
		cfgs := make([]json.RawMessage, len(groups))
		for j, g := range groups {
			cfgs[j] = json.RawMessage(keys[g[0]])
		}
		if ls, err := Labels(cfgs); err == nil {
			labels = ls
		} else {
			for j := range labels {
				labels[j] = fmt.Sprintf("configuration %d", j+1) // keys not set from a configuration
			}
		}
	}
	var cells []Cell
	for j, g := range groups {
		members, copies := countOnce(runs, g)
		c := cellOf(members, task, model)
		c.Config, c.Copies = labels[j], copies
		cells = append(cells, c)
	}
	return cells
}

// countOnce is the runs at indices g (one configuration) with each replicate (ReplicateKey)
// counted once, its first copy, and a note for each other copy left out.
func countOnce(runs []RunScore, g []int) (members []RunScore, copies []string) {
	keys, seeds := make([]string, len(g)), make([]uint64, len(g))
	for k, i := range g {
		keys[k], seeds[k] = runs[i].Key, runs[i].Seed
	}
	for _, rep := range Replicates(keys, seeds) {
		first := runs[g[rep[0]]]
		members = append(members, first)
		for _, k := range rep[1:] {
			c := runs[g[k]]
			note := fmt.Sprintf("%s: a copy of seed %d (%s), not counted again", c.Session, c.Seed, first.Session)
			if d := CopiesDisagree(first, c); d != "" {
				note += "; the copies disagree: " + d
			}
			copies = append(copies, note)
		}
	}
	return members, copies
}

// cellOf summarises the runs of one configuration of a task and model.
func cellOf(runs []RunScore, task, model string) Cell {
	prim, _ := PrimitiveOf(task)
	c := Cell{Task: task, Model: model, Primitive: prim}
	var a, b, kl, acc, wall []float64
	c.Paper = PaperVerdict(task, model)
	for _, r := range runs {
		if prim.Passes(r.Scores) {
			c.SeedsPassed++
		}
		c.Seeds = append(c.Seeds, r.Seed)
		c.Params = r.Params
		c.Sessions = append(c.Sessions, r.Session)
		a = append(a, r.Scores.BitErrorPosition)
		b = append(b, r.Scores.BitErrorSample)
		kl = append(kl, r.Scores.KLBits)
		acc = append(acc, r.Scores.Accuracy)
		wall = append(wall, r.WallS)
	}
	c.BitErrorA, c.BitErrorB, c.KL, c.Accuracy, c.WallS = StatOf(a), StatOf(b), StatOf(kl), StatOf(acc), StatOf(wall)
	c.Pass = prim.Passes(diagnostics.Scores{BitErrorPosition: c.BitErrorA.Mean, Accuracy: c.Accuracy.Mean})
	return c
}

// FormatTable renders cells as a text table followed by the architecture summary (primitives
// passed per model), the layout of Paper I's table. Its columns are as wide as their
// contents (text/tabwriter) and each task's primitive and pass criterion is named once under
// the table, so a table of every task and model fits about 120 columns (it was 219).
func FormatTable(cells []Cell) string {
	var b strings.Builder
	_, common := TableSeeds(cells)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "task\tmodel\tparams\tbit error (a)\tbit error (b)*\tKL bits\taccuracy\twall s\tverdict\tpaper\t")
	var taskOrder []string
	prims := map[string]string{}
	for _, c := range cells {
		crit := fmt.Sprintf("≤ %.2f bits (a)", c.Primitive.Threshold)
		if c.Primitive.Metric == "accuracy" {
			crit = fmt.Sprintf("accuracy ≥ %.2f", c.Primitive.Threshold)
		}
		if _, ok := prims[c.Task]; !ok {
			taskOrder = append(taskOrder, c.Task)
			prims[c.Task] = fmt.Sprintf("%s (%s)", c.Primitive.Name, crit)
		}
		verdict := "FAIL"
		if c.Pass {
			verdict = "pass"
		}
		verdict += fmt.Sprintf(" %d/%d", c.SeedsPassed, len(c.Seeds))
		paper := "-"
		switch {
		case c.Paper == "":
		case (c.Paper == "pass") == c.Pass:
			paper = c.Paper + " ✓"
		default:
			paper = c.Paper + " ✗"
		}
		var which []string // what tells the row from the others: its configuration, its seeds
		if c.Config != "" {
			which = append(which, c.Config)
		}
		if !common {
			which = append(which, "seeds "+SeedsLabel(c.Seeds))
		}
		suffix := ""
		if len(which) > 0 {
			suffix = "[" + strings.Join(which, "; ") + "]"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.Task, c.Model, c.Params,
			c.BitErrorA.String(4), c.BitErrorB.String(4), c.KL.String(4), c.Accuracy.String(3), c.WallS.String(0),
			verdict, paper, suffix)
	}
	tw.Flush()
	table := b.String() // without the padding tabwriter leaves at the ends of lines
	b.Reset()
	for _, l := range strings.SplitAfter(table, "\n") {
		if l != "" {
			b.WriteString(strings.TrimRight(l, " \n") + "\n")
		}
	}
	b.WriteString("\nprimitives:")
	for _, t := range taskOrder {
		fmt.Fprintf(&b, "\n  %s: %s", t, prims[t])
	}
	b.WriteString("\n")
	// Each model is counted over the cells it has (a model measured on one task passes k of
	// 1, not k of every task in the table); a task measured in several configurations counts
	// each, and the count says so.
	passes, tasks, several := map[string]int{}, map[string]int{}, map[string]bool{}
	var order []string
	for _, c := range cells {
		if _, ok := passes[c.Model]; !ok {
			order = append(order, c.Model)
			passes[c.Model] = 0
		}
		tasks[c.Model]++
		several[c.Model] = several[c.Model] || c.Config != ""
		if c.Pass {
			passes[c.Model]++
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return passes[order[i]] > passes[order[j]] })
	b.WriteString("\nprimitives passed:")
	for _, m := range order {
		fmt.Fprintf(&b, "  %s %d/%d", m, passes[m], tasks[m])
		if several[m] {
			b.WriteString(" configurations")
		}
	}
	for _, c := range cells {
		for _, cp := range c.Copies {
			fmt.Fprintf(&b, "\ncopy left out (%s %s): %s", c.Task, c.Model, cp)
		}
	}
	note := "(a) is the per-position bit error, the paper's headline; (b)* the per-sample one, what the authors' code reports; verdict: on the mean over seeds, then seeds passing; paper: Paper I's verdict, ✓ where the bench agrees"
	b.WriteString("\n" + strings.NewReplacer("; verdict:", ";\nverdict:", "; paper:", ";\npaper:").Replace(note) + "\n") // lines of ≤ 120 columns
	return b.String()
}

// SeedsLabel describes a set of seeds: "3", "1..3" for a run of consecutive seeds, else
// "1, 4, 7" (ascending).
func SeedsLabel(seeds []uint64) string {
	s := append([]uint64(nil), seeds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s) == 0 {
		return "none"
	}
	run := true
	for i := 1; i < len(s); i++ {
		run = run && s[i] == s[i-1]+1
	}
	if run && len(s) > 1 {
		return fmt.Sprintf("%d..%d", s[0], s[len(s)-1])
	}
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = strconv.FormatUint(v, 10)
	}
	return strings.Join(parts, ", ")
}

// TableSeeds is the seeds every cell has (SeedsLabel) and true, or "per row" and false
// when the cells' seeds differ.
func TableSeeds(cells []Cell) (string, bool) {
	if len(cells) == 0 {
		return "none", true
	}
	first := SeedsLabel(cells[0].Seeds)
	for _, c := range cells[1:] {
		if SeedsLabel(c.Seeds) != first {
			return "per row", false
		}
	}
	return first, true
}

// Ordered returns a copy of names sorted by their index in order (names not in order last,
// as found): tasks in tunnels.Names() order, models in arch.Kinds() order.
func Ordered(names, order []string) []string {
	rank := func(s string) int {
		for i, o := range order {
			if o == s {
				return i
			}
		}
		return len(order)
	}
	out := append([]string(nil), names...)
	sort.SliceStable(out, func(i, j int) bool { return rank(out[i]) < rank(out[j]) })
	return out
}
