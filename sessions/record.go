package sessions

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"
	"windtunnel/diagnostics"
)

// State is a run's lifecycle state as shown in the Run pane.
type State string

// The states of a run.
const (
	Training State = "training"
	Paused   State = "paused"
	Done     State = "done"
	Stopped  State = "stopped"
	Failed   State = "failed"
)

// Record is the unit of everything shown and saved: one training step's scalars and, at
// the evaluation cadence, the held-out metrics and a snapshot of the network's geometry.
type Record struct {
	Step      int     `json:"step"`
	WallS     float64 `json:"wall_s"`
	Loss      float64 `json:"loss"`
	LR        float64 `json:"lr"`
	GradNorm  float64 `json:"grad_norm"`
	StepsPerS float64 `json:"steps_per_s"`
	State     State   `json:"state"`
	Message   string  `json:"message,omitempty"`
	// GPUShare is the fraction of step time spent on the GPU (0 on CPU).
	GPUShare float64   `json:"gpu_share,omitempty"`
	Eval     *Eval     `json:"eval,omitempty"`
	Snapshot *Snapshot `json:"snapshot,omitempty"`
}

// Eval holds the held-out probe-set metrics at one step (definitions: docs/usage.md: run and Geometry).
type Eval struct {
	// BitErrorPosition is bit error (a), per-position: |mean_seq H(q) − mean_seq H(p*)| averaged over positions.
	BitErrorPosition float64 `json:"bit_error_position"`
	// BitErrorSample is bit error (b), per-sample: mean of |H(q) − H(p*)|.
	BitErrorSample float64 `json:"bit_error_sample"`
	// KLBits is the mean KL(p*‖q) in bits.
	KLBits float64 `json:"kl_bits"`
	// TVD is the mean total variation distance.
	TVD float64 `json:"tvd"`
	// Accuracy is the fraction of positions where the model's top class is a MAP class.
	Accuracy float64 `json:"accuracy"`
	// ModelEntropy is the model's mean entropy (bits) per scored position.
	ModelEntropy []float64 `json:"model_entropy_bits"`
	// BayesEntropy is the exact posterior's mean entropy (bits) per scored position.
	BayesEntropy []float64 `json:"bayes_entropy_bits"`
	// KLByPosition is the mean KL(p*‖q) in bits at each scored position (its mean over the
	// positions is KLBits); TVDByPosition is the mean total variation distance at each (its
	// mean is TVD). Num, so a diverged model still records. nil in sessions written before
	// they were recorded.
	KLByPosition  []Num `json:"kl_by_position,omitempty"`
	TVDByPosition []Num `json:"tvd_by_position,omitempty"`
	// Ablated lists the heads that were zeroed for this evaluation (empty: the whole model).
	Ablated []Head `json:"ablated,omitempty"`
	// Lengths is the length-generalisation curve of an hmm run (docs/usage.md: --eval-k): the whole
	// model scored on a probe set drawn at each evaluated K, ascending, the training K
	// included (its entry repeats the scores above); nil when the run evaluates one length
	// and for an ablated evaluation (or the one taken when every head is switched back on).
	Lengths []LengthScore `json:"lengths,omitempty"`
}

// LengthScore is the probe-set scores at one sequence length K (HMM observations). The
// numbers are Num so that a model gone non-finite at an untrained length still records.
type LengthScore struct {
	K int `json:"k"`
	// Train marks the training length: positions after it were never trained.
	Train bool `json:"train,omitempty"`
	// KLBits is the mean KL(p*‖q) in bits; BitErrorPosition and BitErrorSample are bit
	// error (a) and (b); Accuracy the MAP accuracy (definitions: docs/usage.md: run and Geometry).
	KLBits           Num `json:"kl_bits"`
	BitErrorPosition Num `json:"bit_error_position"`
	BitErrorSample   Num `json:"bit_error_sample"`
	Accuracy         Num `json:"accuracy"`
	// KLByPosition is the mean KL(p*‖q) in bits at each of the K scored positions.
	KLByPosition []Num `json:"kl_by_position,omitempty"`
}

