package derived

import (
	"encoding/json"
	"math"

	"windtunnel/diagnostics"
	"windtunnel/sessions"
)

// SettleBand is the band, a fraction of each series' range, that a frame or precision series
// must stay within from its settle step on.
const SettleBand = 0.1

// BitErrorFloor is the smallest bit error PrecisionScale tells apart (10⁻⁴ bits).
const BitErrorFloor = 1e-4

// PrecisionScale is the scale bit error settles on and is drawn on beside the frame: log2,
// floored at BitErrorFloor. Bit error falls over decades (4 bits to 0.01 on the mid preset),
// so on a linear scale its range is its first fall and a 10% band is crossed long before
// precision stops improving; on a log scale each halving counts the same.
func PrecisionScale(bits float64) float64 {
	return math.Log2(max(bits, BitErrorFloor))
}

// FramePassRatio is the authors' threshold for a formed frame: the J-lens overlap at three
// times its null, at their width.
const FramePassRatio = 3

// paperFrameMax is the largest ratio the authors' paper-size bijection model can reach
// (d = 192, a frame of 20 values, rank-8 J-lens: 192/20), for the scaled threshold.
const paperFrameMax = 192.0 / 20

// FrameThreshold is the ratio θ a formed frame passes (the pre-registered rule, docs/usage.md:
// The dissociation rule): 3 at the authors' size, whose largest ratio (1/null) is 9.6, and
// elsewhere the same fraction of the way from chance (1) to the largest ratio the model can
// reach, 1 + 2·(maxRatio − 1)/8.6 (scaled true where maxRatio is not the authors').
func FrameThreshold(maxRatio float64) (threshold float64, scaled bool) {
	th := 1 + (FramePassRatio-1)*(maxRatio-1)/(paperFrameMax-1)
	return th, math.Abs(maxRatio-paperFrameMax) > 1e-9
}

// FrameJLens is the frame line of a frame-precision history: at each point, the mean over
// sites of its J-lens ratio against the frame of the snapshot holding the history (the
// final frame at a run's last snapshot), NaN where a point has none; and whether any has.
func FrameJLens(points []sessions.FramePoint) ([]float64, bool) {
	out := make([]float64, len(points))
	any := false
	for k, p := range points {
		out[k] = MeanNum(p.JLens)
		any = any || len(p.JLens) > 0
	}
	return out, any
}

// JLensSnapshot is one recorded J-lens measurement and its step.
type JLensSnapshot struct {
	Step  int
	JLens *sessions.JLens
}

// FramePoint is the frame ratio at one snapshot, per site (the mean over its positions):
// against the frame of that snapshot's own embeddings (Current, what a live run measures
// first) and against the final snapshot's frame (Final, the authors' measure); Mean and
// MeanFinal average them over the sites (the statistic the authors report).
type FramePoint struct {
	Step      int       `json:"step"`
	Current   []float64 `json:"current"`
	Final     []float64 `json:"final"`
	Mean      float64   `json:"mean_current"`
	MeanFinal float64   `json:"mean_final"`
	// Positions[si][k] is the final-frame ratio at site si and position k (the last point's
	// only, to keep the series small; nil elsewhere).
	Positions [][]float64 `json:"positions_final,omitempty"`
}

// FrameRatios is a run's J-lens frame ratio series.
type FrameRatios struct {
	// Sites are the Jacobian sites (−1: the embedding output; l: after block l) and
	// Positions the scored positions measured.
	Sites     []int `json:"sites"`
	Positions []int `json:"positions"`
	// Null is the chance overlap, Max the largest ratio (1/Null), Threshold θ
	// (FrameThreshold; Scaled where the width is not the authors'); Seqs the sequences the
	// last snapshot's J-lens stacked.
	Null      float64      `json:"null"`
	Max       float64      `json:"max"`
	Threshold float64      `json:"threshold"`
	Scaled    bool         `json:"threshold_scaled"`
	Seqs      int          `json:"seqs"`
	Points    []FramePoint `json:"points"`
}

