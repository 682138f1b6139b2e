package sessiontest

import (
	"math"
	"sort"

	"windtunnel/diagnostics"
	"windtunnel/sessions"
	"windtunnel/sessions/derived"
)

// Round rounds v to dec decimals (short JSON).
func Round(v float64, dec int) float64 {
	p := math.Pow(10, float64(dec))
	return math.Round(v*p) / p
}

// noise is a deterministic pseudo-random number in [-1, 1).
func noise(i int) float64 {
	x := math.Sin(float64(i)*12.9898+78.233) * 43758.5453
	return 2*(x-math.Floor(x)) - 1
}

// qkPositions are the scored positions of the bijection probe: the value slots 1, 3, ….
func qkPositions() []int {
	pos := make([]int, DashVocab-1)
	for p := range pos {
		pos[p] = 2*p + 1
	}
	return pos
}

// qkAlignment is the query-key alignment map per layer: P scored positions × T = 2(V−1) key
// positions, null after the query; the keys of revealed values align more with training,
// more so in later layers.
func qkAlignment(s int) [][]sessions.Num {
	pos := qkPositions()
	t := 2 * (DashVocab - 1)
	prog := 1 - math.Exp(-float64(s)/150)
	out := make([][]sessions.Num, DashLayers)
	for l := range out {
		m := make([]sessions.Num, len(pos)*t)
		for r, q := range pos {
			for c := range t {
				v := math.NaN()
				if c <= q {
					align := 0.05 + 0.7*prog*float64(l+1)/DashLayers
					if c%2 == 0 { // a key token: less aligned
						align *= 0.3
					}
					v = Round(align+0.05*noise(s*7919+l*1000+r*50+c), 2)
				}
				m[r*t+c] = sessions.Num(v)
			}
		}
		out[l] = m
	}
	return out
}

// manifold is the value manifold at step s: 8 probe sequences × 19 positions, each with
// the exact posterior entropy log2(V−p); PC1 follows the entropy more closely as training
// goes on, PC2 bends with it, PC3 is noise.
func manifold(s int) *sessions.Manifold {
	prog := 1 - math.Exp(-float64(s)/150)
	const seqs = 8
	n := DashVocab - 1
	var pts [][]float64
	var ent []float64
	hMean := 0.0
	for p := range n {
		hMean += math.Log2(float64(DashVocab-p)) / float64(n)
	}
	for q := range seqs {
		for p := range n {
			h := math.Log2(float64(DashVocab - p))
			i := s*1000 + q*100 + p
			x := -2.5*prog*(h-hMean) + (1.6*(1-prog)+0.7)*noise(i)
			y := 0.6*prog*(h-hMean)*(h-hMean) - 0.4 + 0.7*noise(i+17)
			z := 0.45 * noise(i+31)
			pts = append(pts, []float64{Round(x, 3), Round(y, 3), Round(z, 3)})
			ent = append(ent, Round(h, 4))
		}
	}
	pc1 := make([]float64, len(pts))
	for i, pt := range pts {
		pc1[i] = pt[0]
	}
	return &sessions.Manifold{
		Share:    []float64{Round(0.3+0.35*prog, 4), Round(0.18-0.05*prog, 4), Round(0.09-0.03*prog, 4)},
		Pearson:  sessions.Num(Round(pearson(pc1, ent), 4)),
		Spearman: sessions.Num(Round(pearson(ranks(pc1), ranks(ent)), 4)),
		Points:   pts, Entropy: ent,
	}
}

// pearson is the correlation of xs and ys (NaN when undefined).
func pearson(xs, ys []float64) float64 {
	n := float64(len(xs))
	var mx, my float64
	for i := range xs {
		mx, my = mx+xs[i]/n, my+ys[i]/n
	}
	var sxy, sxx, syy float64
	for i := range xs {
		dx, dy := xs[i]-mx, ys[i]-my
		sxy, sxx, syy = sxy+dx*dy, sxx+dx*dx, syy+dy*dy
	}
	return sxy / math.Sqrt(sxx*syy)
}

