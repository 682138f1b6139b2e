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
	// AxisLayer is the layer of the axis ablation; 0 or less: the last. (Layer 0's values
	// are a function of the token alone: at SULA's last position, ":", they do not vary.)
	AxisLayer int
	// Progress, when set, is told the stage and the steps done of its total.
	Progress func(stage string, done, total int)
	// Command is recorded as the command line that made the record.
	Command string
}

// pass is one batch of prompts run through the model.
type pass struct {
	seqs [][]int
	res  llm.Result
}

// Run measures m. A bad option (an unknown experiment, a prompt longer than the model
// takes) is an error before any pass; a cancelled ctx stops it with ctx's error.
func Run(ctx context.Context, m *llm.Model, opt Options) (*llmrun.Result, error) {
	start := time.Now()
	want, err := experiments(opt.Experiments)
	if err != nil {
		return nil, err
	}
	if opt.PerK == 0 {
		opt.PerK = sula.PerK
	}
	if opt.KeyTokens == 0 {
		opt.KeyTokens = 100
	}
	c := m.Config
	axisLayer := opt.AxisLayer
	if axisLayer <= 0 {
		axisLayer = c.Layers - 1
	}
	if axisLayer >= c.Layers {
		return nil, fmt.Errorf("llmsuite: axis layer %d outside [0, %d)", axisLayer, c.Layers)
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
		if sp, err = sulaPrompts(m, opt); err != nil {
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
			return nil, err
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
			keep = newKeeper(axisLayer, c)
		}
		req := llm.Request{Seqs: sp.seqs, Progress: progress("SULA prompts"), Taps: combine(g.taps(offset), keep.taps())}
		res, err := m.Forward(ctx, req)
		if err != nil {
			return nil, err
		}
		r.Tokens += tokens(sp.seqs)
		out, err := sp.score(res)
		if err != nil {
			return nil, err
		}
		r.SULA = out
		if want["axis"] {
			ax, n, err := ablate(ctx, m, sp, res, keep, opt, progress)
			if err != nil {
				return nil, err
			}
			r.Axis = ax
			r.Tokens += n
		}
		if !want["sula"] {
			r.SULA = nil
		}
	}
	if g != nil {
		if want["keys"] {
			if r.Keys, err = g.keys(m, opt.Seed); err != nil {
				return nil, err
			}
		}
		if want["focus"] {
			r.Focus = g.focus()
		}
	}
	r.WallS = time.Since(start).Seconds()
	return r, nil
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
