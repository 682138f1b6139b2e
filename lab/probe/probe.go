package probe

import (
	"fmt"
	"math"
	"strings"
	"windtunnel/diagnostics"

	"windtunnel/lab"
	"windtunnel/sessions"
	"windtunnel/sessions/derived"
)

// Report is probe's result: the whole-model evaluation and the geometry snapshot of a
// checkpoint in the shapes a session records them (sessions.Eval, embedded, and
// sessions.Snapshot, whose JSON names they keep), with the frame history and the authors'
// frame statistic read from the run.
type Report struct {
	Path  string `json:"session"`
	Task  string `json:"task"`
	Model string `json:"model"`
	Step  int    `json:"step"`
	// ProbeN is the size of the probe set the scores are over; GeometryN the number of
	// probe sequences the geometry and the ablation table use.
	ProbeN    int `json:"probe_n"`
	GeometryN int `json:"geometry_n"`
	// Eval is the whole model's scores on the probe set at this checkpoint (an hmm run's
	// length-generalisation curve in its Lengths).
	Eval sessions.Eval `json:"eval"`
	// Geometry is the snapshot taken at this checkpoint, as a run records one.
	Geometry *sessions.Snapshot `json:"geometry"`
	// Frame is the recorded frame-precision history up to this step (FrameStep: the
	// snapshot it was recorded with); nil when the run took no snapshots.
	Frame     *sessions.Frame `json:"frame,omitempty"`
	FrameStep int             `json:"frame_step,omitempty"`
	// FrameRatio is the authors' frame statistic at every recorded snapshot of the run (all
	// of them, not only those up to Step: the final frame is the run's last snapshot's).
	FrameRatio *derived.FrameRatios `json:"frame_ratio,omitempty"`
	// JLensRatio is the authors' frame statistic at this checkpoint, per site of
	// Geometry.JLens (the J-lens overlap with the frame of its own embeddings ÷ null).
	JLensRatio []sessions.Num `json:"jlens_ratio,omitempty"`
	// JLensMean is JLensRatio's mean over the sites (what the authors report).
	JLensMean sessions.Num `json:"jlens_ratio_mean,omitempty"`
	// Dissociation is the pre-registered rule on the run's recorded snapshots (FrameRatio)
	// with bit error (b) at each (nil without them).
	Dissociation *derived.Dissociation `json:"dissociation,omitempty"`
}

// Check refuses what Session does not probe, naming probe's flag: a step below -1 (-1:
// the last checkpoint), a geometryN outside 3..4096 (0: the run's), a jlensN outside
// 0..4096 (0: the run's).
func Check(step, geometryN, jlensN int) error {
	switch {
	case step < -1:
		return fmt.Errorf("--step %d: want a step ≥ 0 (or -1, or no --step: the last checkpoint)", step)
	case geometryN != 0 && (geometryN < 3 || geometryN > 4096):
		return fmt.Errorf("--geometry-n %d out of range: want 3..4096", geometryN)
	case jlensN < 0 || jlensN > 4096:
		return fmt.Errorf("--jlens-n %d out of range: want 1..4096 (0: the run's)", jlensN)
	}
	return nil
}

