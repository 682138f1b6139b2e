package llmsuite

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"windtunnel/models/llm"
	"windtunnel/sessions/llmrun"
)

// maxTokenizerCopy bounds the tokenizer.json RunRandom copies (the model loaded it already).
const maxTokenizerCopy = 256 << 20

// RunRandom measures a random-weight null of m: a copy of m's configuration and tokenizer
// whose weights are drawn from seed — as the architecture initialises them, N(0, initStd²)
// (llm.HFInitStd), or with initStd 0 variance-preserving, N(0, 1/fan-in), so that activations
// keep their scale through the layers — written in m's dtype into a temporary folder under
// dir, measured with opt (whose Nulls are dropped: the null has none of its own) and removed.
// It returns the copy's record, with the seconds it took in all.
func RunRandom(ctx context.Context, m *llm.Model, opt Options, dir string, seed uint64, initStd float64, workers int) (*llmrun.Result, float64, error) {
	start := time.Now()
	tok, err := readBounded(filepath.Join(m.Dir, "tokenizer.json"), maxTokenizerCopy)
	if err != nil {
		return nil, 0, fmt.Errorf("llmsuite: random-weight null: %w", err)
	}
	tmp, err := os.MkdirTemp(dir, ".random-weights-")
	if err != nil {
		return nil, 0, fmt.Errorf("llmsuite: random-weight null: %w", err)
	}
	defer os.RemoveAll(tmp)
	if opt.Progress != nil {
		opt.Progress("random weights: writing", 0, 1)
	}
	if err := llm.WriteRandom(tmp, m.Config, llm.RandomOptions{DType: m.DType(), Shards: max(1, len(m.Files())), Seed: seed,
		Tokenizer: tok, InitStd: initStd}); err != nil {
		return nil, 0, fmt.Errorf("llmsuite: random-weight null: %w", err)
	}
	rm, err := llm.Load(tmp, llm.Options{Workers: workers})
	if err != nil {
		return nil, 0, fmt.Errorf("llmsuite: random-weight null: %w", err)
	}
	defer rm.Close()
	ropt := opt
	ropt.Nulls = nil
	if p := opt.Progress; p != nil {
		ropt.Progress = func(stage string, done, total int) { p("random weights: "+stage, done, total) }
	}
	r, err := Run(ctx, rm, ropt)
	if err != nil {
		return nil, 0, fmt.Errorf("llmsuite: random-weight null: %w", err)
	}
	r.Model.Dir = "(random weights of " + m.Dir + ")"
	return r, time.Since(start).Seconds(), nil
}

// AddRandomNulls measures copies random-weight nulls of m into r.Nulls (made when nil): copy i
// from seed opt.Seed+i, drawn as the architecture initialises (llm.HFInitStd) for even i and
// variance-preserving for odd i, so that the null is two kinds of network that learnt nothing.
// A copy that fails is a warning in r, and ends the copies.
func AddRandomNulls(ctx context.Context, m *llm.Model, opt Options, r *llmrun.Result, dir string, copies, workers int) {
	if r.Nulls == nil {
		r.Nulls = &llmrun.Nulls{}
	}
	r.Nulls.Kinds = append([]string{llmrun.NullRandom}, r.Nulls.Kinds...)
	for i := range copies {
		seed, std := opt.Seed+uint64(i), llm.HFInitStd
		if i%2 == 1 {
			std = 0 // variance-preserving
		}
		rnd, wall, err := RunRandom(ctx, m, opt, dir, seed, std, workers)
		if err != nil {
			r.Warnings = append(r.Warnings, fmt.Sprintf("random-weight null (seed %d): %v", seed, err))
			return
		}
		r.Nulls.Random, r.Nulls.RandomSeeds = append(r.Nulls.Random, rnd), append(r.Nulls.RandomSeeds, seed)
		r.Nulls.RandomInits, r.Nulls.RandomWallS = append(r.Nulls.RandomInits, std), r.Nulls.RandomWallS+wall
	}
}

// readBounded reads the regular file path, refusing one larger than limit.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s is over %d bytes", path, limit)
	}
	return b, nil
}
