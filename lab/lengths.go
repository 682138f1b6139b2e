package lab

import (
	"fmt"
	"windtunnel/sessions/runconfig"

	"windtunnel/diagnostics"
	"windtunnel/models"
	"windtunnel/sessions"
	"windtunnel/tunnels"
)

// Length generalisation (docs/usage.md: --eval-k): an hmm run trains at one K and is also scored on
// probe sets drawn at other K (the paper: train at 20, evaluate at 20, 30 and 50), so the
// model's position table must cover the longest of them.

// longestTunnel is the tunnel at the longest evaluated K (tn itself when no other K is
// longer): the model's position table is sized for it.
func longestTunnel(cfg runconfig.Config, tn tunnels.Tunnel) (tunnels.Tunnel, error) {
	ks := cfg.EvalLengths()
	h, ok := tn.(*tunnels.HMM)
	if len(ks) == 0 || !ok {
		return tn, nil
	}
	_, _, k := h.Sizes()
	if top := ks[len(ks)-1]; top > k {
		return h.WithK(top)
	}
	return tn, nil
}

// buildModel builds the configured model with a position table long enough for the longest
// evaluated sequence. A capacity-matched baseline is matched to the transformer at that
// same length (Spec.Resolved on the longest tunnel: only the position table, and for the
// prefix MLP its input, depend on the length), so both gain the same positions and the
// comparison stays fair.
func buildModel(cfg runconfig.Config, tn tunnels.Tunnel, opts models.Options) (models.Model, int, error) {
	long, err := longestTunnel(cfg, tn)
	if err != nil {
		return nil, 0, err
	}
	spec := cfg.Spec()
	if long != tn {
		spec = models.Resolve(spec, long)
	}
	opts.MaxLen = long.SeqLen() + 1
	opts.Init = cfg.Init
	opts.GELU = cfg.GELU
	m, err := models.New(spec, tn, opts)
	return m, opts.MaxLen, err
}

// lengthProbe is the fixed probe set of one extra evaluated K: the same stream as the main
// probe set (the same matrices and, over the shared steps, the same observations), drawn
// at that K.
type lengthProbe struct {
	k      int
	tunnel tunnels.Tunnel
	probe  []*tunnels.Batch
	post   []float64
	q      []float64
}

// probeChunk is the most sequences an evaluation pass runs at once (evalChunk).
const probeChunk = 256

// drawProbe draws the n-sequence probe set of tn from stream in batches of chunk sequences
// and returns them with their posteriors laid end to end.
func drawProbe(tn tunnels.Tunnel, stream uint64, n, chunk int) ([]*tunnels.Batch, []float64) {
	var bs []*tunnels.Batch
	var post []float64
	for first := 0; first < n; first += chunk {
		b := tunnels.NewBatch(tn, min(chunk, n-first))
		b.Fill(tn, stream, uint64(first))
		bs = append(bs, b)
		post = append(post, b.Posterior...)
	}
	return bs, post
}

// setupProbes draws the probe set and those of the other evaluated lengths in chunks that
// keep each evaluation graph's buffers within budget (evalChunk).
func (t *Trainer) setupProbes(budget int64) error {
	t.evalBudget = budget
	t.chunk = t.evalChunkAt(t.tunnel, t.cfg.ProbeSize)
	t.probe, t.post = drawProbe(t.tunnel, tunnels.ProbeStream(t.cfg.Seed), t.cfg.ProbeSize, t.chunk)
	t.q = make([]float64, len(t.post))
	t.lengths = nil
	return t.setupLengths()
}

// evalChunkAt is evalChunk for a set of n sequences of tn's length with the run's model
// and budget.
func (t *Trainer) evalChunkAt(tn tunnels.Tunnel, n int) int {
	long, err := longestTunnel(t.cfg, t.tunnel)
	if err != nil { // New has built the model on it already
		long = tn
	}
	return evalChunk(models.EffectiveSpec(t.cfg.Spec(), long), tn, n, floatBytes(t.cfg), t.evalBudget)
}

