package derived

import (
	"fmt"
	"math"
	"strings"

	"windtunnel/sessions"
	"windtunnel/sessions/runconfig"
	"windtunnel/tunnels"
)

// SlowFraction is where "slow" begins: a cell that passes at the end of its runs, but whose
// seed-mean curve first meets the pass line after this fraction of the runs' steps, is
// "slow" (Paper I's word for Mamba on binding), not ✓.
const SlowFraction = 0.5

// The verdicts of a primitives cell.
const (
	VerdictPass = "✓"
	VerdictFail = "✗"
	VerdictSlow = "slow"
)

// PaperLevel is a level Paper I prints for a cell, in the measure of the cell's primitive.
type PaperLevel struct {
	// Value is the printed number: bits for bijection and HMM, accuracy (0..1) for recall.
	Value float64 `json:"value"`
	// Note says where it is printed when that matters (the HMM table's version, "slow").
	Note string `json:"note,omitempty"`
}

// String is the level as the table shows it: "0.010 bits", "97.8 % (slow)".
func (l PaperLevel) String(p Primitive) string {
	s := fmt.Sprintf("%.3g bits", l.Value)
	if p.AtLeast() {
		s = fmt.Sprintf("%.1f %%", 100*l.Value)
	}
	if l.Note != "" {
		s += " (" + l.Note + ")"
	}
	return s
}

// PaperLevelOf is Paper I's printed level for a model on a task (issue 52 quotes them):
// bijection LSTM 0.009 and Mamba 0.010 bits; HMM transformer 0.049, Mamba 0.024, LSTM 0.411
// bits (the v3 table; the v1 table's K = 20 transformer is 7.5e-5); recall Mamba 97.8 %
// ("slow") and LSTM 0.5 % accuracy. False where the paper prints no number (its verdict,
// PaperVerdict, stands alone there).
func PaperLevelOf(task, model string) (PaperLevel, bool) {
	l, ok := map[[2]string]PaperLevel{
		{"bijection", "lstm"}:     {Value: 0.009},
		{"bijection", "mamba"}:    {Value: 0.010},
		{"hmm", "transformer"}:    {Value: 0.049, Note: "v3; v1 at K = 20: 7.5e-5"},
		{"hmm", "mamba"}:          {Value: 0.024, Note: "v3"},
		{"hmm", "lstm"}:           {Value: 0.411, Note: "v3"},
		{"recall", "mamba"}:       {Value: 0.978, Note: "slow"},
		{"recall", "lstm"}:        {Value: 0.005},
		{"recall", "transformer"}: {}, // printed as a pass without a level
	}[[2]string{task, model}]
	if ok && l.Value == 0 {
		return PaperLevel{}, false
	}
	return l, ok
}

// PrimitiveCell is a cell of the primitives table: the architecture table's cell with the
// step its seeds' mean first met the pass line, its verdict (✓, ✗ or slow), the
// context-free level and Paper I's.
type PrimitiveCell struct {
	Cell
	// Steps is the runs' planned steps; SlowAfter = SlowFraction·Steps.
	Steps     int `json:"steps"`
	SlowAfter int `json:"slow_after"`
	// PassStep is the first evaluated step at which the mean over seeds meets the pass line
	// (-1: never).
	PassStep int    `json:"pass_step"`
	Verdict  string `json:"verdict"`
	// ContextFree is the context-free predictor's level in the primitive's measure (nil where
	// unknown).
	ContextFree *float64    `json:"context_free,omitempty"`
	PaperLevel  *PaperLevel `json:"paper_level,omitempty"`
	// Simplex is the belief simplex of an hmm cell over its seeds' newest geometry snapshots
	// (nil when none holds one).
	Simplex *SimplexStat `json:"simplex,omitempty"`
	// Lengths is an hmm cell's length generalisation (LengthsOf; nil without one).
	Lengths []LengthStat `json:"lengths,omitempty"`
	// Curves are the seeds' metric curves (MetricCurve), in Seeds' order: what the verdict
	// read, and what the primitives figures draw (not in the JSON: the sessions hold them).
	Curves [][]StepValue `json:"-"`
}

