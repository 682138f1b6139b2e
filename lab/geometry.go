package lab

import (
	"fmt"
	"math"

	"windtunnel/diagnostics"
	"windtunnel/models"
	"windtunnel/sessions"
	"windtunnel/sessions/derived"
	"windtunnel/tunnels"
)

// Geometry probes run on a fixed subset of the probe set: the first GeometryN sequences.
// The frame (attention pattern) kept for the frame-precision history uses the first
// frameSeqs of those, in float32, and at most maxFrames snapshots (older ones thinned).
const (
	frameSeqs      = 16
	maxFrames      = 48
	manifoldPoints = 400
	randomTrials   = 8
)

// frameSample is one snapshot's attention pattern and precision, kept in memory for the
// frame-precision history.
type frameSample struct {
	step     int
	attn     [][]float32 // [layer] frameSeqs×H×P×T
	bitError float64     // (a)
	bitErrB  float64     // (b)
	pc1Abs   float64
	pc1Share float64
	drift    []sessions.Num
	jlens    *sessions.JLens // the snapshot's J-lens (nil without one), whose bases the latest frame is measured against
}

// geometryState holds the geometry probe's batch and the frame history.
type geometryState struct {
	batch  *tunnels.Batch
	q      []float64
	frames []frameSample
	// The authors' key orthogonality: the value tokens and the statistic at
	// initialisation, computed at the first snapshot (embedDone) and reused.
	embedDone   bool
	embedTokens []int
	embedInit   [][]float64
	// The belief simplex of the untrained model (hmm), computed at the first snapshot
	// (simplexInitDone) and reused.
	simplexInitDone bool
	simplexInit     *sessions.Simplex
}

// geometryDue reports whether the evaluation at step also takes a geometry snapshot.
func (t *Trainer) geometryDue(step int, final bool) bool {
	if t.cfg.ProbeEvery <= 0 {
		return false
	}
	k := len(t.geo.frames)
	if k == 0 {
		return final || step >= t.cfg.ProbeEvery
	}
	last := t.geo.frames[k-1].step
	return step != last && (final || step/t.cfg.ProbeEvery > last/t.cfg.ProbeEvery)
}

// geometryBatch returns the geometry subset of the probe set (built on first use).
func (t *Trainer) geometryBatch() *tunnels.Batch {
	if t.geo.batch == nil {
		b := t.cfg.GeometryBatch(t.tunnel)
		t.geo.batch = b
		t.geo.q = make([]float64, len(b.Posterior))
	}
	return t.geo.batch
}

