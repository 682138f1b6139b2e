package llm

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas"

	"windtunnel/backends/gemm"
	"windtunnel/backends/par"
	"windtunnel/models/bpe"
	"windtunnel/models/hf"
)

// attentionFull is the attention of every (sequence, head) as one t×t product, softmax and
// product with the values: the pass before attention went by blocks of rows, kept to hold
// the blocked one to it.
func (m *Model) attentionFull(st *state, maps map[[2]int][]float32) {
	c := m.Config
	ch := st.ch
	d := c.HeadDim
	scale := float32(1 / math.Sqrt(float64(d)))
	q := c.Heads * d
	b := gemm.Go()
	for i := range ch.Seqs {
		for h := range c.Heads {
			g := h / (c.Heads / c.KVHeads)
			a, t := ch.Start[i], ch.Start[i+1]-ch.Start[i]
			qo, ko, vo := m.offsets(h, g)
			s := make([]float32, t*t)
			base := a * st.width
			b.Sgemm(blas.NoTrans, blas.Trans, t, t, d, scale, st.qkv[base+qo:], st.width, st.qkv[base+ko:], st.width, 0, s, t)
			for r := range t {
				lo := 0
				if c.SlidingWindow > 0 {
					lo = max(0, r-c.SlidingWindow+1)
				}
				softmaxCausal(s[r*t:(r+1)*t], lo, r)
			}
			maps[[2]int{i, h}] = s
			b.Sgemm(blas.NoTrans, blas.NoTrans, t, d, t, 1, s, t, st.qkv[base+vo:], st.width, 0, st.ctx[a*q+h*d:], q)
		}
	}
}

// TestAttentionBlocksMatchFullMaps holds the attention by blocks of query rows to the whole
// t×t computation: context vectors and every attention weight the tap sees bit-identical,
// for sequences shorter and longer than one block (t > 1024), with and without a sliding
// window (whose blocks skip the keys before it), grouped-query and GPT-NeoX layouts.
func TestAttentionBlocksMatchFullMaps(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fam    Family
		window int
		lens   []int
	}{
		{"llama", Llama, 0, []int{1, 9, 1100}},
		{"mistral-window", Mistral, 300, []int{1300, 5}},
		{"neox", GPTNeoX, 0, []int{1100}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Config{Family: tc.fam, Heads: 4, KVHeads: 2, HeadDim: 8, SlidingWindow: tc.window}
			layers := make([]layer, 1)
			if tc.fam == GPTNeoX {
				c.KVHeads = 4
				layers[0].qkv = &hf.Tensor{}
			}
			m := &Model{Config: c, layers: layers, pool: par.Pool{Workers: 2}, small: []gemm.Backend{gemm.Go(), gemm.Go()}}
			ch := &Chunk{Start: []int{0}}
			maxT := 0
			for i, n := range tc.lens {
				ch.Seqs = append(ch.Seqs, i)
				ch.Start = append(ch.Start, ch.Start[i]+n)
				maxT = max(maxT, n)
			}
			N, q := ch.Rows(), c.Heads*c.HeadDim
			st := &state{ch: ch, width: q + 2*c.KVHeads*c.HeadDim}
			r := rand.New(rand.NewPCG(5, 6))
			st.qkv = make([]float32, N*st.width)
			for i := range st.qkv {
				st.qkv[i] = float32(r.NormFloat64() * 2)
			}
			st.ctx = make([]float32, N*q)
			want := map[[2]int][]float32{}
			m.attentionFull(st, want)
			wantCtx := append([]float32(nil), st.ctx...)
			clear(st.ctx)
			got := map[[2]int][]float32{}
			for i, n := range tc.lens {
				for h := range c.Heads {
					got[[2]int{i, h}] = make([]float32, n*n)
				}
			}
			blocks := make([]int, 2) // tap calls for short and long sequences
			scores := make([][]float32, 2)
			for w := range scores {
				scores[w] = make([]float32, attnRows(maxT)*maxT)
			}
			var calls = make(chan int, 1<<16)
			m.attention(0, st, &Taps{Attention: func(l int, _ *Chunk, i, h, r0 int, p []float32, tt int) {
				copy(got[[2]int{i, h}][r0*tt:], p)
				calls <- tt
			}}, scores)
			close(calls)
			for tt := range calls {
				if tt <= 1024 {
					blocks[0]++
				} else {
					blocks[1]++
				}
			}
			for k, w := range want {
				for j, v := range got[k] {
					if v != w[j] {
						t.Fatalf("sequence %d head %d: weight %d is %g, want %g", k[0], k[1], j, v, w[j])
					}
				}
			}
			for j, v := range st.ctx {
				if v != wantCtx[j] {
					t.Fatalf("context value %d is %g, want %g", j, v, wantCtx[j])
				}
			}
			short, long := 0, 0
			for _, n := range tc.lens {
				if n <= 1024 {
					short += c.Heads
				} else {
					long += c.Heads * ((n + attnRows(n) - 1) / attnRows(n))
				}
			}
			if blocks[0] != short || blocks[1] != long {
				t.Errorf("tap called %v times (short, long sequences), want [%d %d]", blocks, short, long)
			}
		})
	}
}

