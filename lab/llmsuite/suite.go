package llmsuite

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"windtunnel/models/bpe"
	"windtunnel/models/llm"
	"windtunnel/sessions/llmrun"
	"windtunnel/tunnels/prompts"
	"windtunnel/tunnels/sula"
)

// Options choose what Run measures.
type Options struct {
	// Experiments is a subset of llmrun.Experiments (nil or empty: all).
	Experiments []string
	// User holds the prompts of the user's file, named UserName: one more manifold set.
	User     []string
	UserName string
	// Seed seeds the SULA prompts, the proxy's tokens and the random axis.
	Seed uint64
	// PerK is the SULA prompts per shot count (0: sula.PerK).
	PerK int
	// KeyTokens is how many distinct tokens key orthogonality compares (0: 100).
	KeyTokens int
	// AxisLayer > 0 cuts that layer alone; 0 or less: the paper's protocol, the last five
	// layers (never layer 0, whose values are a function of the token alone: at SULA's last
	// position, ":", they do not vary).
	AxisLayer int
	// Progress, when set, is told the stage and the steps done of its total.
	Progress func(stage string, done, total int)
	// Command is recorded as the command line that made the record.
	Command string
	// Nulls are the kinds of null Run measures beside the model (llmrun.NullPredictors,
	// llmrun.NullControls; llmrun.NullRandom is RunRandom's, not Run's). Empty: none.
	Nulls []string
}

// pass is one batch of prompts run through the model.
type pass struct {
	seqs [][]int
	res  llm.Result
}

// Unsupported names the experiments a model of configuration c cannot support, each with
// the reason: the entropy-axis ablation needs a layer after the first at axisLayer (0 or
// less: the last; layer 0's values at SULA's last position are a function of its token
// alone and do not vary), dynamic focusing a trend over two layers or more.
func Unsupported(c llm.Config, axisLayer int) map[string]string {
	out := map[string]string{}
	if axisLayer <= 0 {
		axisLayer = c.Layers - 1
	}
	if axisLayer < 1 {
		out["axis"] = fmt.Sprintf("the entropy-axis ablation needs a layer after the first (layer 0's values at the prompts' last token do not vary); the model has %d layer", c.Layers)
	}
	if c.Layers < 2 {
		out["focus"] = fmt.Sprintf("dynamic focusing is a trend over the layers and needs two or more; the model has %d", c.Layers)
	}
	return out
}