// Session loads the checkpoint at or before step (-1: the last) of the session at path,
// rebuilds its model from the session's configuration (with geometryN probe sequences for
// the geometry, 0: the run's, or 64, and the BLAS blas) and computes the report: the
// whole-model evaluation, the lengths an hmm run is scored at, the geometry snapshot and
// the frame history and statistic the run recorded.
func Session(path string, step, geometryN, jlensN int, blas string) (*Report, error) {
	r, cfg, ck, err := openCheckpoint(path, step)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if jlensN > 0 {
		cfg.JLensN = jlensN
	}
	if geometryN > 0 {
		cfg.GeometryN = geometryN
	} else if cfg.GeometryN == 0 {
		cfg.GeometryN = 64
	}
	cfg.BLAS = blas
	tr, err := lab.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("probe %s: %w", path, err)
	}
	defer tr.Close()
	if err := tr.LoadParams(ck); err != nil {
		return nil, fmt.Errorf("probe %s: %w", path, err)
	}
	s, err := tr.Evaluate()
	if err != nil {
		return nil, fmt.Errorf("probe %s: %w", path, err)
	}
	lengths, err := tr.EvaluateLengths(s)
	if err != nil {
		return nil, fmt.Errorf("probe %s: %w", path, err)
	}
	sn := &sessions.Snapshot{}
	if err := tr.Geometry(sn, s, false); err != nil {
		return nil, fmt.Errorf("probe %s: %w", path, err)
	}
	ev := lab.EvalRecord(s)
	ev.Lengths = lengths
	rep := &Report{Path: path, Task: cfg.Task, Model: cfg.Model, Step: ck.Step, ProbeN: cfg.ProbeSize,
		GeometryN: sn.ProbeN, Eval: *ev, Geometry: sn}
	if j := sn.JLens; j != nil {
		for _, o := range j.Overlap {
			rep.JLensRatio = append(rep.JLensRatio, o/j.Null)
		}
		rep.JLensMean = sessions.Num(derived.MeanNum(rep.JLensRatio))
	}
	// The recorded frame-precision history up to this step, when the run took snapshots.
	if rec, at, err := r.Snapshot(ck.Step); err == nil && rec != nil && rec.Frame != nil {
		rep.Frame, rep.FrameStep = rec.Frame, at
	}
	if rep.FrameRatio, err = derived.ReadFrameRatios(r); err != nil {
		return nil, fmt.Errorf("probe %s: %w", path, err)
	}
	if rep.FrameRatio != nil {
		evs, err := r.Evals(-1, 0)
		if err != nil {
			return nil, fmt.Errorf("probe %s: %w", path, err)
		}
		whole := sessions.WholeEvals(evs)
		d := rep.FrameRatio.Dissociation(func(step int) float64 { return derived.BitErrorSampleAt(whole, step) })
		rep.Dissociation = &d
	}
	return rep, nil
}

// noCheckpointError says why a session has no checkpoint to probe at step (-1: the last):
// it has none at all (the run saved none yet: every checkpointEvery steps and at its end),
// or none that early (the first is later).
func noCheckpointError(path string, step int, cks []int, checkpointEvery int) error {
	if len(cks) == 0 {
		when := "at its end"
		if checkpointEvery > 0 {
			when = fmt.Sprintf("every %d steps (--checkpoint-every) and at its end", checkpointEvery)
		}
		return fmt.Errorf("probe: %s has no checkpoint: the run saved none (it saves one %s; a run stopped before the first has none)", path, when)
	}
	return fmt.Errorf("probe: %s has no checkpoint at or before step %d: the first is at step %d (checkpoints at %s)", path, step, cks[0], strings.Trim(fmt.Sprint(cks), "[]"))
}