// Head names one attention head.
type Head struct {
	Layer int `json:"layer"`
	Head  int `json:"head"`
}

// String is the head's name as the tool prints it, L<layer>H<head> ("L0H1"): a name no
// spreadsheet or CSV reader takes for a number (as it would "0.1", which also cannot tell
// L0H1 from L0H10).
func (h Head) String() string { return "L" + strconv.Itoa(h.Layer) + "H" + strconv.Itoa(h.Head) }

// HeadNames are the heads' names (Head.String), in order; nil for none.
func HeadNames(hs []Head) []string {
	if len(hs) == 0 {
		return nil
	}
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.String()
	}
	return out
}

// Snapshot is the network's geometry on the probe set at one step (docs/usage.md: Geometry); fields a
// model has no meaning for are nil.
type Snapshot struct {
	// AttentionEntropy is the mean entropy (bits) of attention rows at scored positions, [layer][head].
	AttentionEntropy [][]float64 `json:"attention_entropy,omitempty"`
	// AttentionMass is the mean attention mass on the evidence tokens at scored positions
	// (for bijection: the revealed values), [layer][head].
	AttentionMass [][]float64 `json:"attention_mass,omitempty"`
	// KeyOrthogonality is the mean |off-diagonal cosine| of the per-token mean keys, [layer][head].
	KeyOrthogonality [][]float64 `json:"key_orthogonality,omitempty"`
	// KeyOrthogonalityRandom is the same statistic for random Gaussian vectors of the same
	// count and dimension (the baseline the paper compares against).
	KeyOrthogonalityRandom float64 `json:"key_orthogonality_random,omitempty"`
	// KeyOrthogonalityEmbed is the authors' key orthogonality (the authors' statistic 2; docs/usage.md: Geometry),
	// [layer][head]: the value tokens' embeddings (no position embedding), normalised by the
	// layer's pre-attention RMSNorm with its learned scale, projected through the layer's W_K
	// restricted to the head's columns, mean |off-diagonal cosine| (no centring). The value
	// tokens are the tunnel's class tokens (bijection and recall values), else its evidence
	// tokens (HMM symbols). nil without attention, and in sessions written before it was
	// recorded.
	KeyOrthogonalityEmbed [][]float64 `json:"key_orthogonality_embed,omitempty"`
	// KeyOrthogonalityEmbedInit is the same statistic for the same model at initialisation
	// (the parameters rebuilt from the run's seed), [layer][head].
	KeyOrthogonalityEmbedInit [][]float64 `json:"key_orthogonality_embed_init,omitempty"`
	// KeyOrthogonalityEmbedTokens is the number of value tokens both were taken over.
	KeyOrthogonalityEmbedTokens int `json:"key_orthogonality_embed_tokens,omitempty"`
	// QKAlignment is, per layer, the P×T map (row-major, flattened) of the cosine between the
	// query at each scored position and each earlier key, averaged over heads and sequences;
	// entries after the query's position are null.
	QKAlignment [][]Num `json:"qk_alignment,omitempty"`
	// QKPositions are the scored positions (rows of QKAlignment); T is its column count.
	QKPositions []int `json:"qk_positions,omitempty"`
	// Manifold is the value manifold: PCA of the final-norm residual at scored positions.
	Manifold *Manifold `json:"value_manifold,omitempty"`
	// ManifoldOne is the value manifold over one sequence's scored positions (the first
	// sequence of the probe set; the sampling of the authors' figures). Its PC1 share is
	// larger than Manifold's (≈60% vs ≈30% for an exact-Bayes representation), |ρ(PC1,
	// entropy)| comparable. nil in sessions written before it was recorded.
	ManifoldOne *Manifold `json:"value_manifold_one_sequence,omitempty"`
	// Frame is the frame-precision history up to this snapshot.
	Frame *Frame `json:"frame,omitempty"`
	// Ablation holds the effect of zeroing each head, each layer's attention and MLP (or each
	// recurrent layer) on the probe subset, as changes from the unablated model.
	Ablation []diagnostics.Effect `json:"ablation,omitempty"`
	// HeadDelta is Δ bit error (a) with each head zeroed, [layer][head] (null where not
	// measured), derived from Ablation when the snapshot was taken.
	HeadDelta [][]Num `json:"head_delta,omitempty"`
	// Costliest is the unit of Ablation (any kind) whose zeroing costs the most bits, and
	// CostliestHead the costliest head; nil when there is none.
	Costliest     *diagnostics.Effect `json:"costliest,omitempty"`
	CostliestHead *diagnostics.Effect `json:"costliest_head,omitempty"`
	// ProbeN is the number of probe sequences the geometry was computed on.
	ProbeN int `json:"probe_n,omitempty"`
	// JLens is the authors' training-time frame statistic at this snapshot (attention
	// models); nil without attention and in sessions written before it was recorded.
	JLens *JLens `json:"jlens,omitempty"`
	// Simplex is the belief-simplex geometry of the final layer's states at the observation
	// positions (hmm runs); nil for other tunnels and in sessions written before it was
	// recorded.
	Simplex *Simplex `json:"simplex,omitempty"`
	// SimplexInit is the same measurement of the same model untrained (rebuilt from the
	// seed), without the figure's points: the null of Paper I's simplex claim; nil where
	// Simplex is, and in sessions written before it was recorded.
	SimplexInit *Simplex `json:"simplex_init,omitempty"`
}