// SimplexStat is the belief-simplex measurement (sessions.Simplex) of a cell's seeds: k-means
// purity, R² of the linear map to the posterior and the mean corner distance, each a Stat
// over the seeds whose newest snapshot holds one, at the snapshots' steps; the same of the
// untrained model (the seeds' SimplexInit: the claim's null, nil where none is recorded) and
// of the exact posterior itself (SimplexOptimum: the ceiling, whose corner distance sets the
// corner line); and whether each meets Paper I's claim (SimplexMeets on the means).
type SimplexStat struct {
	States     int   `json:"states"`
	Purity     Stat  `json:"purity"`
	R2         Stat  `json:"r2"`
	CornerDist Stat  `json:"corner_dist"`
	Steps      []int `json:"steps"`
	Meets      bool  `json:"meets"`
	// Init is the untrained model's measurement (its Init and Optimum unset).
	Init *SimplexStat `json:"init,omitempty"`
	// Optimum is the exact posterior's own measurement on the same sequences (nil: not
	// known, and the corner line is drawn from the corners themselves).
	Optimum *SimplexStat `json:"optimum,omitempty"`
	// SymbolPurity is the same clusters' purity against the observed symbol, over the seeds
	// that recorded it (nil: none did).
	SymbolPurity *Stat `json:"symbol_purity,omitempty"`
}

// Line is the corner line the measurement is judged by: SimplexCornerLine at the optimum's
// mean corner distance (the corners themselves when the optimum is not known).
func (s *SimplexStat) Line() float64 { return SimplexCornerLine(s.States, s.optimumCorner()) }

// Rule is the criterion the measurement is judged by, in words (SimplexRule).
func (s *SimplexStat) Rule() string { return SimplexRule(s.States, s.optimumCorner()) }

// optimumCorner is the optimum's mean corner distance, NaN when not known.
func (s *SimplexStat) optimumCorner() float64 {
	if s.Optimum == nil {
		return math.NaN()
	}
	return s.Optimum.CornerDist.Mean
}

// SimplexOf pools the simplex measurements of snapshots (nil entries skipped) taken at
// steps, with their untrained null and the exact posterior's measurement on each run's
// sequences (optima, by snapshot: SimplexOptimum; nil, or nil entries: not known); nil when
// no snapshot has one.
func SimplexOf(snaps []*sessions.Snapshot, steps []int, optima []*sessions.Simplex) *SimplexStat {
	k, p, r, d, used, ok := simplexValues(snaps, steps, func(s *sessions.Snapshot) *sessions.Simplex { return s.Simplex })
	if !ok {
		return nil
	}
	out := &SimplexStat{States: k, Purity: p, R2: r, CornerDist: d, Steps: used}
	var op []*sessions.Snapshot
	for i, sn := range snaps {
		if sn != nil && sn.Simplex != nil && i < len(optima) && optima[i] != nil {
			op = append(op, &sessions.Snapshot{Simplex: optima[i]})
		}
	}
	if k, p, r, d, used, ok := simplexValues(op, make([]int, len(op)), func(s *sessions.Snapshot) *sessions.Simplex { return s.Simplex }); ok {
		out.Optimum = &SimplexStat{States: k, Purity: p, R2: r, CornerDist: d, Steps: used}
		out.Optimum.Meets = SimplexMeets(p.Mean, d.Mean, k, d.Mean)
	}
	out.Meets = SimplexMeets(p.Mean, d.Mean, k, out.optimumCorner())
	out.SymbolPurity = symbolPurity(snaps, func(s *sessions.Snapshot) *sessions.Simplex { return s.Simplex })
	if k, p, r, d, used, ok := simplexValues(snaps, steps, func(s *sessions.Snapshot) *sessions.Simplex { return s.SimplexInit }); ok {
		out.Init = &SimplexStat{States: k, Purity: p, R2: r, CornerDist: d, Steps: used, Meets: SimplexMeets(p.Mean, d.Mean, k, out.optimumCorner()),
			SymbolPurity: symbolPurity(snaps, func(s *sessions.Snapshot) *sessions.Simplex { return s.SimplexInit })}
	}
	return out
}

