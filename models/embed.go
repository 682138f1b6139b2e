package models

import (
	"fmt"

	"gorgonia.org/tensor"
)

// embedKernel adds token and learned position embeddings: row n·T+t of the output is
// tok[ids[n·T+t]] + pos[t]. The token ids are set by the model before each run.
type embedKernel[T Float] struct {
	t   int
	ids *[]int
}

func (k *embedKernel[T]) name() string      { return "Embed" }
func (k *embedKernel[T]) diff(n int) []bool { return []bool{true, true} }
func (k *embedKernel[T]) outShape(in []tensor.Shape) (tensor.Shape, error) {
	_, d := rows2(in[0])
	pr, pd := rows2(in[1])
	if pd != d || pr < k.t {
		return nil, fmt.Errorf("position table %v does not fit width %d and length %d", in[1], d, k.t)
	}
	return tensor.Shape{len(*k.ids), d}, nil
}

func (k *embedKernel[T]) forward(in []*tensor.Dense, out *tensor.Dense) float64 {
	embedForward[T](in, out, len(*k.ids), func(r int) (int, int) { return (*k.ids)[r], r % k.t })
	return 0
}

func (k *embedKernel[T]) backward(in []*tensor.Dense, _, gout *tensor.Dense, _ float64, gin []*tensor.Dense) {
	embedBackward[T](in, gout, gin, len(*k.ids), func(r int) (int, int) { return (*k.ids)[r], r % k.t })
}

// embedForward writes output row r (of rows) as tok[id] + pos[p], (id, p) = at(r): in is the
// token and position tables.
func embedForward[T Float](in []*tensor.Dense, out *tensor.Dense, rows int, at func(r int) (id, p int)) {
	tok, pos, y := data[T](in[0]), data[T](in[1]), data[T](out)
	_, d := rows2(in[0].Shape())
	vec := is32[T]() && haveAVX2 && d > 0
	for r := range rows {
		id, t := at(r)
		yr, tr, pr := y[r*d:(r+1)*d], tok[id*d:(id+1)*d], pos[t*d:(t+1)*d]
		if vec {
			copy(yr, tr)
			addVec(&as32(yr)[0], &as32(pr)[0], d)
			continue
		}
		for j := range yr {
			yr[j] = tr[j] + pr[j]
		}
	}
}

// embedBackward is embedForward's backward pass: each output row's gradient added into its
// token's and position's rows of gin (zeroed first).
func embedBackward[T Float](in []*tensor.Dense, gout *tensor.Dense, gin []*tensor.Dense, rows int, at func(r int) (id, p int)) {
	g, dtok, dpos := data[T](gout), data[T](gin[0]), data[T](gin[1])
	_, d := rows2(in[0].Shape())
	zero(dtok)
	zero(dpos)
	vec := is32[T]() && haveAVX2 && d > 0
	for r := range rows {
		id, t := at(r)
		gr, tr, pr := g[r*d:(r+1)*d], dtok[id*d:(id+1)*d], dpos[t*d:(t+1)*d]
		if vec {
			addVec(&as32(tr)[0], &as32(gr)[0], d)
			addVec(&as32(pr)[0], &as32(gr)[0], d)
			continue
		}
		for j, v := range gr {
			tr[j] += v
			pr[j] += v
		}
	}
}

// prefixKernel is the MLP baseline's input layer: a linear map of the flattened one-hot
// prefix. Output row n·P+p is b + Σ_{t ≤ pos[p]} W[t·V + ids[n·T+t]], i.e. the one-hot
// encoding of the tokens up to the scored position, zero-padded to the full length T, times W.
//
// With tokenOnly the sum keeps only t = pos[p]: the network sees the scored token and its
// position and nothing of the context (a transformer with attention removed).
type prefixKernel[T Float] struct {
	t, vocab  int
	tokenOnly bool
	pos       []int
	ids       *[]int
	acc       []T
}

func (k *prefixKernel[T]) name() string      { return "OneHotPrefix" }
func (k *prefixKernel[T]) diff(n int) []bool { return []bool{true, true} }
func (k *prefixKernel[T]) outShape(in []tensor.Shape) (tensor.Shape, error) {
	r, w := rows2(in[0])
	if r < k.t*k.vocab || r%k.vocab != 0 {
		return nil, fmt.Errorf("input weight has %d rows, want a multiple of V=%d of at least T·V = %d", r, k.vocab, k.t*k.vocab)
	}
	return tensor.Shape{len(*k.ids) / k.t * len(k.pos), w}, nil
}

func (k *prefixKernel[T]) forward(in []*tensor.Dense, out *tensor.Dense) float64 {
	W, b, y := data[T](in[0]), data[T](in[1]), data[T](out)
	w := len(b)
	ids := *k.ids
	n := len(ids) / k.t
	if cap(k.acc) < w {
		k.acc = make([]T, w)
	}
	acc := k.acc[:w]
	for s := 0; s < n; s++ {
		copy(acc, b)
		t := 0
		for p, pos := range k.pos {
			if k.tokenOnly {
				copy(acc, b)
				t = pos
			}
			for ; t <= pos; t++ {
				row := W[(t*k.vocab+ids[s*k.t+t])*w:][:w]
				for j, v := range row {
					acc[j] += v
				}
			}
			copy(y[(s*len(k.pos)+p)*w:][:w], acc)
		}
	}
	return 0
}

func (k *prefixKernel[T]) backward(in []*tensor.Dense, _, gout *tensor.Dense, _ float64, gin []*tensor.Dense) {
	g, dW, db := data[T](gout), data[T](gin[0]), data[T](gin[1])
	w := len(db)
	ids := *k.ids
	n := len(ids) / k.t
	zero(dW)
	zero(db)
	acc := k.acc[:w]
	P := len(k.pos)
	for s := 0; s < n; s++ {
		// Suffix sums: token t receives the gradient of every scored row at or after it.
		zero(acc)
		t := k.pos[P-1]
		for p := P - 1; p >= 0; p-- {
			gr := g[(s*P+p)*w:][:w]
			for j, v := range gr {
				acc[j] += v
				db[j] += v
			}
			lo := -1
			if p > 0 {
				lo = k.pos[p-1]
			}
			if k.tokenOnly {
				row := dW[(k.pos[p]*k.vocab+ids[s*k.t+k.pos[p]])*w:][:w]
				for j, v := range gr {
					row[j] += v
				}
				continue
			}
			for ; t > lo; t-- {
				row := dW[(t*k.vocab+ids[s*k.t+t])*w:][:w]
				for j, v := range acc {
					row[j] += v
				}
			}
		}
	}
}