// Geometry computes the diagnostics of docs/usage.md: Geometry on the geometry subset of the probe set
// and adds them to sn: attention focus and evidence mass, key orthogonality both ways (the
// bench's against random, the authors' now and at initialisation), the QK alignment map,
// the value manifold over many sequences and over one, the ablation table with what is
// derived from it (head table, costliest unit and head) and, when history is set, the
// frame-precision history (the current snapshot joins it) with its settle steps. s holds the whole probe
// set's bit errors at this step. The operator's head ablations must be off.
func (t *Trainer) Geometry(sn *sessions.Snapshot, s diagnostics.Scores, history bool) error {
	if _, err := t.current(); err != nil {
		return err
	}
	b := t.geometryBatch()
	pr, err := models.ProbeChunks(t.model, t.tunnel, b, t.evalChunkAt(t.tunnel, b.N), 0)
	if err != nil {
		return fmt.Errorf("lab: geometry probe: %w", err)
	}
	sn.ProbeN = b.N
	if pr.Heads > 0 && len(pr.Attn) > 0 {
		// Key orthogonality is taken over the evidence tokens (the hypotheses a prediction
		// weighs: bijection values, HMM symbols, recall values) when the tunnel names them,
		// else over every token.
		var evidence func(seq, row int) []bool
		var keep func(int) bool
		evTok := map[int]bool{}
		if ev, ok := t.tunnel.(tunnels.Evidencer); ok {
			marks := make([]bool, b.N*b.P*b.T)
			for s := 0; s < b.N; s++ {
				toks := b.Tokens[s*b.T : (s+1)*b.T]
				for i, pos := range pr.Positions {
					m := marks[(s*b.P+i)*b.T:][:b.T]
					ev.Evidence(toks, pos, m)
					for j, on := range m[:pos+1] {
						if on {
							evTok[toks[j]] = true
						}
					}
				}
			}
			evidence = func(seq, row int) []bool { return marks[(seq*b.P+row)*b.T:][:b.T] }
			if len(evTok) >= 2 {
				keep = func(tok int) bool { return evTok[tok] }
			}
		}
		f, err := diagnostics.AttentionFocus(pr.Attn, b.N, pr.Heads, b.P, b.T, evidence)
		if err != nil {
			return fmt.Errorf("lab: attention focus: %w", err)
		}
		sn.AttentionMass = f.Mass
		if sn.AttentionEntropy == nil {
			sn.AttentionEntropy = f.Entropy
		}
		hd := pr.Width / pr.Heads
		distinct := map[int]bool{}
		for _, tok := range b.Tokens {
			if keep == nil || keep(tok) {
				distinct[tok] = true
			}
		}
		if r := diagnostics.RandomOrthogonality(len(distinct), hd, t.cfg.Seed, randomTrials, true); !math.IsNaN(r) {
			sn.KeyOrthogonalityRandom = r
		}
		sn.QKPositions = pr.Positions
		for l := range pr.K {
			ko, err := diagnostics.KeyOrthogonality(pr.K[l], b.Tokens, b.N*b.T, pr.Width, pr.Heads, keep, true)
			if err != nil {
				return fmt.Errorf("lab: key orthogonality layer %d: %w", l, err)
			}
			sn.KeyOrthogonality = append(sn.KeyOrthogonality, ko)
			qk, err := diagnostics.QKAlignment(pr.Q[l], pr.K[l], b.N, b.T, pr.Width, pr.Heads, pr.Positions)
			if err != nil {
				return fmt.Errorf("lab: QK alignment layer %d: %w", l, err)
			}
			sn.QKAlignment = append(sn.QKAlignment, nums(qk))
		}
		if err := t.embedKeys(sn, evTok); err != nil {
			return err
		}
		if err := t.jlens(sn, b); err != nil {
			return err
		}
	}
	if pr.Final != nil {
		m, err := diagnostics.ValueManifold(pr.Final, b.N*b.P, pr.Width, b.EntropyBits, manifoldPoints)
		if err != nil {
			return fmt.Errorf("lab: value manifold: %w", err)
		}
		sn.Manifold = recordedManifold(m, b.N, b.N*b.P)
		// The authors' sampling: the scored positions of one sequence, the probe set's first.
		if b.P >= 3 {
			m1, err := diagnostics.SequenceManifold(pr.Final, b.N, b.P, pr.Width, b.EntropyBits, 0)
			if err != nil {
				return fmt.Errorf("lab: value manifold of one sequence: %w", err)
			}
			sn.ManifoldOne = recordedManifold(m1, 1, b.P)
		}
		if t.tunnel.Name() == "hmm" {
			if sn.Simplex, err = t.simplexOf(pr.Final, b, pr.Width); err != nil {
				return err
			}
			if sn.SimplexInit, err = t.simplexInit(b); err != nil {
				return err
			}
		}
	}
	effects, err := t.ablationTable(b, pr.Dist)
	if err != nil {
		return err
	}
	setAblation(sn, effects, t.layers, t.heads)
	if history {
		t.addFrame(sn, pr.Attn, b, s)
	}
	return nil
}