// Simplex is Paper I's belief-simplex measurement of an hmm snapshot (diagnostics.Simplex):
// a k-means with k = the hidden states against the exact posterior's argmax state, the R²
// of the least-squares map from the final layer's states to the posterior, each cluster
// centre's image distance from its corner, and the states' first two principal components
// (a subsample) with each point's argmax state, for the figure.
type Simplex struct {
	States         int   `json:"states"`
	Purity         Num   `json:"purity"`
	R2             Num   `json:"r2"`
	CornerDist     []Num `json:"corner_dist"`
	MeanCornerDist Num   `json:"mean_corner_dist"`
	// SymbolPurity is the same clusters' purity against the symbol observed at each point
	// (what the clusters are when they are not the states; 0: not recorded, before
	// 2026-11-29).
	SymbolPurity Num `json:"symbol_purity,omitempty"`
	// N is the number of points measured; Points (PC1, PC2) and Argmax a subsample of them.
	N      int          `json:"n"`
	Points [][2]float64 `json:"points,omitempty"`
	Argmax []int        `json:"argmax,omitempty"`
}

// JLensStatistic names the J-lens statistic of a JLens record: the authors' (docs/usage.md:
// The frame, measured the authors' way). Records without it (written before
// 2026-11-28) differentiated the logits at the same position and pooled the positions; the
// readers leave them out.
const JLensStatistic = "later-logits"