// longModel is a one-layer Llama of small width that takes 4096 tokens.
func longModel(t *testing.T, opt Options) *Model {
	t.Helper()
	dir := t.TempDir()
	c := Config{Family: Llama, Layers: 1, Hidden: 16, Heads: 2, KVHeads: 2, HeadDim: 8, Intermediate: 16, Vocab: 300,
		RotaryDim: 8, RopeTheta: 10000, NormEps: 1e-5, RMSNorm: true, Gated: true, Act: SiLU, MaxPositions: 4096}
	tok := synthTokenizer(t)
	if err := WriteRandom(dir, c, RandomOptions{DType: hf.F32, Seed: 3, Tokenizer: tok}); err != nil {
		t.Fatal(err)
	}
	m, err := Load(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// TestLongSequenceMemory runs a sequence of 2048 tokens on 4 workers: the pass allocates
// O(t) per worker (before, every worker held a t×t map: 4 × 16 MiB), and ForwardMemory's
// estimate covers what it allocates.
func TestLongSequenceMemory(t *testing.T) {
	m := longModel(t, Options{Workers: 4})
	seq := make([]int, 2048)
	for i := range seq {
		seq[i] = i % 300
	}
	req := Request{Seqs: [][]int{seq}}
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	if _, err := m.Forward(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&b)
	alloc := int64(b.TotalAlloc - a.TotalAlloc)
	est := m.ForwardMemory(req)
	if alloc > 24<<20 {
		t.Errorf("a pass over 2048 tokens allocated %d MiB, want under 24 MiB (O(t) per worker)", alloc>>20)
	}
	if est.Total < alloc*9/10 || est.Total > 3*alloc+(8<<20) {
		t.Errorf("estimate %s against %d MiB allocated", est, alloc>>20)
	}
}

// TestForwardRefusesWhatDoesNotFit asks for every position's logits of a long sequence
// under a small memory limit: Forward refuses it up front, with the estimate and the limit.
func TestForwardRefusesWhatDoesNotFit(t *testing.T) {
	m := longModel(t, Options{Workers: 2, Available: func() (int64, string) { return 4 << 20, "RLIMIT_AS (ulimit -v)" }})
	seq := make([]int, 4096)
	_, err := m.Forward(context.Background(), Request{Seqs: [][]int{seq}, AllLogits: true})
	var me *MemoryError
	if !errors.As(err, &me) {
		t.Fatalf("got %v, want a *MemoryError", err)
	}
	for _, s := range []string{"4096 tokens", "4 MiB is available", "RLIMIT_AS", "logits"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not say %q", err, s)
		}
	}
	if _, err := m.Forward(context.Background(), Request{Seqs: [][]int{seq[:8]}}); err != nil {
		t.Errorf("a pass of 8 tokens that fits: %v", err)
	}
}

// synthTokenizer is a tokenizer.json of 300 ids for the tiny models.
func synthTokenizer(t *testing.T) []byte {
	t.Helper()
	tok, err := bpe.Synthesize(corpus, 300, bpe.Llama3)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}
