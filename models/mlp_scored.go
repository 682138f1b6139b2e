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
	return tensor.Shape{k.rows(), d}, nil
}

// at is output row r's token and position.
func (k *scoredEmbedKernel[T]) at(r int) (id, pos int) {
	s := k.gather.row(r)
	return (*k.ids)[s], s % k.gather.t
}

func (k *scoredEmbedKernel[T]) rows() int { return len(*k.ids) / k.gather.t * len(k.gather.pos) }

func (k *scoredEmbedKernel[T]) forward(in []*tensor.Dense, out *tensor.Dense) float64 {
	embedForward[T](in, out, k.rows(), k.at)
	return 0
}

func (k *scoredEmbedKernel[T]) backward(in []*tensor.Dense, _, gout *tensor.Dense, _ float64, gin []*tensor.Dense) {
	embedBackward[T](in, gout, gin, k.rows(), k.at)
}