// ranks are the ranks of xs, ties sharing their mean rank.
func ranks(xs []float64) []float64 {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return xs[idx[a]] < xs[idx[b]] })
	out := make([]float64, len(xs))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && xs[idx[j+1]] == xs[idx[i]] {
			j++
		}
		for k := i; k <= j; k++ {
			out[idx[k]] = float64(i+j)/2 + 1
		}
		i = j + 1
	}
	return out
}

// frame is the frame history up to step s: one point per snapshot so far. Layer l's
// attention pattern moves as exp(−step/(30+15l)), so its distance to the latest pattern
// vanishes early, while bit error falls as exp(−step/110) and the manifold keeps sharpening.
func frame(s int) *sessions.Frame {
	pattern := func(step, l int) float64 { return math.Exp(-float64(step) / (30 + 15*float64(l))) }
	var f sessions.Frame
	for step := DashGeoEvery; step <= s; step += DashGeoEvery {
		drift := make([]sessions.Num, DashLayers)
		to := make([]sessions.Num, DashLayers)
		for l := range DashLayers {
			c := 0.6 - 0.1*float64(l)
			jitter := 0.004 * (1 + noise(step*31+l))
			to[l] = sessions.Num(Round(c*math.Abs(pattern(step, l)-pattern(s, l))+jitter*float64(min(s-step, DashGeoEvery))/DashGeoEvery, 4))
			if step == DashGeoEvery {
				drift[l] = sessions.Num(math.NaN())
			} else {
				drift[l] = sessions.Num(Round(c*math.Abs(pattern(step, l)-pattern(step-DashGeoEvery, l))+jitter, 4))
			}
		}
		m := manifold(step)
		// The J-lens ratio (embedding output, after block 0) rises from chance and settles
		// early, as the authors' does.
		jl := []sessions.Num{sessions.Num(Round(1+1.4*(1-math.Exp(-float64(step)/60)), 3)),
			sessions.Num(Round(1+1.9*(1-math.Exp(-float64(step)/50)), 3))}
		a := dashBitError(step)
		f.Points = append(f.Points, sessions.FramePoint{Step: step, Drift: drift, ToLatest: to,
			BitError: Round(a, 4), BitErrorSample: Round(1.25*a+0.02, 4), PC1Abs: sessions.Num(math.Abs(float64(m.Spearman))),
			PC1Share: sessions.Num(m.Share[0]), JLens: jl})
	}
	f.Settle = settle(f.Points, 0.1)
	return &f
}

// jlens is the J-lens record of the snapshot at step s: the quick width's null (20/64:
// ceiling 3.2, θ ≈ 1.51) and the ratios of the frame history's newest point; no bases.
func jlens(s int) *sessions.JLens {
	pts := frame(s).Points
	last := pts[len(pts)-1].JLens
	null := 20.0 / 64
	return &sessions.JLens{Statistic: sessions.JLensStatistic, Sites: []int{-1, 0}, Positions: []int{0, 2, 4}, Width: 64, Rank: 8, FrameRank: 20,
		Seqs: 32, Null: sessions.Num(null), Overlap: []sessions.Num{last[0] * sessions.Num(null), last[1] * sessions.Num(null)}}
}

