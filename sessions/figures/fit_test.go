package figures

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"

	"windtunnel/diagnostics"
	"windtunnel/sessions"
)

// affine maps (x, y) to (a·x + b·y + c, d·x + e·y + f).
type affine struct{ a, b, c, d, e, f float64 }

// then is m followed by n applied in m's coordinates (m·n).
func (m affine) then(n affine) affine {
	return affine{
		a: m.a*n.a + m.b*n.d, b: m.a*n.b + m.b*n.e, c: m.a*n.c + m.b*n.f + m.c,
		d: m.d*n.a + m.e*n.d, e: m.d*n.b + m.e*n.e, f: m.d*n.c + m.e*n.f + m.f,
	}
}

// apply maps a point.
func (m affine) apply(x, y float64) (float64, float64) {
	return m.a*x + m.b*y + m.c, m.d*x + m.e*y + m.f
}

// textBox is one string drawn and the box it covers on the page.
type textBox struct {
	text string
	r    vg.Rectangle
}

// recorder is a vg.Canvas that draws nothing and records where every string lands, through
// the transforms in force, so a test can check that text stays on the page and apart.
type recorder struct {
	m     affine
	stack []affine
	texts []textBox
}

func newRecorder() *recorder { return &recorder{m: affine{a: 1, e: 1}} }

func (r *recorder) SetLineWidth(vg.Length)              {}
func (r *recorder) SetLineDash([]vg.Length, vg.Length)  {}
func (r *recorder) SetColor(color.Color)                {}
func (r *recorder) Stroke(vg.Path)                      {}
func (r *recorder) Fill(vg.Path)                        {}
func (r *recorder) DrawImage(vg.Rectangle, image.Image) {}
func (r *recorder) Push()                               { r.stack = append(r.stack, r.m) }
func (r *recorder) Pop() {
	r.m, r.stack = r.stack[len(r.stack)-1], r.stack[:len(r.stack)-1]
}
func (r *recorder) Rotate(rad float64) {
	s, c := math.Sincos(rad)
	r.m = r.m.then(affine{a: c, b: -s, d: s, e: c})
}
func (r *recorder) Translate(p vg.Point) {
	r.m = r.m.then(affine{a: 1, c: float64(p.X), e: 1, f: float64(p.Y)})
}
func (r *recorder) Scale(x, y float64) { r.m = r.m.then(affine{a: x, e: y}) }

// FillString records the box of the string: its advance wide, from its descent below the
// baseline to the height of a capital above (the font's ascent leaves room above the
// tallest glyph, which gonum's layout counts on), through the current transform.
func (r *recorder) FillString(f font.Face, pt vg.Point, s string) {
	if strings.TrimSpace(s) == "" {
		return
	}
	ext := f.Extents()
	x0, x1 := float64(pt.X), float64(pt.X+f.Width(s))
	y0, y1 := float64(pt.Y-ext.Descent), float64(pt.Y+0.8*f.Font.Size)
	lo := vg.Point{X: vg.Length(math.Inf(1)), Y: vg.Length(math.Inf(1))}
	hi := vg.Point{X: vg.Length(math.Inf(-1)), Y: vg.Length(math.Inf(-1))}
	for _, c := range [][2]float64{{x0, y0}, {x1, y0}, {x0, y1}, {x1, y1}} {
		x, y := r.m.apply(c[0], c[1])
		lo.X, lo.Y = min(lo.X, vg.Length(x)), min(lo.Y, vg.Length(y))
		hi.X, hi.Y = max(hi.X, vg.Length(x)), max(hi.Y, vg.Length(y))
	}
	r.texts = append(r.texts, textBox{s, vg.Rectangle{Min: lo, Max: hi}})
}

// overlap is the width and height two rectangles share (≤ 0 when they do not meet).
func overlap(a, b vg.Rectangle) (vg.Length, vg.Length) {
	return min(a.Max.X, b.Max.X) - max(a.Min.X, b.Min.X), min(a.Max.Y, b.Max.Y) - max(a.Min.Y, b.Min.Y)
}