// FrameRatioSeries derives the frame ratio series from a run's snapshots in step order
// (those without a J-lens of the current statistic are skipped): the final frame is the last
// such snapshot's. It returns nil when none holds one.
func FrameRatioSeries(snaps []JLensSnapshot) *FrameRatios {
	var js []JLensSnapshot
	for _, s := range snaps {
		if s.JLens.Current() && len(s.JLens.Overlap) > 0 {
			js = append(js, s)
		}
	}
	if len(js) == 0 {
		return nil
	}
	last := js[len(js)-1].JLens
	fr := &FrameRatios{Sites: append([]int(nil), last.Sites...), Positions: append([]int(nil), last.Positions...),
		Null: float64(last.Null), Seqs: last.Seqs}
	fr.Max = 1 / fr.Null
	fr.Threshold, fr.Scaled = FrameThreshold(fr.Max)
	final := widen(last.Frame)
	for n, s := range js {
		j := s.JLens
		p := FramePoint{Step: s.Step}
		P := len(j.Positions)
		for si := range j.Overlap {
			p.Current = append(p.Current, float64(j.Overlap[si])/float64(j.Null))
			var per []float64
			if j.Width == last.Width && len(final) > 0 && len(j.Basis) == len(j.Sites)*P {
				null := diagnostics.OverlapNull(j.Width, last.FrameRank, j.Rank)
				for k := 0; k < P; k++ {
					v := math.NaN() // a cell without a subspace (recorded NaN)
					if si >= len(j.PositionOverlap) || k >= len(j.PositionOverlap[si]) || !math.IsNaN(float64(j.PositionOverlap[si][k])) {
						v = diagnostics.SubspaceOverlap(final, last.FrameRank, widen(j.Basis[si*P+k]), j.Rank, j.Width) / null
					}
					per = append(per, v)
				}
			}
			p.Final = append(p.Final, MeanFinite(per))
			if n == len(js)-1 {
				p.Positions = append(p.Positions, per)
			}
		}
		p.Mean, p.MeanFinal = MeanFinite(p.Current), MeanFinite(p.Final)
		fr.Points = append(fr.Points, p)
	}
	return fr
}

// WithHistory is fr with its earlier points taken from h, the frame-precision history of the
// snapshot holding fr's last point, when h has more of them: the history records every
// earlier snapshot's J-lens ratio per site against that snapshot's frame, the final one, so a
// session slimmed to its newest snapshot (sessions.Slim) keeps the run's whole series. Points
// from the history have the final-frame ratios alone (Final, MeanFinal; Current nil, Mean
// NaN); the last point stays fr's own. fr itself when h adds nothing (nil stays nil).
func (fr *FrameRatios) WithHistory(h *sessions.Frame) *FrameRatios {
	if fr == nil || h == nil || len(fr.Points) == 0 {
		return fr
	}
	last := fr.Points[len(fr.Points)-1]
	var early []FramePoint
	for _, p := range h.Points {
		if p.Step >= last.Step || len(p.JLens) == 0 {
			continue
		}
		fin := make([]float64, len(p.JLens))
		for i, v := range p.JLens {
			fin[i] = float64(v)
		}
		early = append(early, FramePoint{Step: p.Step, Final: fin, Mean: math.NaN(), MeanFinal: MeanFinite(fin)})
	}
	if len(early)+1 <= len(fr.Points) {
		return fr
	}
	out := *fr
	out.Points = append(early, last)
	return &out
}

// LastStep is the step of fr's last point, −1 when fr is nil or has none.
func (fr *FrameRatios) LastStep() int {
	if fr == nil || len(fr.Points) == 0 {
		return -1
	}
	return fr.Points[len(fr.Points)-1].Step
}

// MeanFinite is the mean of the finite values of xs (NaN when there are none).
func MeanFinite(xs []float64) float64 {
	sum, n := 0.0, 0
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			sum += x
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// MeanNum is MeanFinite of recorded numbers (a null is NaN).
func MeanNum(xs []sessions.Num) float64 {
	f := make([]float64, len(xs))
	for i, x := range xs {
		f[i] = float64(x)
	}
	return MeanFinite(f)
}

func widen(x []float32) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}

// ReadFrameRatios reads every snapshot of a session and derives its frame ratio series (nil
// when none holds a J-lens of the current statistic).
func ReadFrameRatios(r *sessions.Reader) (*FrameRatios, error) {
	steps, err := r.SnapshotSteps()
	if err != nil {
		return nil, err
	}
	snaps := make([]JLensSnapshot, 0, len(steps))
	for _, st := range steps {
		if j, err := r.JLensAt(st); err != nil {
			return nil, err
		} else if j != nil {
			snaps = append(snaps, JLensSnapshot{Step: st, JLens: j})
		}
	}
	return FrameRatioSeries(snaps), nil
}

// MarshalJSON implements json.Marshaler: NaN (a site or position without a subspace) is null.
func (p FramePoint) MarshalJSON() ([]byte, error) {
	type plain FramePoint
	nums := func(xs []float64) []sessions.Num {
		out := make([]sessions.Num, len(xs))
		for i, x := range xs {
			out[i] = sessions.Num(x)
		}
		return out
	}
	var pos [][]sessions.Num
	for _, row := range p.Positions {
		pos = append(pos, nums(row))
	}
	return json.Marshal(struct {
		plain
		Current   []sessions.Num   `json:"current"`
		Final     []sessions.Num   `json:"final"`
		Mean      sessions.Num     `json:"mean_current"`
		MeanFinal sessions.Num     `json:"mean_final"`
		Positions [][]sessions.Num `json:"positions_final,omitempty"`
	}{plain(p), nums(p.Current), nums(p.Final), sessions.Num(p.Mean), sessions.Num(p.MeanFinal), pos})
}