// JLens is Paper I's training-time frame measurement, as the authors take it: for each site
// (the residual stream at the embedding output, or after a block) and each scored position
// i, the J-lens subspace is spanned by the top Rank right singular vectors of the Jacobians
// of the class logits at every later position p′ > i with respect to the residual stream at
// i, stacked over the classes, the later positions and Seqs probe sequences. Its overlap with
// the embedding frame (the span of the class tokens' embeddings through block 0's RMSNorm, or
// the output head's class columns where the head is not tied) is ‖UᵀW‖²_F / min(rank U,
// rank W); Null is its mean for a random subspace of Rank dimensions, and the statistic is
// the overlap over Null, averaged over the positions and the sites (1: chance; the authors'
// threshold 3 at their width).
type JLens struct {
	// Statistic is JLensStatistic ("" in older records, which readers leave out).
	Statistic string `json:"statistic,omitempty"`
	// Sites are where the Jacobians were taken: −1 the embedding output, l ≥ 0 after block l.
	Sites []int `json:"sites"`
	// Positions are the scored positions measured (those with a later position).
	Positions []int `json:"positions,omitempty"`
	// Width is the residual width d; Rank the J-lens subspaces' rank; FrameRank the frame's.
	Width     int `json:"width"`
	Rank      int `json:"rank"`
	FrameRank int `json:"frame_rank"`
	// Seqs is the number of probe sequences the Jacobians were stacked over.
	Seqs int `json:"seqs"`
	// Null is the mean overlap of a random Rank-dimensional subspace with the frame.
	Null Num `json:"null"`
	// Overlap is, per site, the mean over Positions of the overlap with the frame of this
	// snapshot's embeddings, and PositionOverlap[site][k] the overlap at Positions[k].
	Overlap         []Num   `json:"overlap"`
	PositionOverlap [][]Num `json:"position_overlap,omitempty"`
	// Gap[site][k] is the relative gap after the Rank-th eigenvalue of that subspace's Gram
	// (diagnostics.Gap): near 0 the subspace is ill-defined.
	Gap [][]Num `json:"eigen_gap,omitempty"`
	// Frame is the frame's orthonormal basis, Width×FrameRank row-major, and Basis the J-lens
	// subspaces', Width×Rank, one per site and position (index site·len(Positions)+k): a reader
	// measures the overlap with another frame (the final snapshot's) from them.
	Frame []float32   `json:"frame_basis"`
	Basis [][]float32 `json:"basis"`
}

// Current reports whether the record holds the current statistic (JLensStatistic).
func (j *JLens) Current() bool { return j != nil && j.Statistic == JLensStatistic }

// Num is a float64 that encodes NaN as JSON null (and decodes null as NaN).
type Num float64

// MarshalJSON implements json.Marshaler.
func (n Num) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (n *Num) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = Num(math.NaN())
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("sessions: number %q: %w", b, err)
	}
	*n = Num(f)
	return nil
}

// Manifold is the value-manifold readout (docs/usage.md: Geometry).
type Manifold struct {
	// Share is the explained-variance fraction of PC1..PC3.
	Share []float64 `json:"share"`
	// Pearson and Spearman correlate PC1 with the posterior entropy (null when undefined).
	Pearson  Num `json:"pc1_entropy_pearson"`
	Spearman Num `json:"pc1_entropy_spearman"`
	// Points are the PC1..PC3 coordinates of a subsample of the scored positions.
	Points [][]float64 `json:"points,omitempty"`
	// Entropy is the posterior entropy (bits) at each point.
	Entropy []float64 `json:"entropy,omitempty"`
	// Sequences is the number of probe sequences whose scored positions were sampled (1 for
	// the one-sequence sampling) and N the number of points the shares and correlations were
	// computed on (Points may be a subsample); 0 in sessions written before they were recorded.
	Sequences int `json:"sequences,omitempty"`
	N         int `json:"n_points,omitempty"`
}

// Frame is the frame-precision dissociation up to one snapshot: for every snapshot so far,
// how far its attention pattern is from the previous one and from this (the latest) one,
// beside the precision measures at that step.
type Frame struct {
	Points []FramePoint `json:"points"`
	// Settle says when each series settled, derived when the snapshot was taken; nil in
	// sessions written before it was recorded.
	Settle *Settle `json:"settle,omitempty"`
}

// Settle holds the steps from which the frame and precision series stayed within Band (a
// fraction of each series' range) of their value at this snapshot: the frame is the mean
// over layers of FramePoint.ToLatest, the precision log2 of bit error (a) (floored at 10⁻⁴
// bits; sessions written before 2026-11-23 used bit error itself) and 1−|ρ(PC1, entropy)|.
// A step of −1 means the series has not settled (it last left the band at its newest point).
type Settle struct {
	Band     float64 `json:"band"`
	Frame    int     `json:"frame"`
	BitError int     `json:"bit_error"`
	Rho      int     `json:"rho"`
}