// ablationTable zeroes each head, each layer's attention and MLP (or each recurrent layer)
// in turn and scores the geometry subset against the unablated distributions base.
func (t *Trainer) ablationTable(b *tunnels.Batch, base []float64) ([]diagnostics.Effect, error) {
	score := func(q []float64) (diagnostics.Scores, error) {
		return diagnostics.Score(q, b.Posterior, b.N, b.P, b.C)
	}
	s0, err := score(base)
	if err != nil {
		return nil, fmt.Errorf("lab: ablation base: %w", err)
	}
	var out []diagnostics.Effect
	add := func(unit string, layer, head int) error {
		if err := models.PredictChunks(t.model, t.tunnel, b, t.evalChunkAt(t.tunnel, b.N), t.geo.q, nil); err != nil {
			return fmt.Errorf("lab: ablation %s L%d H%d: %w", unit, layer, head, err)
		}
		s, err := score(t.geo.q)
		if err != nil {
			return fmt.Errorf("lab: ablation %s L%d H%d: %w", unit, layer, head, err)
		}
		out = append(out, diagnostics.EffectOf(unit, layer, head, s0, s))
		return nil
	}
	for l := 0; l < t.layers; l++ {
		for h := 0; h < t.heads; h++ {
			if err := t.model.SetHeadMask(l, h, false); err != nil {
				return nil, err
			}
			err := add(diagnostics.UnitHead, l, h)
			if e2 := t.model.SetHeadMask(l, h, true); err == nil {
				err = e2
			}
			if err != nil {
				return nil, err
			}
		}
	}
	for i, u := range t.model.Units() {
		if err := t.model.SetUnit(i, false); err != nil {
			return nil, err
		}
		err := add(u.Kind, u.Layer, -1)
		if e2 := t.model.SetUnit(i, true); err == nil {
			err = e2
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// RestoreFrames seeds a resumed run's frame history (after Restore) with its session's:
// points is the newest stored snapshot's history up to the checkpoint's step, jlens each
// stored snapshot's J-lens by step. The J-lens ratios, bit errors, drift and PC1 of the
// earlier frames carry over; their attention patterns were not stored, so their distance
// to later frames is NaN. Without it a resumed run's snapshots would hold only the frames
// since the resume.
func (t *Trainer) RestoreFrames(points []sessions.FramePoint, jlens map[int]*sessions.JLens) {
	t.geo.frames = t.geo.frames[:0]
	for _, p := range points {
		if p.Step > t.step {
			break
		}
		t.geo.frames = append(t.geo.frames, frameSample{step: p.Step, bitError: p.BitError, bitErrB: p.BitErrorSample,
			pc1Abs: float64(p.PC1Abs), pc1Share: float64(p.PC1Share), drift: p.Drift, jlens: jlens[p.Step]})
	}
}

// addFrame appends this snapshot's attention pattern and precision to the history and
// writes the frame-precision points (drift from the previous snapshot, distance to this
// one) into sn.
func (t *Trainer) addFrame(sn *sessions.Snapshot, attn [][]float64, b *tunnels.Batch, s diagnostics.Scores) {
	fs := frameSample{step: t.step, bitError: s.BitErrorPosition, bitErrB: s.BitErrorSample, pc1Abs: math.NaN(), pc1Share: math.NaN(), jlens: sn.JLens}
	if m := sn.Manifold; m != nil {
		fs.pc1Abs = math.Abs(float64(m.Spearman))
		if len(m.Share) > 0 {
			fs.pc1Share = m.Share[0]
		}
	}
	n := min(frameSeqs, b.N)
	if len(attn) > 0 {
		per := len(attn[0]) / b.N // H×P×T floats per sequence
		for _, a := range attn {
			cp := make([]float32, n*per)
			for i := range cp {
				cp[i] = float32(a[i])
			}
			fs.attn = append(fs.attn, cp)
		}
	}
	var wa, wb []float64 // the frames widened, reused: a snapshot compares every kept frame
	dist := func(a, b [][]float32) []sessions.Num {
		out := make([]sessions.Num, len(a))
		for l := range a {
			wa, wb = widen(wa, a[l]), widen(wb, b[l])
			out[l] = sessions.Num(diagnostics.AttentionDrift(wa, wb, t.tunnel.SeqLen()))
		}
		return out
	}
	if k := len(t.geo.frames); k > 0 && fs.attn != nil && t.geo.frames[k-1].attn != nil {
		fs.drift = dist(t.geo.frames[k-1].attn, fs.attn)
	} else {
		fs.drift = nanNums(len(fs.attn))
	}
	t.geo.frames = append(t.geo.frames, fs)
	if len(t.geo.frames) > maxFrames {
		// Keep the first and the latest; drop every other one in between.
		fr := t.geo.frames
		kept := fr[:1]
		for i := 2; i < len(fr)-1; i += 2 {
			kept = append(kept, fr[i])
		}
		t.geo.frames = append(kept, fr[len(fr)-1])
	}
	frame := &sessions.Frame{}
	for _, f := range t.geo.frames {
		p := sessions.FramePoint{Step: f.step, Drift: f.drift, BitError: f.bitError, BitErrorSample: f.bitErrB,
			PC1Abs: sessions.Num(f.pc1Abs), PC1Share: sessions.Num(f.pc1Share)}
		if r := jlensAgainst(f.jlens, fs.jlens); r != nil {
			p.JLens = nums(r)
		}
		switch {
		case fs.attn != nil && f.attn != nil:
			p.ToLatest = dist(f.attn, fs.attn)
		case fs.attn != nil: // a frame restored from the session (RestoreFrames) has no pattern
			p.ToLatest = nanNums(len(fs.attn))
		}
		frame.Points = append(frame.Points, p)
	}
	frame.Settle = settle(frame.Points)
	sn.Frame = frame
}

// setAblation records the ablation table in sn with what is derived from it once, here:
// the head table (Δ bit error per head), the costliest unit and the costliest head.
func setAblation(sn *sessions.Snapshot, effects []diagnostics.Effect, layers, heads int) {
	sn.Ablation = append([]diagnostics.Effect(nil), effects...)
	var headEffects []diagnostics.Effect
	for _, e := range effects {
		if e.Unit == diagnostics.UnitHead {
			headEffects = append(headEffects, e)
		}
	}
	if heads > 0 {
		for _, row := range diagnostics.HeadTable(effects, layers, heads) {
			sn.HeadDelta = append(sn.HeadDelta, nums(row))
		}
	}
	if w, ok := diagnostics.Worst(effects); ok {
		sn.Costliest = &w
	}
	if w, ok := diagnostics.Worst(headEffects); ok {
		sn.CostliestHead = &w
	}
}

// recordedManifold is the recorded form of a value manifold over n points of seqs sequences.
func recordedManifold(m diagnostics.Manifold, seqs, n int) *sessions.Manifold {
	return &sessions.Manifold{Share: m.Share, Pearson: sessions.Num(m.Pearson), Spearman: sessions.Num(m.Spearman),
		Points: m.Points, Entropy: m.Entropy, Sequences: seqs, N: n}
}

// settle finds where the frame-precision series settled within derived.SettleBand: the frame is
// the mean over layers of ToLatest (NaN skipped), the precision log2 of bit error (a) (see
// derived.PrecisionScale), 1 − |ρ(PC1, entropy)| and the J-lens ratio (mean over sites); −1 where a
// series has not settled.
func settle(points []sessions.FramePoint) *sessions.Settle {
	steps := make([]int, len(points))
	frame := make([]float64, len(points))
	bitError := make([]float64, len(points))
	rho := make([]float64, len(points))
	for i, p := range points {
		steps[i] = p.Step
		frame[i] = derived.MeanNum(p.ToLatest)
		bitError[i] = derived.PrecisionScale(p.BitError)
		rho[i] = 1 - float64(p.PC1Abs)
	}
	at := func(series []float64) int {
		if s, ok := diagnostics.SettleStep(steps, series, derived.SettleBand); ok {
			return s
		}
		return -1
	}
	return &sessions.Settle{Band: derived.SettleBand, Frame: at(frame), BitError: at(bitError), Rho: at(rho)}
}

func nums(xs []float64) []sessions.Num {
	out := make([]sessions.Num, len(xs))
	for i, x := range xs {
		out[i] = sessions.Num(x)
	}
	return out
}

// widen is s in float64, in dst's storage when it has room.
func widen(dst []float64, s []float32) []float64 {
	if cap(dst) < len(s) {
		dst = make([]float64, len(s))
	}
	dst = dst[:len(s)]
	for i, v := range s {
		dst[i] = float64(v)
	}
	return dst
}

func nanNums(n int) []sessions.Num {
	out := make([]sessions.Num, n)
	for i := range out {
		out[i] = sessions.Num(math.NaN())
	}
	return out
}
