package lab

import (
	"fmt"
	"math"

	"windtunnel/diagnostics"
	"windtunnel/models"
	"windtunnel/models/arch"
	"windtunnel/sessions"
	"windtunnel/sessions/derived"
	"windtunnel/tunnels"
)

// DefaultJLensN is the number of geometry sequences the J-lens stacks when the configuration
// does not say (runconfig JLensN 0): the authors use 256; the bench's default is smaller, to
// keep a quick run's snapshots cheap (docs/usage.md: The frame, measured the authors' way,
// gives the cost of 256 and the difference it makes).
const DefaultJLensN = 32

// jlensSites are where the frame statistic is taken: the embedding output and after block 0,
// the authors' sites; after block 0 only where a block follows it (the residual stream after
// the last block reaches no later position, so its J-lens is empty).
func jlensSites(layers int) []int {
	if layers < 2 {
		return []int{models.SiteEmbed}
	}
	return []int{models.SiteEmbed, 0}
}

// jlensN is the number of geometry sequences the J-lens stacks (at most the geometry set's).
func (t *Trainer) jlensN(geometryN int) int {
	n := t.cfg.JLensN
	if n <= 0 {
		n = DefaultJLensN
	}
	return min(n, geometryN)
}

// jlens adds the authors' frame statistic (sessions.JLens) to sn for a transformer: for each
// site and scored position, the J-lens subspace (models.JLens, diagnostics.GramBasis), its
// overlap with the current embedding frame, and the bases a reader needs to measure it
// against another frame (the final snapshot's).
func (t *Trainer) jlens(sn *sessions.Snapshot, b *tunnels.Batch) error {
	if t.model.Kind() != arch.KindTransformer {
		return nil
	}
	sites := jlensSites(t.layers)
	g, err := models.JLens(t.model, t.tunnel, b, t.jlensN(b.N), sites)
	if err != nil {
		return fmt.Errorf("lab: J-lens: %w", err)
	}
	rec, err := JLensRecord(t.model, t.tunnel, g)
	if err != nil {
		return err
	}
	sn.JLens = rec
	return nil
}

// JLensRecord turns a model's J-lens Grams into the recorded statistic: the frame of the
// model's embeddings (models.FrameDirections), the top diagnostics.JLensRank eigenvectors of
// each Gram, their overlaps with the frame per site and position, the mean per site, the
// eigengaps and the null.
func JLensRecord(m models.Model, t tunnels.Tunnel, g *models.JLensGrams) (*sessions.JLens, error) {
	dirs, d, err := models.FrameDirections(m, t)
	if err != nil {
		return nil, fmt.Errorf("lab: J-lens frame: %w", err)
	}
	u, ru, err := diagnostics.RowBasis(dirs, len(dirs)/d, d, 0)
	if err != nil {
		return nil, fmt.Errorf("lab: J-lens frame: %w", err)
	}
	rank := min(diagnostics.JLensRank, d)
	rec := &sessions.JLens{Statistic: sessions.JLensStatistic, Sites: append([]int(nil), g.Sites...),
		Positions: append([]int(nil), g.Positions...), Width: d, Rank: rank, FrameRank: ru, Seqs: g.Seqs,
		Frame: float32s(u), Null: sessions.Num(diagnostics.OverlapNull(d, ru, rank))}
	P := len(g.Positions)
	for si := range g.Sites {
		po, gaps := make([]float64, P), make([]float64, P)
		for k := 0; k < P; k++ {
			w, rw, eig, err := diagnostics.GramBasis(g.Gram[si*P+k], d, rank)
			if err != nil {
				return nil, fmt.Errorf("lab: J-lens site %d position %d: %w", g.Sites[si], g.Positions[k], err)
			}
			if rw < rank { // a degenerate Jacobian (a site the logits do not depend on): no subspace
				w = make([]float64, d*rank)
				po[k] = math.NaN()
			} else {
				po[k] = diagnostics.SubspaceOverlap(u, ru, w, rw, d)
			}
			gaps[k] = diagnostics.Gap(eig, rank)
			rec.Basis = append(rec.Basis, float32s(w))
		}
		rec.PositionOverlap = append(rec.PositionOverlap, nums(po))
		rec.Gap = append(rec.Gap, nums(gaps))
		rec.Overlap = append(rec.Overlap, sessions.Num(derived.MeanFinite(po)))
	}
	return rec, nil
}

// jlensAgainst is, per site of j, the mean over its positions of the overlap ratio of its
// J-lens subspaces with the frame of f (both of the current statistic and width); nil
// otherwise.
func jlensAgainst(j, f *sessions.JLens) []float64 {
	if !j.Current() || !f.Current() || j.Width != f.Width || len(f.Frame) == 0 {
		return nil
	}
	frame := widen(nil, f.Frame)
	null := diagnostics.OverlapNull(j.Width, f.FrameRank, j.Rank)
	P := len(j.Positions)
	out := make([]float64, len(j.Sites))
	var w []float64
	for si := range j.Sites {
		rs := make([]float64, P)
		for k := 0; k < P; k++ {
			if math.IsNaN(float64(j.PositionOverlap[si][k])) { // no subspace there
				rs[k] = math.NaN()
				continue
			}
			w = widen(w, j.Basis[si*P+k])
			rs[k] = diagnostics.SubspaceOverlap(frame, f.FrameRank, w, j.Rank, j.Width) / null
		}
		out[si] = derived.MeanFinite(rs)
	}
	return out
}

func float32s(x []float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}