// Text renders the report for a terminal.
func (p *Report) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s %s at step %d (probe %d sequences, geometry on %d)\n", p.Path, p.Task, p.Model, p.Step, p.ProbeN, p.GeometryN)
	fmt.Fprintf(&b, "bit error (a) %.4f  (b) %.4f  KL %.4f bits  accuracy %.3f\n", p.Eval.BitErrorPosition, p.Eval.BitErrorSample, p.Eval.KLBits, p.Eval.Accuracy)
	b.WriteString(lengthsText(p.Eval.Lengths))
	g := p.Geometry
	if g == nil {
		g = &sessions.Snapshot{}
	}
	if g.KeyOrthogonality == nil {
		b.WriteString("attention: none in this model\n")
	} else {
		fmt.Fprintf(&b, "key orthogonality, bench's (centred per-token mean keys of the evidence tokens, mean |cos|; random %.3f):\n",
			g.KeyOrthogonalityRandom)
		for l, row := range g.KeyOrthogonality {
			fmt.Fprintf(&b, "  L%d %s   mean %.3f\n", l, floats(row, "%.3f"), derived.MeanFinite(row))
		}
		b.WriteString(embedKeysText(g.KeyOrthogonalityEmbed, g.KeyOrthogonalityEmbedInit, g.KeyOrthogonalityEmbedTokens))
		b.WriteString("attention entropy (bits) / mass on evidence tokens:\n")
		for l, row := range g.AttentionEntropy {
			fmt.Fprintf(&b, "  L%d %s", l, floats(row, "%.2f"))
			if l < len(g.AttentionMass) {
				fmt.Fprintf(&b, "   mass %s", floats(g.AttentionMass[l], "%.2f"))
			}
			b.WriteString("\n")
		}
	}
	if m := g.Manifold; m != nil && len(m.Share) > 0 {
		fmt.Fprintf(&b, "value manifold, many sequences (%d): |ρ(PC1, entropy)| %s; PC1..3 %s of variance; ρ Spearman %s Pearson %s\n",
			p.GeometryN, absStr(m.Spearman), floats(scale(m.Share, 100), "%.1f%%"), numStr(m.Spearman), numStr(m.Pearson))
		if o := g.ManifoldOne; o != nil && len(o.Share) > 0 {
			fmt.Fprintf(&b, "value manifold, one sequence (the first probe sequence, %d positions): |ρ(PC1, entropy)| %s; PC1..3 %s of variance; ρ Spearman %s Pearson %s\n",
				o.N, absStr(o.Spearman), floats(scale(o.Share, 100), "%.1f%%"), numStr(o.Spearman), numStr(o.Pearson))
		} else {
			b.WriteString("value manifold, one sequence: not computed (fewer than 3 scored positions)\n")
		}
	}
	if len(g.Ablation) > 0 {
		b.WriteString("ablation (Δ bit error (a), Δ KL bits):\n")
		w := 0
		for _, e := range g.Ablation {
			w = max(w, len(unitName(e)))
		}
		for _, e := range g.Ablation {
			fmt.Fprintf(&b, "  %-*s %+8.4f %+8.4f\n", w, unitName(e), e.DeltaBits, e.DeltaKL)
		}
		if c := diagnostics.Costly(g.Costliest); c != nil {
			fmt.Fprintf(&b, "costliest: %s, %+.4f bits\n", unitName(*c), c.DeltaBits)
		} else if g.Costliest != nil {
			b.WriteString("costliest: none (every Δ ≤ 0: zeroing any unit helps or is free)\n")
		}
	}
	if p.Frame != nil && p.Frame.Settle != nil {
		st := p.Frame.Settle
		fmt.Fprintf(&b, "settled (recorded at step %d, %.0f%% band): frame %s, bit error %s, 1−|ρ| %s\n",
			p.FrameStep, st.Band*100, settled(st.Frame), settled(st.BitError), settled(st.Rho))
	}
	if len(p.JLensRatio) > 0 {
		parts := make([]string, len(p.JLensRatio))
		for i, r := range p.JLensRatio {
			parts[i] = fmt.Sprintf("%s %.2f", siteName(g.JLens.Sites[i]), r)
		}
		fmt.Fprintf(&b, "frame, authors' at step %d (J-lens overlap with this checkpoint's embedding frame ÷ null, mean over %d positions of %d sequences): %s; mean %.2f\n",
			p.Step, len(g.JLens.Positions), g.JLens.Seqs, strings.Join(parts, ", "), p.JLensMean)
	}
	b.WriteString(frameRatioText(p.FrameRatio, p.Dissociation))
	return b.String()
}

// settled prints a settle step, or "not yet".
func settled(step int) string {
	if step < 0 {
		return "not yet"
	}
	return fmt.Sprintf("at step %d", step)
}

// unitName names an ablated unit: "L1 H2" for a head, "L1 attention", "L1 MLP" and
// "L1 layer" (a whole layer or block) for the rest, whose Head is -1 and never printed.
func unitName(e diagnostics.Effect) string {
	switch strings.ToLower(e.Unit) {
	case "head":
		if e.Head >= 0 {
			return fmt.Sprintf("L%d H%d", e.Layer, e.Head)
		}
		return fmt.Sprintf("L%d attention", e.Layer)
	case "attn":
		return fmt.Sprintf("L%d attention", e.Layer)
	case "mlp":
		return fmt.Sprintf("L%d MLP", e.Layer)
	case "layer", "":
		return fmt.Sprintf("L%d layer", e.Layer)
	}
	return fmt.Sprintf("L%d %s", e.Layer, e.Unit)
}

func floats(xs []float64, f string) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf(f, x)
	}
	return strings.Join(parts, " ")
}

func scale(xs []float64, k float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = x * k
	}
	return out
}

func numStr(n sessions.Num) string {
	if math.IsNaN(float64(n)) {
		return "n/a"
	}
	return fmt.Sprintf("%+.3f", float64(n))
}