// setupLengths draws the probe sets of the evaluated lengths other than the training one.
func (t *Trainer) setupLengths() error {
	ks := t.cfg.EvalLengths()
	h, ok := t.tunnel.(*tunnels.HMM)
	if len(ks) == 0 || !ok {
		return nil
	}
	_, _, train := h.Sizes()
	t.evalK = ks
	for _, k := range ks {
		if k == train {
			continue
		}
		tk, err := h.WithK(k)
		if err != nil {
			return fmt.Errorf("lab: evaluation length K=%d: %w", k, err)
		}
		if tk.SeqLen() > t.maxLen {
			return fmt.Errorf("lab: evaluation length K=%d needs %d positions, the model has %d", k, tk.SeqLen(), t.maxLen)
		}
		lp := lengthProbe{k: k, tunnel: tk}
		chunk := t.evalChunkAt(tk, t.cfg.ProbeSize)
		lp.probe, lp.post = drawProbe(tk, tunnels.ProbeStream(t.cfg.Seed), t.cfg.ProbeSize, chunk)
		lp.q = make([]float64, len(lp.post))
		t.lengths = append(t.lengths, lp)
	}
	return nil
}

// EvaluateLengths scores the whole model (no head ablated) at every evaluated length, given
// main, the scores of the training-length probe set (Evaluate's); nil when the run
// evaluates one length only.
func (t *Trainer) EvaluateLengths(main diagnostics.Scores) ([]sessions.LengthScore, error) {
	if len(t.evalK) == 0 {
		return nil, nil
	}
	_, _, train := t.tunnel.(*tunnels.HMM).Sizes()
	out := make([]sessions.LengthScore, 0, len(t.evalK))
	i := 0
	for _, k := range t.evalK {
		if k == train {
			out = append(out, lengthScore(k, true, main))
			continue
		}
		lp := &t.lengths[i]
		i++
		off := 0
		for _, b := range lp.probe {
			n := b.N * b.P * b.C
			if err := t.model.Predict(lp.tunnel, b, lp.q[off:off+n]); err != nil {
				return nil, fmt.Errorf("lab: evaluate at K=%d: %w", k, err)
			}
			off += n
		}
		s, err := diagnostics.Score(lp.q, lp.post, t.cfg.ProbeSize, len(lp.tunnel.Positions()), lp.tunnel.Classes())
		if err != nil {
			return nil, fmt.Errorf("lab: evaluate at K=%d: %w", k, err)
		}
		out = append(out, lengthScore(k, false, s))
	}
	return out, nil
}

// lengthScore is the recorded form of one length's scores.
func lengthScore(k int, train bool, s diagnostics.Scores) sessions.LengthScore {
	kl := make([]sessions.Num, len(s.PerPosition.KLBits))
	for i, v := range s.PerPosition.KLBits {
		kl[i] = sessions.Num(v)
	}
	return sessions.LengthScore{
		K: k, Train: train,
		KLBits: sessions.Num(s.KLBits), BitErrorPosition: sessions.Num(s.BitErrorPosition),
		BitErrorSample: sessions.Num(s.BitErrorSample), Accuracy: sessions.Num(s.Accuracy),
		KLByPosition: kl,
	}
}

// lengthsDue reports whether the evaluation at step also scores the other lengths: every
// evaluation of the whole model on the cadence, and the final one (not the ablated ones,
// nor the re-evaluation when the operator switches every head back on). Measured at the
// hmm quick preset on a loaded 2-core CPU, K=30 and K=50 cost about 2–3× a K=20
// evaluation, 4.6–6% of the run when taken at every evaluation (transformer 6.0%, MLP
// 5.9%, LSTM 4.6%, Mamba 5.7%): under the 10% that would call for a sparser cadence.
func (t *Trainer) lengthsDue() bool { return len(t.evalK) > 0 }

// withLengths adds the length-generalisation scores to an unablated evaluation record.
func (t *Trainer) withLengths(e *sessions.Eval, main diagnostics.Scores) error {
	ls, err := t.EvaluateLengths(main)
	if err != nil {
		return err
	}
	e.Lengths = ls
	return nil
}
