package sessions

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// bigSession is a 100k-step session shaped like a quick-preset run at the default cadence:
// a record every step, an evaluation (19-position curves) and a 4×4 snapshot every 250
// steps, a checkpoint of 203,456 float32 parameters every 500 (AdamW state on the last).
var bigSession struct {
	once sync.Once
	path string
	err  error
}

const bigSteps = 100_000

func makeBig(b *testing.B) string {
	bigSession.once.Do(func() {
		dir, err := os.MkdirTemp("", "wtbench")
		if err != nil {
			bigSession.err = err
			return
		}
		path := filepath.Join(dir, "big.wtlab")
		w, err := Create(path, testMeta(), WriterOptions{})
		if err != nil {
			bigSession.err = err
			return
		}
		curve := make([]float64, 19)
		for i := range curve {
			curve[i] = 4.3 - 0.2*float64(i)
		}
		params := make([]float32, 203_456)
		for s := 1; s <= bigSteps; s++ {
			r := Record{Step: s, WallS: 0.05 * float64(s), Loss: 1 + 1/float64(s), LR: 1e-3, GradNorm: 0.3, StepsPerS: 20, State: Training}
			if s%250 == 0 {
				r.Eval = &Eval{BitErrorPosition: 1 / float64(s), BitErrorSample: 1 / float64(s), KLBits: 0.01, TVD: 0.02, Accuracy: 0.99,
					ModelEntropy: curve, BayesEntropy: curve}
				r.Snapshot = &Snapshot{AttentionEntropy: [][]float64{{1, 2, 3, 4}, {1, 2, 3, 4}, {1, 2, 3, 4}, {1, 2, 3, 4}}}
			}
			w.Record(r)
			if s%500 == 0 {
				c := &Checkpoint{Step: s, Params: []Tensor{{Name: "all", Shape: []int{len(params)}, F32: params}}}
				if s == bigSteps {
					m := make([]float64, len(params))
					c.OptStep, c.M, c.V = s, []Tensor{{Name: "all", Shape: []int{len(m)}, F64: m}}, []Tensor{{Name: "all", Shape: []int{len(m)}, F64: m}}
				}
				w.Checkpoint(c)
			}
			if s%5000 == 0 {
				w.Flush()
			}
		}
		bigSession.path, bigSession.err = path, w.Close()
	})
	if bigSession.err != nil {
		b.Fatal(bigSession.err)
	}
	return bigSession.path
}

// BenchmarkOpen100k opens a 100k-step session and reads its meta and step range. The file
// size per 1k steps is reported as a metric.
func BenchmarkOpen100k(b *testing.B) {
	path := makeBig(b)
	st, _ := os.Stat(path)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, hi, ok := r.Span(); !ok || hi != bigSteps {
			b.Fatal("span", hi)
		}
		r.Close()
	}
	b.ReportMetric(float64(st.Size())/1e6/(bigSteps/1000), "MB/1k-steps")
}

// BenchmarkJump100k moves a replay to a random step of a 100k-step session: the record
// there, the snapshot at or before it, the chart's 200 thinned scalars and the evaluations
// up to it — what the dashboard reads on a scrub.
func BenchmarkJump100k(b *testing.B) {
	r, err := Open(makeBig(b))
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	rng := rand.New(rand.NewPCG(1, 1))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := 1 + rng.IntN(bigSteps)
		if rec, ok, err := r.At(s); err != nil || !ok || rec.Step != s {
			b.Fatal(rec.Step, s, err)
		}
		if _, _, err := r.Snapshot(s); err != nil {
			b.Fatal(err)
		}
		if _, err := r.Scalars(s, 200); err != nil {
			b.Fatal(err)
		}
		if _, err := r.Evals(s, 200); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAt100k is one jump: the record at a random step of a 100k-step session.
func BenchmarkAt100k(b *testing.B) {
	r, err := Open(makeBig(b))
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	rng := rand.New(rand.NewPCG(2, 2))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, ok, err := r.At(1 + rng.IntN(bigSteps)); err != nil || !ok {
			b.Fatal(err)
		}
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bigSession.path != "" {
		os.RemoveAll(filepath.Dir(bigSession.path))
	}
	os.Exit(code)
}

// BenchmarkScalars100k is the run pane's and the scalar charts' read at a random step of a
// 100k-step session: 200 thinned records.
func BenchmarkScalars100k(b *testing.B) {
	r, err := Open(makeBig(b))
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	rng := rand.New(rand.NewPCG(3, 3))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if recs, err := r.Scalars(1000+rng.IntN(bigSteps-1000), 200); err != nil || len(recs) != 200 {
			b.Fatal(len(recs), err)
		}
	}
}
