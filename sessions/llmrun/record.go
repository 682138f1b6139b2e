package llmrun

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"windtunnel/backends/untrusted"
	"windtunnel/sessions"
)

// Version is the record's format version (2 added the nulls, the untied accuracy, the
// key-weight columns and the multi-layer axis protocol; a version-1 record still reads, with
// its verdicts undiagnosed).
const Version = 2

// FileName is the record's name in a run's output folder.
const FileName = "results.json"

// DefaultDir is a run's output folder when none is named: ./llm-runs/<time>-<model
// folder's name> (sessions.Stamp of now).
func DefaultDir(modelDir string, now time.Time) string {
	return filepath.Join("llm-runs", sessions.Stamp(now)+"-"+filepath.Base(filepath.Clean(modelDir)))
}

// Experiments are the measurements, in the order they are reported.
var Experiments = []string{"manifold", "sula", "keys", "focus", "axis"}

// Result is one run of the suite on one model.
type Result struct {
	Version     int      `json:"version"`
	Model       Model    `json:"model"`
	Experiments []string `json:"experiments"`
	// Seed seeds the SULA prompts, the sampled tokens and the random axis.
	Seed uint64 `json:"seed"`
	// WallS is the suite's wall time in seconds, Tokens the tokens run through the model.
	WallS  float64 `json:"wall_s"`
	Tokens int     `json:"tokens"`
	// Command is the command line that produced the record.
	Command  string `json:"command"`
	Manifold []Set  `json:"manifold,omitempty"`
	SULA     *SULA  `json:"sula,omitempty"`
	Keys     *Keys  `json:"keys,omitempty"`
	Focus    *Focus `json:"focus,omitempty"`
	Axis     *Axis  `json:"axis,omitempty"`
	// Nulls are the measurements on models that learnt nothing and under the paper's
	// controls (nil: measured without them, `--nulls none`, or a version-1 record).
	Nulls    *Nulls   `json:"nulls,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// Model describes the model measured.
type Model struct {
	Dir     string `json:"dir"`
	Family  string `json:"family"`
	Layers  int    `json:"layers"`
	Hidden  int    `json:"hidden"`
	Heads   int    `json:"heads"`
	KVHeads int    `json:"kv_heads"`
	HeadDim int    `json:"head_dim"`
	Vocab   int    `json:"vocab"`
	Params  int    `json:"params"`
	DType   string `json:"dtype"`
	Backend string `json:"backend"`
	// SlidingWindow is the attention window (0: none).
	SlidingWindow int `json:"sliding_window,omitempty"`
}

// Set is the value manifold of one prompt set: a standardised PCA of the final norm's output
// at each prompt's last position, against the model's next-token entropy there.
type Set struct {
	Name string `json:"name"`
	// Domain is true for a single-domain set (false: mixed, or the user's file).
	Domain bool `json:"domain"`
	N      int  `json:"n"`
	// Share holds the variance shares of PC1..PC3.
	Share    []sessions.Num `json:"share"`
	Spearman sessions.Num   `json:"pc1_entropy_spearman"`
	Pearson  sessions.Num   `json:"pc1_entropy_pearson"`
	// Points holds each prompt's PC1 and PC2; Entropy its next-token entropy in bits.
	Points  [][2]sessions.Num `json:"points"`
	Entropy []sessions.Num    `json:"entropy_bits"`
}

// SULA is the in-context experiment: calibration against the exact posterior and the
// representation's movement along its PC1 as k grows.
type SULA struct {
	Labels   [2]string `json:"labels"`
	LabelIDs [2]int    `json:"label_ids"`
	Alpha    float64   `json:"alpha"`
	// EntropyError is the mean over prompts of |H(model over the two labels) − H(posterior)|
	// in bits (the paper's entropy error; diagnostics' bit error (b)); KL and Accuracy as
	// diagnostics.Score gives them.
	EntropyError sessions.Num `json:"entropy_error_bits"`
	KLBits       sessions.Num `json:"kl_bits"`
	Accuracy     sessions.Num `json:"accuracy"`
	// AccuracyUntied is the accuracy over the prompts whose posterior is not tied (a tied
	// one, every k = 0 prompt among them, has no right answer).
	AccuracyUntied sessions.Num `json:"accuracy_untied,omitempty"`
	// LabelMass is the mean probability the model gives the two labels together (of all tokens).
	LabelMass sessions.Num `json:"label_mass"`
	// LengthRho is the Spearman correlation of k with the posterior's entropy over the
	// prompts: how well the prompt's length alone orders it (a control for the manifold's ρ).
	LengthRho sessions.Num `json:"length_rho"`
	ByK       []SULAK      `json:"by_k"`
	// Manifold is the standardised PCA over all the prompts' hidden states against the
	// posterior entropy (the paper's 150-prompt figure: PC1 share, ρ).
	Manifold Set          `json:"manifold"`
	Prompts  []SULAPrompt `json:"prompts"`
}

// SULAK is one shot count's calibration and place on PC1.
type SULAK struct {
	K            int          `json:"k"`
	N            int          `json:"n"`
	EntropyError sessions.Num `json:"entropy_error_bits"`
	ModelEntropy sessions.Num `json:"model_entropy_bits"`
	BayesEntropy sessions.Num `json:"bayes_entropy_bits"`
	KLBits       sessions.Num `json:"kl_bits"`
	Accuracy     sessions.Num `json:"accuracy"`
	PC1Mean      sessions.Num `json:"pc1_mean"`
	PC1SD        sessions.Num `json:"pc1_sd"`
}

// SULAPrompt is one prompt's outcome.
type SULAPrompt struct {
	K         int             `json:"k"`
	Text      string          `json:"text"`
	Posterior [2]sessions.Num `json:"posterior"`
	Model     [2]sessions.Num `json:"model"`
	BayesH    sessions.Num    `json:"bayes_entropy_bits"`
	ModelH    sessions.Num    `json:"model_entropy_bits"`
}

// Keys is key orthogonality per layer and key/value head: the mean |cosine| between the
// mean keys (before the rotary embedding) of distinct tokens, beside the same statistic of
// Gaussian vectors of the head's dimension; and the authors' proxy, the token embeddings'.
type Keys struct {
	// Real[l][g] is layer l, key/value head g.
	Real [][]sessions.Num `json:"real"`
	// ByLayer is Real averaged over heads.
	ByLayer []sessions.Num `json:"by_layer"`
	// Tokens is the number of distinct tokens whose mean keys are compared.
	Tokens int `json:"tokens"`
	// Random is the statistic for Tokens Gaussian vectors of HeadDim dimensions.
	Random sessions.Num `json:"random"`
	// Proxy is the authors' statistic: the mean |cosine| between the input embeddings of
	// ProxyTokens token ids drawn uniformly (the same for every layer).
	Proxy       sessions.Num `json:"embedding_proxy"`
	ProxyTokens int          `json:"proxy_tokens"`
	// Columns is the paper's statistic (§4.2) per layer: the mean |cosine| between the
	// columns of W_K (each a vector of the residual width, one per key dimension), averaged
	// over key/value heads; ColumnsGaussian the same for Gaussian vectors of that shape.
	Columns         []sessions.Num `json:"wk_columns,omitempty"`
	ColumnsGaussian sessions.Num   `json:"wk_columns_gaussian,omitempty"`
}

// Focus is dynamic focusing: the entropy in bits of each head's attention at each prompt's
// last position, averaged over prompts.
type Focus struct {
	// Entropy[l][h] is layer l, head h.
	Entropy [][]sessions.Num `json:"entropy_bits"`
	// ByLayer is Entropy averaged over heads.
	ByLayer []sessions.Num `json:"by_layer"`
	// Uniform is the mean entropy of uniform attention over the same prompts (log2 of the
	// prompt's length), the level without focus.
	Uniform sessions.Num `json:"uniform_bits"`
	// Drop is (first − last)/first of ByLayer; Spearman the rank correlation of ByLayer
	// with the layer index.
	Drop     sessions.Num `json:"drop"`
	Spearman sessions.Num `json:"spearman"`
	Prompts  int          `json:"prompts"`
}

// Axis is the entropy-axis ablation on the SULA prompts at one layer: the values' PC1 (the
// entropy axis, signed to rise with the model's entropy) projected out of every position's
// values, against a random unit axis projected out the same way.
type Axis struct {
	// Layer is the last layer cut; Layers every layer cut (the paper's protocol cuts the last
	// five, each along its own axis; a version-1 record cut Layer alone).
	Layer  int   `json:"layer"`
	Layers []int `json:"layers,omitempty"`
	// Standardised is true when the axes are PC1s of the values standardised per dimension
	// and the random axes are orthogonalised against them (the paper's protocol).
	Standardised bool `json:"standardised,omitempty"`
	// SD is the values' standard deviation along the entropy axis.
	SD     sessions.Num `json:"sd"`
	Base   Condition    `json:"base"`
	Cut    Condition    `json:"entropy_axis_cut"`
	Random Condition    `json:"random_axis_cut"`
	// CalibrationChange is (Cut − Base)/Base of the entropy error; RandomChange the same
	// for the random cut.
	CalibrationChange sessions.Num `json:"calibration_change"`
	RandomChange      sessions.Num `json:"random_calibration_change"`
}

// Condition is what the ablation measures in one condition.
type Condition struct {
	// EntropyError is the SULA entropy error (bits).
	EntropyError sessions.Num `json:"entropy_error_bits"`
	// AxisCorr is the Pearson correlation of the layer's last-position values (as edited)
	// projected on the entropy axis with the model's entropy over the two labels (the
	// authors' local-geometry statistic).
	AxisCorr sessions.Num `json:"axis_entropy_corr"`
	// HiddenRho is |ρ(PC1, posterior entropy)| of the final hidden states (standardised PCA).
	HiddenRho sessions.Num `json:"hidden_rho"`
}

// Write writes r as indented JSON to path, whole or not at all (sessions.WriteOutput: an
// older record there stays when the disk is full; a link there is refused).
func Write(path string, r *Result) error {
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return fmt.Errorf("llmrun: encode: %w", err)
	}
	if err := sessions.WriteOutput(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("llmrun: write: %w", err)
	}
	return nil
}

// Bounds on a record read back.
const (
	// MaxFile is the largest record read.
	MaxFile = 64 << 20
	maxList = 1 << 20
)

// Read reads the record at path, checking its version and bounds.
func Read(path string) (*Result, error) {
	f, _, err := untrusted.Open(path) // a FIFO refused, not waited on
	if err != nil {
		return nil, fmt.Errorf("llmrun: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxFile+1))
	if err != nil {
		return nil, fmt.Errorf("llmrun: read %s: %w", path, err)
	}
	if len(b) > MaxFile {
		return nil, fmt.Errorf("llmrun: %s: over %d bytes", path, MaxFile)
	}
	var r Result
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("llmrun: %s: %w", path, err)
	}
	if err := untrusted.CheckJSON(b); err != nil { // a key twice, at any depth
		return nil, fmt.Errorf("llmrun: %s: %w", path, err)
	}
	if err := r.check(); err != nil {
		return nil, fmt.Errorf("llmrun: %s: %w", path, err)
	}
	return &r, nil
}

// check bounds what a reader sizes from: layer and head counts and the grids' shapes.
func (r *Result) check() error {
	if r.Version != Version && r.Version != 1 {
		return fmt.Errorf("version %d, want 1 or %d", r.Version, Version)
	}
	m := r.Model
	if m.Layers < 0 || m.Layers > sessions.MaxLayers || m.Heads < 0 || m.Heads > sessions.MaxHeads || m.KVHeads < 0 || m.KVHeads > sessions.MaxHeads {
		return fmt.Errorf("model of %d layers, %d heads, %d key/value heads: out of bounds", m.Layers, m.Heads, m.KVHeads)
	}
	grid := func(name string, g [][]sessions.Num, cols int) error {
		if g == nil {
			return nil
		}
		if len(g) != m.Layers {
			return fmt.Errorf("%s has %d layers, the model %d", name, len(g), m.Layers)
		}
		for l, row := range g {
			if len(row) != cols {
				return fmt.Errorf("%s layer %d has %d heads, want %d", name, l, len(row), cols)
			}
		}
		return nil
	}
	if r.Keys != nil {
		if err := grid("keys", r.Keys.Real, m.KVHeads); err != nil {
			return err
		}
		if len(r.Keys.ByLayer) != len(r.Keys.Real) {
			return fmt.Errorf("keys: %d layer means for %d layers", len(r.Keys.ByLayer), len(r.Keys.Real))
		}
	}
	if r.Focus != nil {
		if err := grid("focus", r.Focus.Entropy, m.Heads); err != nil {
			return err
		}
		if len(r.Focus.ByLayer) != len(r.Focus.Entropy) {
			return fmt.Errorf("focus: %d layer means for %d layers", len(r.Focus.ByLayer), len(r.Focus.Entropy))
		}
	}
	sets := append([]Set(nil), r.Manifold...)
	if r.SULA != nil {
		sets = append(sets, r.SULA.Manifold)
		if len(r.SULA.Prompts) > maxList || len(r.SULA.ByK) > maxList {
			return fmt.Errorf("sula: too many prompts")
		}
	}
	for _, s := range sets {
		if len(s.Points) != len(s.Entropy) || len(s.Points) > maxList || len(s.Share) > 3 {
			return fmt.Errorf("manifold %q: %d points, %d entropies, %d shares", s.Name, len(s.Points), len(s.Entropy), len(s.Share))
		}
	}
	if r.Keys != nil && len(r.Keys.Columns) > m.Layers {
		return fmt.Errorf("keys: %d column statistics for %d layers", len(r.Keys.Columns), m.Layers)
	}
	if r.Axis != nil && len(r.Axis.Layers) > m.Layers {
		return fmt.Errorf("axis: %d layers cut of %d", len(r.Axis.Layers), m.Layers)
	}
	return r.Nulls.check(m)
}