// symbolPurity pools the clusters' purity against the observed symbol over the snapshots
// whose measurement (get) recorded it; nil when none did.
func symbolPurity(snaps []*sessions.Snapshot, get func(*sessions.Snapshot) *sessions.Simplex) *Stat {
	var sym []float64
	for _, sn := range snaps {
		if sn != nil && get(sn) != nil && get(sn).SymbolPurity > 0 {
			sym = append(sym, float64(get(sn).SymbolPurity))
		}
	}
	if len(sym) == 0 {
		return nil
	}
	st := StatOf(sym)
	return &st
}

// MetricCurve is a primitive's metric (bit error (a), or accuracy for recall) at each
// whole-model evaluation of evals, in step order.
func MetricCurve(evals []sessions.Record, p Primitive) []StepValue {
	var out []StepValue
	for _, r := range evals {
		if r.Eval == nil {
			continue
		}
		v := r.Eval.BitErrorPosition
		if p.AtLeast() {
			v = r.Eval.Accuracy
		}
		out = append(out, StepValue{Step: r.Step, V: v})
	}
	return out
}

// PrimitiveCellOf judges a cell: curves are its seeds' metric curves (MetricCurve), steps
// the runs' planned steps, contextFree the context-free level (NaN: unknown). ✗ when the
// mean over seeds fails the pass line at the end (Cell.Pass); slow when it passes but the
// seed-mean curve (SeedBand, at steps every seed covers) first meets the line after
// SlowFraction·steps; else ✓.
func PrimitiveCellOf(c Cell, curves [][]StepValue, steps int, contextFree float64) PrimitiveCell {
	pc := PrimitiveCell{Cell: c, Steps: steps, SlowAfter: int(math.Round(SlowFraction * float64(steps))), PassStep: -1, Curves: curves}
	for _, b := range SeedBand(curves) {
		if b.N == len(curves) && c.Primitive.Meets(b.Mean) {
			pc.PassStep = b.Step
			break
		}
	}
	switch {
	case !c.Pass:
		pc.Verdict = VerdictFail
	case pc.PassStep > pc.SlowAfter:
		pc.Verdict = VerdictSlow
	default:
		pc.Verdict = VerdictPass
	}
	if !math.IsNaN(contextFree) {
		pc.ContextFree = &contextFree
	}
	if l, ok := PaperLevelOf(c.Task, c.Model); ok {
		pc.PaperLevel = &l
	}
	return pc
}

// PaperWord is Paper I's verdict for a cell in words: "pass", "fail", "slow" (Mamba on
// recall: 97.8 % accuracy, learnt slowly), "" where the paper has no row for the model.
func PaperWord(task, model string) string {
	switch m := paperMark(task, model); m {
	case VerdictPass:
		return "pass"
	case VerdictFail:
		return "fail"
	case VerdictSlow:
		return "slow"
	}
	return ""
}

// paperMark is Paper I's verdict in the table's words: ✓, ✗, or slow for Mamba on recall.
func paperMark(task, model string) string {
	switch v := PaperVerdict(task, model); {
	case task == "recall" && model == "mamba":
		return VerdictSlow
	case v == "pass":
		return VerdictPass
	case v == "fail":
		return VerdictFail
	}
	return "—"
}

