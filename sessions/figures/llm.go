package figures

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"windtunnel/sessions"
	"windtunnel/sessions/llmrun"
)

// RenderLLM writes the figures of a `windtunnel llm` record into dir: llm-manifold (each
// prompt set's PC1 vs PC2 coloured by next-token entropy, mixed beside the single-domain
// sets), llm-sula (the model's entropy over the two labels against the exact posterior's by
// k, and the SULA prompts' manifold coloured by posterior entropy), llm-nulls (the SULA
// trajectory beside the evidence ablation's, the lexical remap's and the random-weight
// copies'), llm-keys (key
// orthogonality by layer, real keys against Gaussian vectors and the authors' embedding
// proxy), llm-focus (attention entropy at the last position by layer against uniform
// attention) and llm-axis (the entropy-axis ablation against a random axis), each where the
// record holds its data.
func RenderLLM(r *llmrun.Result, dir string, opt Options) ([]File, error) {
	opt, err := opt.normalised()
	if err != nil {
		return nil, err
	}
	// Below compactWidth the titles leave the model's name out and the manifold figure
	// shows the mixed set and one single-domain set: six panels do not fit.
	name := modelName(r) + ": "
	compact := opt.Width < compactWidth
	if compact {
		name = ""
	}
	var figs []figure
	for _, build := range []func(*llmrun.Result, string, bool) (figure, bool){llmManifoldFigure, llmSULAFigure, llmNullsFigure, llmKeysFigure, llmFocusFigure, llmAxisFigure} {
		if f, ok := build(r, name, compact); ok {
			figs = append(figs, f)
		}
	}
	return writeFigures(figs, dir, opt)
}

// compactWidth is the figure width below which RenderLLM draws less.
const compactWidth = 700

// smallTitle sets a panel's title in a smaller font, for panels a third of a figure wide.
func smallTitle(p *plot.Plot, t string) {
	p.Title.Text = t
	p.Title.TextStyle.Font.Size = vg.Points(11)
}

// modelName is "pythia-410m (gpt_neox 24×1024)": the folder's name, the family and the shape.
func modelName(r *llmrun.Result) string {
	m := r.Model
	return fmt.Sprintf("%s (%s %d×%d)", sessions.SafeText(filepath.Base(m.Dir)), m.Family, m.Layers, m.Hidden)
}

// asManifold is a set in the form the run figures draw.
func asManifold(s llmrun.Set) *sessions.Manifold {
	m := &sessions.Manifold{Pearson: s.Pearson, Spearman: s.Spearman, N: s.N}
	for _, v := range s.Share {
		m.Share = append(m.Share, float64(v))
	}
	for i, p := range s.Points {
		m.Points = append(m.Points, []float64{float64(p[0]), float64(p[1])})
		m.Entropy = append(m.Entropy, float64(s.Entropy[i]))
	}
	return m
}