// lengthsText is the length-generalisation block of the probe report ("" without one):
// the scores at each K, and the mean KL at the trained positions and after them.
func lengthsText(ls []sessions.LengthScore) string {
	if len(ls) == 0 {
		return ""
	}
	train := 0
	for _, l := range ls {
		if l.Train {
			train = l.K
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "length generalisation (* trained at K=%d; later positions never trained):\n", train)
	b.WriteString("  K      (a)      (b)       KL  accuracy  KL ≤train  KL >train\n")
	for _, l := range ls {
		mark := " "
		if l.Train {
			mark = "*"
		}
		n := min(train, len(l.KLByPosition))
		fmt.Fprintf(&b, "  %-4s %s %s %s %s %s %s\n", fmt.Sprintf("%d%s", l.K, mark),
			numCol(l.BitErrorPosition, 8, 4), numCol(l.BitErrorSample, 8, 4), numCol(l.KLBits, 8, 4),
			numCol(l.Accuracy, 9, 3), numCol(meanNum(l.KLByPosition[:n]), 10, 4), numCol(meanNum(l.KLByPosition[n:]), 10, 4))
	}
	return b.String()
}

// numCol right-aligns n with prec decimals in width columns ("n/a" for NaN, "–" for an
// empty mean).
func numCol(n sessions.Num, width, prec int) string {
	v := float64(n)
	switch {
	case math.IsInf(v, 1):
		return fmt.Sprintf("%*s", width, "–")
	case math.IsNaN(v):
		return fmt.Sprintf("%*s", width, "n/a")
	}
	return fmt.Sprintf("%*.*f", width, prec, v)
}

// meanNum is the mean of xs over the finite ones (derived.MeanNum), +Inf for none (printed
// as "–").
func meanNum(xs []sessions.Num) sessions.Num {
	if len(xs) == 0 {
		return sessions.Num(math.Inf(1))
	}
	return sessions.Num(derived.MeanNum(xs))
}

// embedKeysText is the authors' key orthogonality block of the probe report: per layer the
// heads now, their mean, and the mean at initialisation; a line saying why not without it.
func embedKeysText(now, init [][]float64, tokens int) string {
	if len(now) == 0 {
		return "key orthogonality, authors': not computed (no value tokens in this task)\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "key orthogonality, authors' (%d value tokens' embeddings through norm1 and W_K of the head, mean |cos|; now vs init):\n", tokens)
	for l, row := range now {
		fmt.Fprintf(&b, "  L%d %s   mean %.3f", l, floats(row, "%.3f"), derived.MeanFinite(row))
		if l < len(init) {
			fmt.Fprintf(&b, "   init %s   mean %.3f", floats(init[l], "%.3f"), derived.MeanFinite(init[l]))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// absStr prints |n| with three decimals, or "n/a".
func absStr(n sessions.Num) string {
	if math.IsNaN(float64(n)) {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", math.Abs(float64(n)))
}

// frameRatioText is the J-lens block of the probe report ("" without one): the ratio per
// snapshot and site against the current and the final frame and their mean over the sites
// against the final frame, θ, and the dissociation rule's outcome.
func frameRatioText(fr *derived.FrameRatios, d *derived.Dissociation) string {
	if fr == nil {
		return ""
	}
	var b strings.Builder
	th := fmt.Sprintf("θ %.2f", fr.Threshold)
	if fr.Scaled {
		th += fmt.Sprintf(" (scaled to this width: the same fraction of the way from 1 to %.2f as 3 is of 9.6)", fr.Max)
	}
	fmt.Fprintf(&b, "frame, authors' (J-lens overlap with the embedding frame ÷ null %.3f, mean over %d positions; ceiling %.2f, %s):\n",
		fr.Null, len(fr.Positions), fr.Max, th)
	b.WriteString("  step   ")
	for _, s := range fr.Sites {
		fmt.Fprintf(&b, " %9s", siteName(s))
	}
	b.WriteString("   mean   (current frame | final frame; mean: final)\n")
	for _, p := range fr.Points {
		fmt.Fprintf(&b, "  %-7d", p.Step)
		for si := range fr.Sites {
			fmt.Fprintf(&b, " %4.2f|%4.2f", p.Current[si], p.Final[si])
		}
		fmt.Fprintf(&b, "   %4.2f\n", p.MeanFinal)
	}
	if d != nil {
		outcome := "holds"
		if !d.Holds {
			outcome = "fails"
		}
		fmt.Fprintf(&b, "  dissociation rule (docs/usage.md: The dissociation rule): %s — %s\n", outcome, d.Why)
	}
	return b.String()
}

// siteName names a J-lens site: "embed" for the embedding output, "block l" after block l.
func siteName(s int) string {
	if s < 0 {
		return "embed"
	}
	return fmt.Sprintf("block %d", s)
}
