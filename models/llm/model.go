package llm

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"windtunnel/backends/gemm"
	"windtunnel/backends/par"
	"windtunnel/models/bpe"
	"windtunnel/models/hf"
)

// Model is a loaded language model: its configuration, its weights (mapped), its tokenizer
// and the back-end it computes on. Forward may be called from one goroutine at a time.
type Model struct {
	Config Config
	// Tokenizer is the folder's tokenizer.json.
	Tokenizer *bpe.Tokenizer
	// Dir is the model folder.
	Dir string

	folder       *hf.Folder
	embed, head  *hf.Tensor
	headB        []float32
	normW, normB []float32
	layers       []layer
	invFreq      []float64

	pool    par.Pool
	gemm    gemm.Backend   // the large products, split over the workers
	small   []gemm.Backend // one single-threaded backend per worker, for attention's products
	scratch []float32      // one weight matrix converted to float32
	backend string
	// available is Options.Available.
	available func() (int64, string)
	// failed is the first error of a pass's workers (a weight file changed under it).
	failMu sync.Mutex
	failed error
}

// fail records err as the pass's error, if it is the first.
func (m *Model) fail(err error) {
	m.failMu.Lock()
	if m.failed == nil {
		m.failed = err
	}
	m.failMu.Unlock()
}

// check returns (and clears) the error a worker recorded, else an error when a weight file
// no longer has the size it was mapped at: reading it would stop the process (SIGBUS).
func (m *Model) check() error {
	m.failMu.Lock()
	err := m.failed
	m.failed = nil
	m.failMu.Unlock()
	if err != nil {
		return fmt.Errorf("llm: %w", err)
	}
	if err := m.folder.Check(); err != nil {
		return fmt.Errorf("llm: %w", err)
	}
	return nil
}

// Options choose how a model computes.
type Options struct {
	// Workers is the goroutines the products and loops use (≤ 0: GOMAXPROCS).
	Workers int
	// Backend is the float32 GEMM (nil: the project's own, gemm.Go).
	Backend gemm.Backend
	// Available returns the memory a forward pass may allocate and the limit it comes from
	// (lab.AvailableMemoryFrom); Forward refuses a pass whose estimate (ForwardMemory) is
	// larger, with a *MemoryError. Nil, or 0 bytes (unknown): nothing is refused.
	Available func() (int64, string)
}

// Load opens the Hugging Face model folder dir: config.json (a supported family, see
// Families), the safetensors weights (mapped, every tensor's shape checked against the
// configuration) and tokenizer.json. Close releases the mapping.
func Load(dir string, opt Options) (*Model, error) {
	f, err := hf.Open(dir)
	if err != nil {
		return nil, err
	}
	m, err := load(f, opt)
	if err != nil {
		f.Close()
		return nil, err
	}
	return m, nil
}

func load(f *hf.Folder, opt Options) (*Model, error) {
	c, err := ParseConfig(f.Config)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, f.Dir)
	}
	tokPath := filepath.Join(f.Dir, "tokenizer.json")
	if _, err := os.Stat(tokPath); err != nil {
		return nil, fmt.Errorf("llm: %s: no tokenizer.json (the bench reads the fast tokenizer's file)", f.Dir)
	}
	tok, err := bpe.Load(tokPath)
	if err != nil {
		return nil, err
	}
	if tok.VocabSize() > c.Vocab {
		return nil, fmt.Errorf("llm: %s: tokenizer.json has ids up to %d, the model's vocabulary %d", f.Dir, tok.VocabSize()-1, c.Vocab)
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	b := opt.Backend
	if b == nil {
		b = gemm.Go()
	}
	m := &Model{Config: c, Tokenizer: tok, Dir: f.Dir, folder: f, invFreq: c.invFreq(), pool: par.Pool{Workers: workers}, available: opt.Available}
	if err := m.bind(f); err != nil {
		return nil, err
	}
	m.gemm = gemm.Parallel(b, workers)
	m.backend = m.gemm.Name()
	m.small = make([]gemm.Backend, workers)
	for i := range m.small {
		m.small[i] = gemm.Go()
	}
	return m, nil
}

// Backend names the GEMM the model computes with.
func (m *Model) Backend() string { return m.backend }

// Files lists the weight files read.
func (m *Model) Files() []string { return m.folder.Files }

// DType returns the element type of the weights (that of the embedding).
func (m *Model) DType() hf.DType { return m.embed.DType }

// Params returns the number of float weights in the folder.
func (m *Model) Params() int {
	n := 0
	for _, name := range m.folder.Names() {
		if t := m.folder.Tensor(name); t.DType.Float() {
			n += t.Len()
		}
	}
	return n
}

// Embeddings returns the input embedding rows of the token ids, each Hidden values.
func (m *Model) Embeddings(ids []int) ([][]float32, error) {
	out := make([][]float32, len(ids))
	for i, id := range ids {
		if id < 0 || id >= m.Config.Vocab {
			return nil, fmt.Errorf("llm: embeddings: token %d outside [0, %d)", id, m.Config.Vocab)
		}
		row, err := m.embed.Rows(id, id+1, make([]float32, m.Config.Hidden))
		if err != nil {
			return nil, err
		}
		out[i] = row
	}
	return out, nil
}

// Close releases the weights.
func (m *Model) Close() error { return m.folder.Close() }

// matrix returns t as float32: its mapped data when no conversion is needed, else
// converted into the model's scratch (valid until the next call).
func (m *Model) matrix(t *hf.Tensor) []float32 {
	if v, ok := t.View(); ok {
		return v
	}
	n := t.Len()
	if cap(m.scratch) < n {
		m.scratch = make([]float32, n)
	}
	dst := m.scratch[:n]
	cols := t.Cols()
	m.pool.Rows(t.RowCount(), max(1, 16384/max(1, cols)), func(lo, hi int) {
		if _, err := t.Rows(lo, hi, dst[lo*cols:hi*cols]); err != nil {
			m.fail(err) // shapes and dtypes were checked in bind: the file changed under the run
		}
	})
	return dst
}
