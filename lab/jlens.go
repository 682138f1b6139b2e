package lab

import (
	"fmt"
	"windtunnel/models/arch"

	"windtunnel/diagnostics"
	"windtunnel/models"
	"windtunnel/sessions"
	"windtunnel/tunnels"
)

// jlensSeqs is the number of geometry sequences the class-logit Jacobians are stacked over
// (every scored position of each): 8·P·C rows, ≥ 3,200 for bijection V=20, far more than the
// subspace's rank.
const jlensSeqs = 8

// jlensSites are where the frame statistic is taken: the embedding output and after block 0,
// the authors' sites.
var jlensSites = [...]int{models.SiteEmbed, 0}

// jlens adds the authors' frame statistic (sessions.JLens) to sn for a transformer: the
// overlap of the current embedding frame with the J-lens subspace at each site, with its null
// and the bases a reader needs to measure it against the final frame. pr is the geometry
// probe's forward pass over b.
func (t *Trainer) jlens(sn *sessions.Snapshot, b *tunnels.Batch, pr *models.Probe) error {
	if t.model.Kind() != arch.KindTransformer {
		return nil
	}
	sites := jlensSites[:]
	j, err := models.ClassJacobiansOf(t.model, t.tunnel, b, pr, jlensSeqs, sites)
	if err != nil {
		return fmt.Errorf("lab: J-lens: %w", err)
	}
	dirs, d, err := models.ClassDirections(t.model, t.tunnel)
	if err != nil {
		return fmt.Errorf("lab: J-lens frame: %w", err)
	}
	u, ru, err := diagnostics.RowBasis(dirs, len(dirs)/d, d, 0)
	if err != nil {
		return fmt.Errorf("lab: J-lens frame: %w", err)
	}
	rec := &sessions.JLens{Sites: append([]int(nil), sites...), Width: d, FrameRank: ru, Seqs: j.Seqs, Frame: float32s(u)}
	for si := range sites {
		w, rw, err := diagnostics.RowBasis(j.Rows[si], len(j.Rows[si])/d, d, diagnostics.JLensRank)
		if err != nil {
			return fmt.Errorf("lab: J-lens site %d: %w", sites[si], err)
		}
		rec.Rank = rw
		rec.Overlap = append(rec.Overlap, sessions.Num(diagnostics.SubspaceOverlap(u, ru, w, rw, d)))
		rec.Basis = append(rec.Basis, float32s(w))
	}
	rec.Null = sessions.Num(diagnostics.OverlapNull(d, ru, rec.Rank))
	sn.JLens = rec
	return nil
}

// jlensRatios are a snapshot's overlaps as ratios to their null (nil without a J-lens).
func jlensRatios(j *sessions.JLens) []float64 {
	if j == nil {
		return nil
	}
	out := make([]float64, len(j.Overlap))
	for i, o := range j.Overlap {
		out[i] = float64(o) / float64(j.Null)
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