// everyKindRuns are sessions that between them give every figure kind: the fixture (a real
// bijection transformer run with snapshots), two seeds of a small hmm run in two
// configurations (their titles name what differs), and two seeds of a recurrent model
// whose snapshot ablates layers, not heads.
func everyKindRuns(t *testing.T) []Run {
	t.Helper()
	src := t.TempDir()
	paths := []string{fixture, writeHMMRun(t, filepath.Join(src, "h1.wtlab"), 1, 300, 2),
		writeHMMRun(t, filepath.Join(src, "h2.wtlab"), 2, 300, 2), writeHMMRun(t, filepath.Join(src, "h3.wtlab"), 1, 600, 2)}
	snap := &sessions.Snapshot{
		Manifold: &sessions.Manifold{Share: []float64{0.5, 0.2, 0.1}, Pearson: -0.9, Spearman: -0.8,
			Points: [][]float64{{0, 1, 0}, {1, 0, 0}, {2, 2, 1}}, Entropy: []float64{1, 2, 3}},
		Ablation: []diagnostics.Effect{{Unit: "layer", Layer: 0, Head: -1, DeltaBits: 0.3}, {Unit: "layer", Layer: 1, Head: -1, DeltaBits: 0.1}},
		// Eight heads: too few for gonum's rotated labels, too many to stand side by side
		// at one column.
		KeyOrthogonality:          [][]float64{{0.3, 0.4, 0.35, 0.38}, {0.3, 0.25, 0.24, 0.32}},
		KeyOrthogonalityRandom:    0.2,
		KeyOrthogonalityEmbed:     [][]float64{{0.35, 0.4, 0.35, 0.38}, {0.3, 0.25, 0.24, 0.32}},
		KeyOrthogonalityEmbedInit: [][]float64{{0.23, 0.22, 0.23, 0.23}, {0.23, 0.22, 0.23, 0.22}},
	}
	snap.Costliest = &snap.Ablation[0]
	paths = append(paths, writeSnap(t, src, 4, snap), writeSnap(t, src, 5, snap))
	runs, _, err := LoadPaths(paths)
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

// TestFiguresFit draws every figure kind at one column (480×300) and at the default
// 960×600 and checks what a reader sees: every string wholly on the page (no title clipped
// on both sides), no two strings over each other (a legend over the title, tick labels
// run together), every panel's data area on the page and large enough to read (no bar
// panel squeezed out, no colour bar missing), each colour bar as tall as the data areas
// beside it (not the figure's height), and the table's cells no larger than a table's.
func TestFiguresFit(t *testing.T) {
	runs := everyKindRuns(t)
	figs := figuresOf(runs)
	table, grid, ok := buildTable(runs)
	if !ok || figs[len(figs)-1].name != "table" {
		t.Fatal("no table")
	}
	figs[len(figs)-1] = table
	kinds := map[string]bool{}
	for _, f := range figs {
		kinds[f.name[strings.LastIndex(f.name, "-")+1:]] = true
	}
	for _, k := range []string{"errors", "entropy", "lengths", "keys", "manifold", "ablation", "frame", "jlens", "qk", "table"} {
		if !kinds[k] {
			t.Errorf("no %s figure among %v", k, kinds)
		}
	}
	for _, sz := range [][2]int{{480, 300}, {960, 600}} {
		for _, f := range figs {
			t.Run(fmt.Sprintf("%s_%dx%d", f.name, sz[0], sz[1]), func(t *testing.T) {
				rec := newRecorder()
				areas := drawSized(rec, f, sz[0], sz[1])
				W, H := vg.Length(sz[0])*vg.Inch/dpi, vg.Length(sz[1])*vg.Inch/dpi
				const tol = vg.Length(1)
				for _, tb := range rec.texts {
					if tb.r.Min.X < -tol || tb.r.Min.Y < -tol || tb.r.Max.X > W+tol || tb.r.Max.Y > H+tol {
						t.Errorf("%q off the %g×%g page at %+v", tb.text, W, H, tb.r)
					}
				}
				for i, a := range rec.texts {
					for _, b := range rec.texts[i+1:] {
						if dx, dy := overlap(a.r, b.r); dx > 1.5 && dy > 1.5 {
							t.Errorf("%q and %q overlap by %.1f×%.1f pt", a.text, b.text, dx, dy)
						}
					}
				}
				var bars []vg.Rectangle
				lo, hi := H, vg.Length(0)
				for i, a := range areas {
					if i < len(f.panels) && f.panels[i].bar && a.Max.X-a.Min.X < 8 {
						t.Errorf("colour bar %d is %.1f pt wide", i, a.Max.X-a.Min.X)
					}
					if i < len(f.panels) && f.panels[i].bar {
						bars = append(bars, a)
						continue
					}
					if a.Max.X-a.Min.X < 40 || a.Max.Y-a.Min.Y < 40 || a.Min.X < -tol || a.Min.Y < -tol || a.Max.X > W+tol || a.Max.Y > H+tol {
						t.Errorf("panel %d's data area %+v is off the page or too small to read", i, a)
					}
					lo, hi = min(lo, a.Min.Y), max(hi, a.Max.Y)
				}
				for _, b := range bars {
					if d := max(b.Min.Y-lo, lo-b.Min.Y, b.Max.Y-hi, hi-b.Max.Y); d > 2 {
						t.Errorf("colour bar spans y %.0f–%.0f, the data areas beside it %.0f–%.0f", b.Min.Y, b.Max.Y, lo, hi)
					}
				}
				if f.name == "table" {
					checkTable(t, grid, W, H)
				}
			})
		}
	}
}

// checkTable checks that the table's cells were drawn and are no larger than a table's
// cells need be: maxCellW wide, maxCellH high for each band of their row.
func checkTable(t *testing.T, g *tableGrid, W, H vg.Length) {
	t.Helper()
	if len(g.cellRects) == 0 {
		t.Fatal("no cells drawn")
	}
	for i, r := range g.cellRects {
		if bands := vg.Length(g.rowBands[i]); r.Max.X-r.Min.X > maxCellW+0.5 || r.Max.Y-r.Min.Y > bands*maxCellH+0.5 {
			t.Errorf("cell %+v larger than %g×%g (its row has %g bands) on a %g×%g page", r, maxCellW, maxCellH, bands, W, H)
		}
	}
}