// FramePoint is one earlier (or this) snapshot's frame and precision.
type FramePoint struct {
	Step int `json:"step"`
	// Drift is, per layer, 1 − mean Pearson correlation of the attention rows with the
	// previous snapshot's (null at the first snapshot).
	Drift []Num `json:"drift"`
	// ToLatest is, per layer, the same distance to the snapshot holding this Frame.
	ToLatest []Num `json:"to_latest"`
	// BitError is bit error (a) at that step, BitErrorSample bit error (b) (0 in sessions
	// written before it was recorded).
	BitError       float64 `json:"bit_error"`
	BitErrorSample float64 `json:"bit_error_sample,omitempty"`
	// PC1Abs is |ρ(PC1, entropy)| (Spearman) and PC1Share the PC1 variance share.
	PC1Abs   Num `json:"pc1_abs_rho"`
	PC1Share Num `json:"pc1_share"`
	// JLens is, per site of that snapshot's JLens (the current statistic), the mean over its
	// positions of the overlap ratio (overlap / null) of its J-lens subspaces with the frame of
	// the snapshot holding this Frame: at a run's last snapshot, the final frame, as the
	// authors measure. nil where it was not recorded (older sessions recorded a ratio against
	// each snapshot's own frame, under another key, which readers leave out).
	JLens []Num `json:"jlens_latest,omitempty"`
}

// EventKind names an operator action.
type EventKind string

// The operator actions a session records and a live run obeys.
const (
	EventPause   EventKind = "pause"
	EventResume  EventKind = "resume"
	EventStop    EventKind = "stop"
	EventHead    EventKind = "head"    // Layer, Head, On: switch one head on or off
	EventRestore EventKind = "restore" // switch every head back on
)

// Event is an operator action and the step at which it took effect.
type Event struct {
	Step  int       `json:"step"`
	WallS float64   `json:"wall_s"`
	Kind  EventKind `json:"kind"`
	Layer int       `json:"layer,omitempty"`
	Head  int       `json:"head,omitempty"`
	On    bool      `json:"on,omitempty"`
	// By names who sent the event when it came from outside the trainer's own terminal:
	// "ssh:SHA256:…" for a key admitted by serve, "" for the local dashboard.
	By string `json:"by,omitempty"`
}

// Meta describes a run: what it trains and where.
type Meta struct {
	Task   string `json:"task"`
	Model  string `json:"model"`
	Params int    `json:"params"`
	// Layers and Heads size the ablation grid (Heads is 0 for models without attention).
	Layers int `json:"layers"`
	Heads  int `json:"heads"`
	// Steps is the planned number of training steps.
	Steps int `json:"steps"`
	// Device is "cpu" or "cuda"; DeviceName and Driver describe it.
	Device     string    `json:"device"`
	DeviceName string    `json:"device_name,omitempty"`
	Driver     string    `json:"driver,omitempty"`
	BLAS       string    `json:"blas,omitempty"`
	Version    string    `json:"version"`
	Host       string    `json:"host"`
	Created    time.Time `json:"created"`
	// Config is the lab configuration as JSON.
	Config json.RawMessage `json:"config"`
	// Path is the session file ("" when not recorded).
	Path string `json:"path,omitempty"`
	// Socket is the live run's control socket ("" when it has none).
	Socket string `json:"socket,omitempty"`
}

// Whole reports whether r carries an evaluation of the whole model (no head switched off):
// the evaluations every curve, table and verdict is made of.
func (r Record) Whole() bool { return r.Eval != nil && len(r.Eval.Ablated) == 0 }

// WholeEvals returns the records of recs that carry an evaluation of the whole model, in
// their order.
func WholeEvals(recs []Record) []Record {
	var out []Record
	for _, r := range recs {
		if r.Whole() {
			out = append(out, r)
		}
	}
	return out
}

// LastWhole returns the newest record of recs (in step order) that carries an evaluation of
// the whole model, and whether there is one.
func LastWhole(recs []Record) (Record, bool) {
	for i := len(recs) - 1; i >= 0; i-- {
		if recs[i].Whole() {
			return recs[i], true
		}
	}
	return Record{}, false
}