// Run measures m. A bad option (an unknown experiment, one the model cannot support
// (Unsupported), a prompt longer than the model takes) is an error before any pass. An
// experiment that fails later does not cost the others: Run goes on with the rest and
// returns the record of those that finished (Experiments lists only them, Warnings says
// which failed and why) with the failures' error; a cancelled ctx stops it with ctx's error
// and the record of what finished before.
func Run(ctx context.Context, m *llm.Model, opt Options) (*llmrun.Result, error) {
	start := time.Now()
	want, err := experiments(opt.Experiments)
	if err != nil {
		return nil, err
	}
	for _, e := range llmrun.Experiments {
		if why, ok := Unsupported(m.Config, opt.AxisLayer)[e]; ok && want[e] {
			return nil, fmt.Errorf("llmsuite: %s: %s", e, why)
		}
	}
	if opt.PerK == 0 {
		opt.PerK = sula.PerK
	}
	if opt.KeyTokens == 0 {
		opt.KeyTokens = 100
	}
	c := m.Config
	if opt.AxisLayer >= c.Layers {
		return nil, fmt.Errorf("llmsuite: axis layer %d outside [0, %d)", opt.AxisLayer, c.Layers)
	}
	axisLayers := cutLayers(opt.AxisLayer, c.Layers)
	if want["axis"] && len(axisLayers) == 0 {
		return nil, fmt.Errorf("llmsuite: the axis ablation needs a layer after layer 0; the model has %d", c.Layers)
	}
	r := &llmrun.Result{Version: llmrun.Version, Model: describe(m), Seed: opt.Seed, Command: opt.Command}
	for _, e := range llmrun.Experiments {
		if want[e] {
			r.Experiments = append(r.Experiments, e)
		}
	}
	geo := want["keys"] || want["focus"]
	// The prompts of both passes, tokenized up front so that a bad one fails before any work.
	var sets []setSpec
	if want["manifold"] || geo {
		if sets, err = manifoldSets(m, opt); err != nil {
			return nil, err
		}
	}
	var sp *sulaSpec
	if want["sula"] || want["axis"] {
		if sp, err = sulaPrompts(m, opt, slices.Contains(opt.Nulls, llmrun.NullControls)); err != nil {
			return nil, err
		}
	}
	var all [][]int
	for _, s := range sets {
		all = append(all, s.seqs...)
	}
	if sp != nil {
		all = append(all, sp.seqs...)
	}
	var g *geometry
	if geo {
		g = newGeometry(m, all, opt.KeyTokens)
	}
	progress := func(stage string) func(int, int) {
		return func(done, total int) {
			if opt.Progress != nil {
				opt.Progress(stage, done, total)
			}
		}
	}
	var failed []error
	fail := func(exp string, err error) {
		failed = append(failed, fmt.Errorf("%s: %w", exp, err))
		r.Experiments = slices.DeleteFunc(r.Experiments, func(e string) bool { return e == exp })
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s failed: %v", exp, err))
	}
	// partial is the record of what finished when a pass cannot go on (ctx cancelled).
	partial := func(err error, unfinished ...string) (*llmrun.Result, error) {
		before := failed
		for _, e := range unfinished {
			if want[e] {
				fail(e, err)
			}
		}
		r.WallS = time.Since(start).Seconds()
		if len(before) == 0 {
			return r, err
		}
		return r, errors.Join(append(before, err)...)
	}
	offset := 0
	if len(sets) > 0 {
		var seqs [][]int
		for _, s := range sets {
			seqs = append(seqs, s.seqs...)
		}
		req := llm.Request{Seqs: seqs, Progress: progress("manifold prompts")}
		if g != nil {
			req.Taps = g.taps(offset)
		}
		res, err := m.Forward(ctx, req)
		if err != nil {
			return partial(err, llmrun.Experiments...)
		}
		r.Tokens += tokens(seqs)
		offset += len(seqs)
		if want["manifold"] {
			r.Manifold, r.Warnings = manifolds(sets, res)
		}
	}
	if sp != nil {
		var keep *keeper
		if want["axis"] {
			keep = newKeeper(axisLayers, c)
		}
		req := llm.Request{Seqs: sp.seqs, Progress: progress("SULA prompts"), Taps: combine(g.taps(offset), keep.taps())}
		res, err := m.Forward(ctx, req)
		if err != nil {
			return partial(err, "sula", "axis", "keys", "focus")
		}
		r.Tokens += tokens(sp.seqs)
		out, err := sp.score(res)
		switch {
		case err != nil && want["sula"]:
			fail("sula", err)
		case err == nil && want["sula"]:
			r.SULA = out
		}
		if err == nil && want["sula"] && len(opt.Nulls) > 0 {
			nl, n, err := sp.controls(ctx, m, res, out, opt, slices.Contains(opt.Nulls, llmrun.NullControls), progress)
			switch {
			case nl == nil:
				if ctx.Err() != nil {
					return partial(err, "sula")
				}
				fail("sula controls", err)
			case err != nil:
				r.Warnings = append(r.Warnings, err.Error())
			}
			if nl != nil {
				r.Tokens += n
				for _, k := range llmrun.NullKinds {
					if k != llmrun.NullRandom && slices.Contains(opt.Nulls, k) {
						nl.Kinds = append(nl.Kinds, k)
					}
				}
				if !slices.Contains(opt.Nulls, llmrun.NullControls) {
					nl.Shuffled, nl.Remap, nl.Ablation = nil, nil, nil
				}
				if !slices.Contains(opt.Nulls, llmrun.NullPredictors) {
					nl.Constant, nl.Uniform = nil, nil
				}
				r.Nulls = nl
			}
		}
		if want["axis"] {
			// Keys and focus come from the passes already made: measured before the
			// ablation, they do not wait on it (nor are lost with it).
			g = geometryFinished(g, r, want, m, opt.Seed, fail)
			ax, n, err := ablate(ctx, m, sp, res, keep, opt, progress)
			if err != nil {
				if ctx.Err() != nil {
					return partial(err, "axis")
				}
				fail("axis", err)
			} else {
				r.Axis = ax
				r.Tokens += n
			}
		}
	}
	geometryFinished(g, r, want, m, opt.Seed, fail)
	r.WallS = time.Since(start).Seconds()
	return r, errors.Join(failed...)
}