// FormatPrimitives renders the cells as a markdown table (one row a cell, in order) with
// the verdict rule under it.
func FormatPrimitives(cells []PrimitiveCell) string {
	var b strings.Builder
	b.WriteString("| primitive | task | model | params | seeds | bit error (a) | bit error (b) | KL bits | accuracy | first pass (step) | verdict | context-free | paper | paper verdict |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, c := range cells {
		pass := "never"
		if c.PassStep >= 0 {
			pass = fmt.Sprintf("%d of %d", c.PassStep, c.Steps)
		}
		cf, paper := "—", "—"
		if c.ContextFree != nil {
			cf = fmt.Sprintf("%.3f", *c.ContextFree)
			if c.Primitive.AtLeast() {
				cf = fmt.Sprintf("%.1f %%", 100**c.ContextFree)
			}
		}
		if c.PaperLevel != nil {
			paper = c.PaperLevel.String(c.Primitive)
		}
		model := c.Model
		if c.Config != "" {
			model += " [" + c.Config + "]"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %s | %s | %s | %s | %s | %s | %s %d/%d | %s | %s | %s |\n",
			c.Primitive.Name, c.Task, model, c.Params, SeedsLabel(c.Seeds), c.BitErrorA.String(4), c.BitErrorB.String(4),
			c.KL.String(4), c.Accuracy.String(3), pass, c.Verdict, c.SeedsPassed, len(c.Seeds), cf, paper, paperMark(c.Task, c.Model))
	}
	b.WriteString(formatLengths(cells))
	b.WriteString(formatSimplex(cells))
	fmt.Fprintf(&b, "\nVerdict (on the mean over seeds; then the seeds that pass alone): %s passes the line at the end and the seed mean first met it by %g of the steps; %s passes at the end but met it only later; %s fails at the end. Lines: %s on bijection and hmm, %s on recall.\n",
		VerdictPass, SlowFraction, VerdictSlow, VerdictFail, Primitives()[0].Rule(), Primitives()[2].Rule())
	return b.String()
}

// ContextFreeLevel is the context-free predictor's level for a run of cfg in its
// primitive's measure: bijection bit error (ContextFreeBits of V), recall accuracy 1/Kv (a
// uniform guess over the values: the position alone says nothing of which is bound), HMM bit
// error (HMMContextFree: estimated, about a second); NaN where it cannot be had.
func ContextFreeLevel(cfg runconfig.Config) float64 {
	t := cfg.Tunnel.WithDefaults()
	switch cfg.Task {
	case "bijection":
		return ContextFreeBits(t.V)
	case "recall":
		return 1 / float64(t.Values)
	case "hmm":
		tn, err := tunnels.New(cfg.Task, cfg.Tunnel)
		if err != nil {
			return math.NaN()
		}
		h, ok := tn.(*tunnels.HMM)
		if !ok {
			return math.NaN()
		}
		a, _, err := HMMContextFree(h)
		if err != nil {
			return math.NaN()
		}
		return a
	}
	return math.NaN()
}

// PrimitiveTable is the primitives table of finished runs: the architecture table's cells
// (Table, in the order tasks × models), each judged by PrimitiveCellOf on its seeds'
// evaluation curves, read back from their sessions.
func PrimitiveTable(runs []RunScore, tasks, models []string) ([]PrimitiveCell, error) {
	var out []PrimitiveCell
	for _, c := range Table(runs, tasks, models) {
		var curves [][]StepValue
		var snaps []*sessions.Snapshot
		var snapSteps []int
		var optima []*sessions.Simplex
		var lengths [][]sessions.LengthScore
		steps, cf := 0, math.NaN()
		for _, path := range c.Sessions {
			dr, err := ReadRun(path)
			if err != nil {
				return nil, err
			}
			cfg, err := SessionConfig(dr.Meta)
			if err != nil {
				return nil, fmt.Errorf("derived: primitives: %s: %w", path, err)
			}
			steps = max(steps, cfg.Steps)
			if math.IsNaN(cf) { // one level a cell: its runs share a tunnel
				cf = ContextFreeLevel(cfg)
			}
			curves = append(curves, MetricCurve(dr.Evals, c.Primitive))
			snaps, snapSteps = append(snaps, dr.Snapshot), append(snapSteps, dr.SnapshotStep)
			var opt *sessions.Simplex
			if dr.Snapshot != nil && dr.Snapshot.Simplex != nil {
				if opt, err = SimplexOptimum(cfg, 0); err != nil {
					return nil, fmt.Errorf("derived: primitives: %s: %w", path, err)
				}
			}
			optima = append(optima, opt)
			if last, ok := dr.LastEval(); ok && len(last.Eval.Lengths) > 0 {
				lengths = append(lengths, last.Eval.Lengths)
			}
		}
		pc := PrimitiveCellOf(c, curves, steps, cf)
		pc.Simplex = SimplexOf(snaps, snapSteps, optima)
		pc.Lengths = LengthsOf(lengths)
		out = append(out, pc)
	}
	return out, nil
}