// llmManifoldFigure is every manifold set's scatter, one panel each, on one colour bar.
func llmManifoldFigure(r *llmrun.Result, name string, compact bool) (figure, bool) {
	sets := r.Manifold
	if compact && len(sets) > 2 {
		sets = sets[:2]
	}
	if len(sets) == 0 {
		return figure{}, false
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range sets {
		for _, e := range s.Entropy {
			if !math.IsNaN(float64(e)) {
				lo, hi = math.Min(lo, float64(e)), math.Max(hi, float64(e))
			}
		}
	}
	cm := colourRange(viridis(), lo, hi)
	title := name + "value manifold by next-token entropy"
	if len(sets) < len(r.Manifold) {
		title += fmt.Sprintf(" (%d of %d sets)", len(sets), len(r.Manifold))
	}
	const barW = 0.08
	cols := min(3, len(sets))
	if compact {
		cols = len(sets)
	}
	rows := (len(sets) + cols - 1) / cols
	pw, ph := (1-barW)/float64(cols), 1/float64(rows)
	var panels []panel
	for i, s := range sets {
		kind := "one domain"
		if !s.Domain {
			kind = "mixed"
			if s.Name != "mixed" {
				kind = "yours"
			}
		}
		p, err := manifoldScatter(asManifold(s), "", cm)
		if err != nil {
			return figure{}, false
		}
		smallTitle(p, fmt.Sprintf("%s (%s, %d)\n|ρ(PC1, H)| %.2f", sessions.SafeText(s.Name), kind, s.N, math.Abs(float64(s.Spearman))))
		c, row := i%cols, i/cols
		y1 := 1 - float64(row)*ph
		panels = append(panels, panel{plot: p, x0: pw * float64(c), x1: pw * float64(c+1), y0: y1 - ph, y1: y1})
	}
	panels = append(panels, panel{plot: colourBar(cm, "next-token entropy (bits)"), x0: 1 - barW, x1: 1, y0: 0, y1: 1, bar: true})
	return panelled("llm-manifold", title, panels...), true
}

// llmSULAFigure is SULA: the entropies by k, and the prompts' manifold.
func llmSULAFigure(r *llmrun.Result, name string, _ bool) (figure, bool) {
	s := r.SULA
	if s == nil || len(s.ByK) == 0 {
		return figure{}, false
	}
	title := fmt.Sprintf("%sSULA (labels %q, %q; α = %.1f)", name, sessions.SafeText(s.Labels[0]), sessions.SafeText(s.Labels[1]), s.Alpha)
	left := newPlot("", "k (examples)", "entropy over the labels (bits)")
	smallTitle(left, fmt.Sprintf("model (solid), exact (dashed)\nentropy error %.3f bits", s.EntropyError))
	var model, bayes, dots, bdots plotter.XYs
	for _, k := range s.ByK {
		model = append(model, plotter.XY{X: float64(k.K), Y: float64(k.ModelEntropy)})
		bayes = append(bayes, plotter.XY{X: float64(k.K), Y: float64(k.BayesEntropy)})
	}
	for _, p := range s.Prompts {
		dots = append(dots, plotter.XY{X: float64(p.K) - 0.12, Y: float64(p.ModelH)})
		bdots = append(bdots, plotter.XY{X: float64(p.K) + 0.12, Y: float64(p.BayesH)})
	}
	for i, c := range []struct {
		pts, dots plotter.XYs
	}{{model, dots}, {bayes, bdots}} {
		l, pts, err := plotter.NewLinePoints(c.pts)
		if err != nil {
			return figure{}, false
		}
		l.LineStyle = curveStyle(i)
		pts.Color = plotutil.Color(i)
		left.Add(l, pts)
		sc, err := plotter.NewScatter(c.dots)
		if err != nil {
			return figure{}, false
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: fade(plotutil.Color(i)), Radius: vg.Points(1.5), Shape: draw.CircleGlyph{}}
		left.Add(sc)
	}
	left.Y.Min, left.Y.Max = 0, 1.05
	integerX(left, 9)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, e := range s.Manifold.Entropy {
		lo, hi = math.Min(lo, float64(e)), math.Max(hi, float64(e))
	}
	cm := colourRange(viridis(), lo, hi)
	right, err := manifoldScatter(asManifold(s.Manifold), "", cm)
	if err != nil {
		return figure{}, false
	}
	smallTitle(right, fmt.Sprintf("%d prompts' hidden states\n|ρ(PC1, H)| %.2f", s.Manifold.N, math.Abs(float64(s.Manifold.Spearman))))
	return panelled("llm-sula", title,
		panel{plot: left, x0: 0, x1: 0.46, y0: 0, y1: 1},
		panel{plot: right, x0: 0.46, x1: 0.9, y0: 0, y1: 1},
		panel{plot: colourBar(cm, "posterior entropy (bits)"), x0: 0.9, x1: 1, y0: 0, y1: 1, bar: true}), true
}

// layerSeries plots a per-layer mean as a line and every head's value as a faint dot.
func layerSeries(p *plot.Plot, grid [][]sessions.Num, mean []sessions.Num, name string) error {
	var line, dots plotter.XYs
	for l, row := range grid {
		if l < len(mean) && !math.IsNaN(float64(mean[l])) {
			line = append(line, plotter.XY{X: float64(l), Y: float64(mean[l])})
		}
		for _, v := range row {
			if !math.IsNaN(float64(v)) {
				dots = append(dots, plotter.XY{X: float64(l), Y: float64(v)})
			}
		}
	}
	if len(line) == 0 {
		return fmt.Errorf("no values")
	}
	l, pts, err := plotter.NewLinePoints(line)
	if err != nil {
		return err
	}
	l.LineStyle = curveStyle(0)
	pts.Color = plotutil.Color(0)
	p.Add(l, pts)
	p.Legend.Add(name, l, pts)
	if len(dots) > 0 {
		sc, err := plotter.NewScatter(dots)
		if err != nil {
			return err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: fade(plotutil.Color(0)), Radius: vg.Points(2), Shape: draw.CircleGlyph{}}
		p.Add(sc)
		p.Legend.Add("one head", sc)
	}
	integerX(p, 9)
	return nil
}

// llmKeysFigure is key orthogonality by layer.
func llmKeysFigure(r *llmrun.Result, name string, _ bool) (figure, bool) {
	k := r.Keys
	if k == nil || len(k.Real) == 0 {
		return figure{}, false
	}
	title := fmt.Sprintf("%skey orthogonality by layer: W_K's columns (the paper's)\nand %d tokens' mean keys (the bench's), mean |cos|", name, k.Tokens)
	p := newPlot(title, "layer", "mean |cosine|")
	if err := layerSeries(p, k.Real, k.ByLayer, "token keys, mean over heads"); err != nil {
		return figure{}, false
	}
	p.Y.Min = 0
	hi := p.Y.Max
	if len(k.Columns) == len(k.ByLayer) {
		var xy plotter.XYs
		for l, v := range k.Columns {
			xy = append(xy, plotter.XY{X: float64(l), Y: float64(v)})
			hi = math.Max(hi, float64(v))
		}
		if l, pts, err := plotter.NewLinePoints(xy); err == nil {
			l.LineStyle = curveStyle(1)
			pts.Color = plotutil.Color(1)
			p.Add(l, pts)
			p.Legend.Add("W_K columns (the paper's)", l, pts)
		}
	}
	if v := float64(k.Random); !math.IsNaN(v) {
		hline(p, v, color.Black, fmt.Sprintf("Gaussian vectors %.3f", v))
		hi = math.Max(hi, v)
	}
	if v := float64(k.Proxy); !math.IsNaN(v) {
		hline(p, v, plotutil.Color(2), fmt.Sprintf("authors' proxy (embeddings) %.3f", v))
		hi = math.Max(hi, v)
	}
	p.Y.Max = 1.15 * hi
	return figure{name: "llm-keys", title: title, plot: p}, true
}

// llmFocusFigure is attention entropy by layer.
func llmFocusFigure(r *llmrun.Result, name string, _ bool) (figure, bool) {
	f := r.Focus
	if f == nil || len(f.Entropy) == 0 {
		return figure{}, false
	}
	kind := "full multi-head attention"
	if r.Model.KVHeads < r.Model.Heads {
		kind = fmt.Sprintf("grouped-query attention, %d key/value heads", r.Model.KVHeads)
	}
	title := fmt.Sprintf("%sattention entropy at the last position by layer\n%s; drop first→last %.0f%%, ρ(layer, H) %+.2f",
		name, kind, 100*float64(f.Drop), f.Spearman)
	p := newPlot(title, "layer", "attention entropy (bits)")
	if err := layerSeries(p, f.Entropy, f.ByLayer, "mean over heads"); err != nil {
		return figure{}, false
	}
	p.Y.Min = 0
	if u := float64(f.Uniform); !math.IsNaN(u) {
		hline(p, u, color.Black, fmt.Sprintf("uniform attention %.2f", u))
		p.Y.Max = math.Max(p.Y.Max, 1.1*u)
	}
	return figure{name: "llm-focus", title: title, plot: p}, true
}

// llmAxisFigure is the ablation: the axis–entropy correlation and the entropy error in the
// three conditions.
func llmAxisFigure(r *llmrun.Result, name string, compact bool) (figure, bool) {
	a := r.Axis
	if a == nil {
		return figure{}, false
	}
	title := fmt.Sprintf("%sentropy-axis ablation at layer %d (SULA prompts)", name, a.Layer)
	if len(a.Layers) > 1 {
		title = fmt.Sprintf("%sentropy-axis ablation at layers %d–%d (SULA prompts)", name, a.Layers[0], a.Layers[len(a.Layers)-1])
	}
	conds := []llmrun.Condition{a.Base, a.Cut, a.Random}
	labels := []string{"none", "entropy", "random"}
	barW := vg.Points(40)
	if compact {
		barW = vg.Points(18)
	}
	bars := func(t, y string, get func(llmrun.Condition) float64) (*plot.Plot, error) {
		p := newPlot("", "axis cut", y)
		smallTitle(p, t)
		vals := make(plotter.Values, len(conds))
		for i, c := range conds {
			vals[i] = get(c)
			if math.IsNaN(vals[i]) {
				vals[i] = 0
			}
		}
		b, err := plotter.NewBarChart(vals, barW)
		if err != nil {
			return nil, err
		}
		b.Color = plotutil.Color(0)
		p.Add(b)
		p.NominalX(labels...)
		p.Y.Min = math.Min(0, p.Y.Min)
		return p, nil
	}
	left, err := bars("final states' |ρ(PC1,\nposterior entropy)|", "|Spearman ρ|", func(c llmrun.Condition) float64 { return float64(c.HiddenRho) })
	if err != nil {
		return figure{}, false
	}
	right, err := bars(fmt.Sprintf("SULA entropy error\n%+.1f%% (random axis %+.1f%%)", 100*float64(a.CalibrationChange), 100*float64(a.RandomChange)),
		"entropy error (bits)", func(c llmrun.Condition) float64 { return float64(c.EntropyError) })
	if err != nil {
		return figure{}, false
	}
	return panelled("llm-axis", title,
		panel{plot: left, x0: 0, x1: 0.5, y0: 0, y1: 1},
		panel{plot: right, x0: 0.5, x1: 1, y0: 0, y1: 1}), true
}