// geometryFinished records key orthogonality and dynamic focusing from g when wanted (a
// failure through fail) and returns nil: g is done with.
func geometryFinished(g *geometry, r *llmrun.Result, want map[string]bool, m *llm.Model, seed uint64, fail func(string, error)) *geometry {
	if g == nil {
		return nil
	}
	if want["keys"] {
		if k, err := g.keys(m, seed); err != nil {
			fail("keys", err)
		} else {
			r.Keys = k
		}
	}
	if want["focus"] {
		r.Focus = g.focus()
	}
	return nil
}

// experiments parses the experiment list; empty means all.
func experiments(list []string) (map[string]bool, error) {
	want := map[string]bool{}
	if len(list) == 0 {
		for _, e := range llmrun.Experiments {
			want[e] = true
		}
		return want, nil
	}
	for _, e := range list {
		e = strings.TrimSpace(e)
		if !slices.Contains(llmrun.Experiments, e) {
			return nil, fmt.Errorf("llmsuite: unknown experiment %q (want %s)", e, strings.Join(llmrun.Experiments, ", "))
		}
		want[e] = true
	}
	return want, nil
}

// describe is the record's description of m.
func describe(m *llm.Model) llmrun.Model {
	c := m.Config
	return llmrun.Model{Dir: m.Dir, Family: string(c.Family), Layers: c.Layers, Hidden: c.Hidden, Heads: c.Heads,
		KVHeads: c.KVHeads, HeadDim: c.HeadDim, Vocab: c.Vocab, Params: m.Params(), DType: string(m.DType()),
		Backend: m.Backend(), SlidingWindow: c.SlidingWindow}
}

func tokens(seqs [][]int) int {
	n := 0
	for _, s := range seqs {
		n += len(s)
	}
	return n
}

// encode tokenizes prompts as the model reads them (with its post-processor's special
// tokens), checking each fits.
func encode(m *llm.Model, ps []string, name string) ([][]int, error) {
	out := make([][]int, len(ps))
	for i, p := range ps {
		ids, err := m.Encode(p, true)
		if errors.Is(err, bpe.ErrTooManyTokens) {
			return nil, fmt.Errorf("llmsuite: %s prompt %d is over %d tokens, the model takes 1..%d", name, i+1, m.MaxTokens(), m.MaxTokens())
		}
		if err != nil {
			return nil, fmt.Errorf("llmsuite: %s prompt %d: %w", name, i+1, err)
		}
		if len(ids) == 0 || len(ids) > m.MaxTokens() {
			return nil, fmt.Errorf("llmsuite: %s prompt %d is %d tokens, the model takes 1..%d", name, i+1, len(ids), m.MaxTokens())
		}
		out[i] = ids
	}
	return out, nil
}

// setSpec is a manifold prompt set, tokenized.
type setSpec struct {
	name   string
	domain bool
	seqs   [][]int
}

// manifoldSets tokenizes the mixed set, the single-domain sets and the user's.
func manifoldSets(m *llm.Model, opt Options) ([]setSpec, error) {
	var out []setSpec
	add := func(name string, domain bool, ps []string) error {
		seqs, err := encode(m, ps, name)
		if err != nil {
			return err
		}
		out = append(out, setSpec{name: name, domain: domain, seqs: seqs})
		return nil
	}
	mixed, err := prompts.Set(prompts.Mixed)
	if err != nil {
		return nil, err
	}
	if err := add(prompts.Mixed, false, mixed); err != nil {
		return nil, err
	}
	for _, d := range prompts.Domains() {
		ps, err := prompts.Set(d)
		if err != nil {
			return nil, err
		}
		if err := add(d, true, ps); err != nil {
			return nil, err
		}
	}
	if len(opt.User) > 0 {
		name := opt.UserName
		if name == "" {
			name = "user"
		}
		if err := add(name, false, opt.User); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// combine joins two tap sets (either may be nil).
func combine(a, b *llm.Taps) *llm.Taps {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	t := *a
	if b.Residual != nil {
		ar := a.Residual
		t.Residual = func(l int, c *llm.Chunk, x []float32) {
			if ar != nil {
				ar(l, c, x)
			}
			b.Residual(l, c, x)
		}
	}
	if b.KV != nil {
		ak := a.KV
		t.KV = func(l int, c *llm.Chunk, k, v []float32) {
			if ak != nil {
				ak(l, c, k, v)
			}
			b.KV(l, c, k, v)
		}
	}
	if b.EditValues != nil {
		t.EditValues = b.EditValues
	}
	if b.Attention != nil {
		t.Attention = b.Attention
	}
	return &t
}
