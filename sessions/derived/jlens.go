package derived

import (
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

// FramePassRatio is the authors' threshold for a settled frame: the J-lens overlap at three
// times its null.
const FramePassRatio = 3

// paperFrameMax is the largest ratio the authors' paper-size bijection model can reach
// (d = 192, a frame of 20 values, rank-8 J-lens: 192/20), for the scaled threshold.
const paperFrameMax = 192.0 / 20

// FrameThreshold is the ratio a frame must pass: FramePassRatio where the model can reach it
// (its largest ratio, 1/null, is at least FramePassRatio), else the same fraction of the way
// from chance (1) to its largest ratio as 3 is at the authors' size (scaled true).
func FrameThreshold(maxRatio float64) (threshold float64, scaled bool) {
	if !(maxRatio >= FramePassRatio) {
		return 1 + (FramePassRatio-1)*(maxRatio-1)/(paperFrameMax-1), true
	}
	return FramePassRatio, false
}

// FrameSite is the site the frame forms at: the index of the largest finite ratio of the
// newest point (−1 when it has none). The frame's settle step and the frame line of the
// dashboard and the figure follow that site: a site where the J-lens never aligns with the
// frame (the embedding output, at chance on the mid preset) is noise that a mean over sites
// would carry into the settle step.
func FrameSite(newest []float64) int {
	site := -1
	for i, v := range newest {
		if !math.IsNaN(v) && !math.IsInf(v, 0) && (site < 0 || v > newest[site]) {
			site = i
		}
	}
	return site
}

// FrameSeries is the ratio series at FrameSite of the newest point: points[k] holds point
// k's ratio per site; NaN where a point has none.
func FrameSeries(points [][]float64) []float64 {
	out := make([]float64, len(points))
	site := -1
	if len(points) > 0 {
		site = FrameSite(points[len(points)-1])
	}
	for k, p := range points {
		out[k] = math.NaN()
		if site >= 0 && site < len(p) {
			out[k] = p[site]
		}
	}
	return out
}

// FrameJLens is the frame line of a frame-precision history: the J-lens ratio at the frame
// site (FrameSeries of the points' JLens), and whether any point holds one.
func FrameJLens(points []sessions.FramePoint) ([]float64, bool) {
	ps := make([][]float64, len(points))
	any := false
	for k, p := range points {
		for _, v := range p.JLens {
			ps[k] = append(ps[k], float64(v))
		}
		any = any || len(p.JLens) > 0
	}
	return FrameSeries(ps), any
}

// FrameSettle is the step from which the J-lens ratio at the frame's site (FrameJLens)
// stayed within SettleBand of its range of its newest value (diagnostics.SettleStep), and
// whether the history holds a J-lens at all; −1 when it has not settled.
func FrameSettle(points []sessions.FramePoint) (int, bool) {
	jl, any := FrameJLens(points)
	if !any {
		return -1, false
	}
	steps := make([]int, len(points))
	for i, p := range points {
		steps[i] = p.Step
	}
	return settleOrNot(steps, jl, SettleBand), true
}

// JLensSnapshot is one recorded J-lens measurement and its step.
type JLensSnapshot struct {
	Step  int
	JLens *sessions.JLens
}

// FramePoint is the frame ratio at one snapshot, per site: against the frame of that
// snapshot's own embeddings (Current, what a live run can measure) and against the final
// snapshot's frame (Final, the authors' measure on finished runs).
type FramePoint struct {
	Step    int       `json:"step"`
	Current []float64 `json:"current"`
	Final   []float64 `json:"final"`
}

// FrameRatios is a run's J-lens frame ratio series with what is derived from it.
type FrameRatios struct {
	// Sites are the Jacobian sites (−1: the embedding output; l: after block l).
	Sites []int `json:"sites"`
	// Null is the chance overlap, Max the largest ratio (1/Null), Threshold the ratio a
	// settled frame passes (Scaled: below FramePassRatio, which this size cannot reach).
	Null      float64      `json:"null"`
	Max       float64      `json:"max"`
	Threshold float64      `json:"threshold"`
	Scaled    bool         `json:"threshold_scaled"`
	Points    []FramePoint `json:"points"`
	// PassCurrent and PassFinal are, per site, the first step whose ratio is at or above
	// Threshold (−1: none); Site is the frame's site (FrameSite of the final-frame ratios at
	// the last snapshot, an index into Sites), SettleCurrent and SettleFinal where its ratio
	// settled within band (−1: not settled).
	PassCurrent   []int `json:"pass_step_current"`
	PassFinal     []int `json:"pass_step_final"`
	Site          int   `json:"frame_site"`
	SettleCurrent int   `json:"settle_step_current"`
	SettleFinal   int   `json:"settle_step_final"`
}

// FrameRatioSeries derives the frame ratio series from a run's snapshots in step order
// (those without a J-lens are skipped): the final frame is the last J-lens snapshot's. It
// returns nil when no snapshot holds one. band is the settle band (a fraction of the range).
func FrameRatioSeries(snaps []JLensSnapshot, band float64) *FrameRatios {
	var js []JLensSnapshot
	for _, s := range snaps {
		if s.JLens != nil && len(s.JLens.Overlap) > 0 {
			js = append(js, s)
		}
	}
	if len(js) == 0 {
		return nil
	}
	last := js[len(js)-1].JLens
	fr := &FrameRatios{Sites: append([]int(nil), last.Sites...), Null: float64(last.Null)}
	fr.Max = 1 / fr.Null
	fr.Threshold, fr.Scaled = FrameThreshold(fr.Max)
	final := widen(last.Frame)
	for _, s := range js {
		j := s.JLens
		p := FramePoint{Step: s.Step}
		for si := range j.Overlap {
			p.Current = append(p.Current, float64(j.Overlap[si])/float64(j.Null))
			f := math.NaN()
			if si < len(j.Basis) && len(final) > 0 && j.Width == last.Width {
				o := diagnostics.SubspaceOverlap(final, last.FrameRank, widen(j.Basis[si]), j.Rank, j.Width)
				f = o / diagnostics.OverlapNull(j.Width, last.FrameRank, j.Rank)
			}
			p.Final = append(p.Final, f)
		}
		fr.Points = append(fr.Points, p)
	}
	steps := make([]int, len(fr.Points))
	cur, fin := make([][]float64, len(steps)), make([][]float64, len(steps))
	for i, p := range fr.Points {
		steps[i], cur[i], fin[i] = p.Step, p.Current, p.Final
	}
	fr.Site = FrameSite(fin[len(fin)-1])
	fr.SettleCurrent, fr.SettleFinal = -1, -1
	if fr.Site >= 0 {
		at := func(s [][]float64) []float64 {
			out := make([]float64, len(s))
			for i, p := range s {
				out[i] = p[fr.Site]
			}
			return out
		}
		fr.SettleCurrent, fr.SettleFinal = settleOrNot(steps, at(cur), band), settleOrNot(steps, at(fin), band)
	}
	for si := range fr.Sites {
		fr.PassCurrent = append(fr.PassCurrent, firstAtOrAbove(fr.Points, si, fr.Threshold, false))
		fr.PassFinal = append(fr.PassFinal, firstAtOrAbove(fr.Points, si, fr.Threshold, true))
	}
	return fr
}

// firstAtOrAbove is the first step whose ratio at site si is ≥ threshold (−1: none).
func firstAtOrAbove(ps []FramePoint, si int, threshold float64, final bool) int {
	for _, p := range ps {
		v := p.Current
		if final {
			v = p.Final
		}
		if si < len(v) && v[si] >= threshold {
			return p.Step
		}
	}
	return -1
}

func settleOrNot(steps []int, series []float64, band float64) int {
	if s, ok := diagnostics.SettleStep(steps, series, band); ok {
		return s
	}
	return -1
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
// when none holds a J-lens).
func ReadFrameRatios(r *sessions.Reader, band float64) (*FrameRatios, error) {
	steps, err := r.SnapshotSteps()
	if err != nil {
		return nil, err
	}
	snaps := make([]JLensSnapshot, 0, len(steps))
	for _, st := range steps {
		sn, at, err := r.Snapshot(st)
		if err != nil {
			return nil, err
		}
		if sn != nil && at == st {
			snaps = append(snaps, JLensSnapshot{Step: st, JLens: sn.JLens})
		}
	}
	return FrameRatioSeries(snaps, band), nil
}
