package models

import (
	"fmt"

	"gorgonia.org/tensor"
)

// The per-position MLP's output at a position reads only that position and its token, and
// the loss only the scored positions, so the rows of the other positions never reach the
// loss: its training graph embeds the scored rows alone (scoredEmbedKernel) and runs the
// blocks on them, N·P rows where the batch has N·T — the same loss and gradients (rows that
// contribute nothing left out of the sums) for P/T of the blocks' work (hmm: 20 of 93
// positions; recall: 3 of 38). Its evaluation and probe graphs keep every row (the probes
// read every position's states).

// scoredEmbedKernel adds token and position embeddings at the scored positions only: output
// row r is the batch's row gather.row(r) = n·T + pos[p] (r = n·P + p), tok[ids[that row]] +
// pos[pos[p]]. Its backward pass adds each row's gradient into its token's and position's
// rows.
type scoredEmbedKernel[T Float] struct {
	gather *gatherSpec
	ids    *[]int
}

func (k *scoredEmbedKernel[T]) name() string      { return "ScoredEmbed" }
func (k *scoredEmbedKernel[T]) diff(n int) []bool { return []bool{true, true} }
func (k *scoredEmbedKernel[T]) outShape(in []tensor.Shape) (tensor.Shape, error) {
	_, d := rows2(in[0])
	pr, pd := rows2(in[1])
	t := k.gather.t
	if pd != d || pr < t || t <= 0 || len(*k.ids)%t != 0 {
		return nil, fmt.Errorf("position table %v, %d ids: do not fit width %d and length %d", in[1], len(*k.ids), d, t)
	}
	return tensor.Shape{len(*k.ids) / t * len(k.gather.pos), d}, nil
}

// rows calls f with each output row, its token and its position.
func (k *scoredEmbedKernel[T]) rows(f func(r, id, pos int)) {
	n := len(*k.ids) / k.gather.t * len(k.gather.pos)
	for r := range n {
		s := k.gather.row(r)
		f(r, (*k.ids)[s], s%k.gather.t)
	}
}

func (k *scoredEmbedKernel[T]) forward(in []*tensor.Dense, out *tensor.Dense) float64 {
	tok, pos, y := data[T](in[0]), data[T](in[1]), data[T](out)
	_, d := rows2(in[0].Shape())
	vec := is32[T]() && haveAVX2 && d > 0
	k.rows(func(r, id, p int) {
		yr, tr, pr := y[r*d:(r+1)*d], tok[id*d:(id+1)*d], pos[p*d:(p+1)*d]
		if vec {
			copy(yr, tr)
			addVec(&as32(yr)[0], &as32(pr)[0], d)
			return
		}
		for j := range yr {
			yr[j] = tr[j] + pr[j]
		}
	})
	return 0
}

func (k *scoredEmbedKernel[T]) backward(in []*tensor.Dense, _, gout *tensor.Dense, _ float64, gin []*tensor.Dense) {
	g, dtok, dpos := data[T](gout), data[T](gin[0]), data[T](gin[1])
	_, d := rows2(in[0].Shape())
	zero(dtok)
	zero(dpos)
	vec := is32[T]() && haveAVX2 && d > 0
	k.rows(func(r, id, p int) {
		gr, tr, pr := g[r*d:(r+1)*d], dtok[id*d:(id+1)*d], dpos[p*d:(p+1)*d]
		if vec {
			addVec(&as32(tr)[0], &as32(gr)[0], d)
			addVec(&as32(pr)[0], &as32(gr)[0], d)
			return
		}
		for j, v := range gr {
			tr[j] += v
			pr[j] += v
		}
	})
}