// UntrainedCells names the planned cells (tasks × models) not among cells, a task whose
// every model is missing once ("recall (every model)"), "" when none is.
func UntrainedCells(cells []PrimitiveCell, tasks, models []string) string {
	have := map[[2]string]bool{}
	for _, c := range cells {
		have[[2]string{c.Task, c.Model}] = true
	}
	var out []string
	for _, t := range tasks {
		var miss []string
		for _, m := range models {
			if !have[[2]string{t, m}] {
				miss = append(miss, t+" "+m)
			}
		}
		if len(miss) == len(models) && len(models) > 1 {
			miss = []string{t + " (every model)"}
		}
		out = append(out, miss...)
	}
	return strings.Join(out, ", ")
}

// formatSimplex is the belief-simplex table of the cells that have one, under Paper I's
// claim, each with its untrained null and the three-outcome verdict (SimplexOutcome); ""
// when none has.
func formatSimplex(cells []PrimitiveCell) string {
	var b strings.Builder
	for _, c := range cells {
		if c.Simplex == nil {
			continue
		}
		if b.Len() == 0 {
			fmt.Fprintf(&b, "\nBelief simplex (final layer at the observation positions, each seed's newest snapshot; untrained: the same model rebuilt from its seed; exact posterior: the posterior itself on the same sequences, the Bayes-optimal representation). Paper I: Mamba's final layer forms one cluster per hidden state, at the simplex's corners; met when k-means purity ≥ %g and the mean corner distance is at most the row's line, halfway from the exact posterior's own clusters to the simplex's centre (%.3f from a corner at k = %d).\n\n", SimplexPurity, math.Sqrt(1-1/float64(c.Simplex.States)), c.Simplex.States)
			b.WriteString("| task | model | seeds | steps | k | k-means purity | R² to the posterior | corner distance | corner line | untrained: purity / R² / corner distance | exact posterior: purity / corner distance | claim | outcome | purity against the observed symbol |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
		}
		sm := c.Simplex
		steps := make([]string, len(sm.Steps))
		for i, s := range sm.Steps {
			steps[i] = fmt.Sprint(s)
		}
		null := "—"
		if sm.Init != nil {
			null = fmt.Sprintf("%.3f / %.3f / %.3f", sm.Init.Purity.Mean, sm.Init.R2.Mean, sm.Init.CornerDist.Mean)
		}
		opt := "—"
		if sm.Optimum != nil {
			opt = fmt.Sprintf("%.3f / %.3f", sm.Optimum.Purity.Mean, sm.Optimum.CornerDist.Mean)
		}
		claim := "not met"
		if sm.Meets {
			claim = "met"
		}
		sym := "—"
		if sm.SymbolPurity != nil {
			sym = sm.SymbolPurity.String(3)
			if sm.Init != nil && sm.Init.SymbolPurity != nil {
				sym += fmt.Sprintf(" (untrained %.3f)", sm.Init.SymbolPurity.Mean)
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %d | %s | %s | %s | %.3f | %s | %s | %s | %s | %s |\n", c.Task, c.Model, len(sm.Steps), strings.Join(steps, ", "),
			sm.States, sm.Purity.String(3), sm.R2.String(3), sm.CornerDist.String(3), sm.Line(), null, opt, claim, SimplexOutcome(sm), sym)
	}
	return b.String()
}

// SimplexOutcome is the three-outcome verdict (OutcomeOf) of Paper I's simplex claim on a
// cell's measurement: the trained model's means against the criterion (SimplexMeets), the
// untrained same-shape model as the null (unknown when not recorded).
func SimplexOutcome(s *SimplexStat) string {
	null := Null{What: "untrained model (not recorded)"}
	if s.Init != nil {
		null = Null{Known: true, Meets: s.Init.Meets, What: "untrained model"}
	}
	o, _ := OutcomeOf(s.Meets, []Null{null})
	return o
}