// settle is when the frame (the mean over layers of ToLatest), bit error (a) on its log2
// scale, and 1 − |ρ| settled within band, as the lab
// records it (diagnostics.SettleStep; −1: not settled).
func settle(pts []sessions.FramePoint, band float64) *sessions.Settle {
	steps := make([]int, len(pts))
	frame, bits, rho := make([]float64, len(pts)), make([]float64, len(pts)), make([]float64, len(pts))
	for i, pt := range pts {
		steps[i] = pt.Step
		sum, n := 0.0, 0
		for _, v := range pt.ToLatest {
			if f := float64(v); !math.IsNaN(f) && !math.IsInf(f, 0) {
				sum, n = sum+f, n+1
			}
		}
		frame[i] = math.NaN()
		if n > 0 {
			frame[i] = sum / float64(n)
		}
		bits[i] = derived.PrecisionScale(pt.BitError)
		rho[i] = 1 - float64(pt.PC1Abs) // NaN stays NaN
	}
	at := func(series []float64) int {
		if step, ok := diagnostics.SettleStep(steps, series, band); ok {
			return step
		}
		return -1
	}
	return &sessions.Settle{Band: band, Frame: at(frame), BitError: at(bits), Rho: at(rho)}
}

// ablation is the ablation table at step s: every head, and each layer's attention and
// MLP, with effects growing as the model comes to rely on them; L1H2 costs most.
func ablation(s int) []diagnostics.Effect {
	prog := 1 - math.Exp(-float64(s)/150)
	var out []diagnostics.Effect
	for l := range DashLayers {
		for h := range DashHeads {
			base := 0.01 + 0.025*float64((l*7+h*3)%5)
			if l == 1 && h == 2 {
				base = 0.45
			}
			d := Round(prog*base+0.004*noise(s+l*10+h), 4)
			out = append(out, diagnostics.Effect{Unit: "head", Layer: l, Head: h, DeltaBits: d, DeltaKL: Round(0.6*d, 4)})
		}
		attn := Round(prog*(0.12+0.1*float64(l)), 4)
		mlp := Round(prog*(0.35-0.06*float64(l)), 4)
		out = append(out,
			diagnostics.Effect{Unit: "attn", Layer: l, Head: -1, DeltaBits: attn, DeltaKL: Round(0.6*attn, 4)},
			diagnostics.Effect{Unit: "mlp", Layer: l, Head: -1, DeltaBits: mlp, DeltaKL: Round(0.6*mlp, 4)})
	}
	return out
}

// WithFidelity adds to a geometry snapshot of the fixture what the lab now records beside
// the bench's statistics: the authors' key orthogonality (now rising from about 0.14 at
// initialisation towards 0.45, per layer and head) and the value manifold over one
// sequence's 19 positions (PC1 about 60%, |ρ| near 1), and the sampling of the many-sequence
// manifold.
func WithFidelity(sn *sessions.Snapshot, step int) {
	if sn == nil || sn.KeyOrthogonality == nil {
		return
	}
	prog := 1 - math.Exp(-float64(step)/200)
	now := make([][]float64, len(sn.KeyOrthogonality))
	init := make([][]float64, len(sn.KeyOrthogonality))
	for l, row := range sn.KeyOrthogonality {
		now[l], init[l] = make([]float64, len(row)), make([]float64, len(row))
		for h := range row {
			init[l][h] = Round(0.13+0.01*float64(h)+0.005*float64(l), 4)
			now[l][h] = Round(init[l][h]+prog*(0.3+0.02*float64(h)-0.03*float64(l)), 4)
		}
	}
	sn.KeyOrthogonalityEmbed, sn.KeyOrthogonalityEmbedInit, sn.KeyOrthogonalityEmbedTokens = now, init, DashVocab
	if m := sn.Manifold; m != nil {
		m.Sequences, m.N = DashProbeN, DashProbeN*(DashVocab-1)
		n := DashVocab - 1
		one := &sessions.Manifold{
			Share:    []float64{Round(0.45+0.17*prog, 4), Round(0.2-0.05*prog, 4), 0.08},
			Pearson:  sessions.Num(Round(-0.8-0.19*prog, 4)),
			Spearman: sessions.Num(Round(-0.82-0.17*prog, 4)),
			Points:   m.Points[:n], Entropy: m.Entropy[:n], Sequences: 1, N: n,
		}
		sn.ManifoldOne = one
	}
}
