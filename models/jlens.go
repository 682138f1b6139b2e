package models

import (
	"fmt"
	"math"
	"windtunnel/models/arch"

	"gorgonia.org/tensor"

	"windtunnel/backends/par"
	"windtunnel/tunnels"
)

// SiteEmbed is the Jacobian site at the embedding output (token plus position embedding);
// a site l ≥ 0 is the residual stream after block l.
const SiteEmbed = -1

// Jacobians holds, for each site, the Jacobian of the class logits at every scored position
// with respect to the residual stream at that position and site: the rows of the C×Width
// Jacobians of Seqs sequences and P positions, stacked ((s·P+i)·C+c)×Width, row-major.
type Jacobians struct {
	Sites       []int
	Seqs, P, C  int
	Width       int
	Rows        [][]float64 // [site] (Seqs·P·C)×Width
	ClassLogits []float64   // Seqs×P×C, the logits the row pass computed (for checks)
}

// ClassJacobians computes the Jacobians of a transformer's class logits with respect to the
// residual stream (the J-lens of Paper I's training-time frame measurement) at the scored
// positions of the first seqs sequences of b, at each site (SiteEmbed or a block index).
//
// A perturbation of the residual stream at position i and site l reaches the logits at i
// only through position i's own row in the later blocks (the attention at i reads the keys
// and values of earlier positions, which do not depend on it), so each Jacobian is that of a
// function of one Width-vector: the later blocks applied to one row with the earlier
// positions' keys and values held at their values in a forward pass over b. It is computed
// in float64, in reverse mode (C adjoints a row), with the operator's head and unit masks
// as they are. The model must be a transformer.
func ClassJacobians(m Model, t tunnels.Tunnel, b *tunnels.Batch, seqs int, sites []int) (*Jacobians, error) {
	return ClassJacobiansOf(m, t, b, nil, seqs, sites)
}

// ClassJacobiansOf is ClassJacobians reading the forward pass over b from pr, a Probe of m
// on b taken with the masks as they are now (a caller that has one saves a second forward
// pass and its copies); its V and Resid need hold only the first seqs sequences. nil pr
// probes b here.
func ClassJacobiansOf(m Model, t tunnels.Tunnel, b *tunnels.Batch, pr *Probe, seqs int, sites []int) (*Jacobians, error) {
	switch n := m.(type) {
	case *net[float32]:
		return classJacobians(n, t, b, pr, seqs, sites)
	case *net[float64]:
		return classJacobians(n, t, b, pr, seqs, sites)
	}
	return nil, fmt.Errorf("models: class Jacobians need a transformer, not %s", m.Kind())
}

// ClassDirections returns the model's directions of the tunnel's classes in the residual
// stream, C×Width row-major, each row normalised to unit length: the token embeddings of
// the class tokens when the output head is tied to the embedding (bijection and recall
// values), else the output head's class columns (HMM states, which are not tokens).
func ClassDirections(m Model, t tunnels.Tunnel) ([]float64, int, error) {
	params := m.Params()
	var tok, head *tensor.Dense
	for _, p := range params {
		switch p.Name {
		case "tok":
			tok = p.Value
		case "head":
			head = p.Value
		}
	}
	if tok == nil {
		return nil, 0, fmt.Errorf("models: %s has no token embedding", m.Kind())
	}
	d := tok.Shape()[1]
	c := t.Classes()
	out := make([]float64, c*d)
	if off, tied := t.ClassTokens(); tied {
		e := floats(tok)
		copy(out, e[off*d:(off+c)*d])
	} else {
		if head == nil {
			return nil, 0, fmt.Errorf("models: %s has neither a tied nor an own output head", m.Kind())
		}
		h := floats(head) // d×C
		for r := 0; r < d; r++ {
			for k := 0; k < c; k++ {
				out[k*d+r] = h[r*c+k]
			}
		}
	}
	for k := 0; k < c; k++ {
		row := out[k*d : (k+1)*d]
		n := math.Sqrt(dot64(row, row))
		if n > 0 {
			for j := range row {
				row[j] /= n
			}
		}
	}
	return out, d, nil
}

func classJacobians[T Float](m *net[T], t tunnels.Tunnel, b *tunnels.Batch, pr *Probe, seqs int, sites []int) (*Jacobians, error) {
	if m.kind != arch.KindTransformer {
		return nil, fmt.Errorf("models: class Jacobians need a transformer, not %s", m.kind)
	}
	seqs = min(seqs, b.N)
	if seqs < 1 {
		return nil, fmt.Errorf("models: class Jacobians of %d sequences", seqs)
	}
	for _, s := range sites {
		if s < SiteEmbed || s >= m.layers {
			return nil, fmt.Errorf("models: Jacobian site %d: want -1 (embedding) .. %d", s, m.layers-1)
		}
	}
	if pr == nil {
		var err error
		if pr, err = m.Probe(t, b); err != nil {
			return nil, err
		}
	} else if pr.N != b.N || pr.T != t.SeqLen() || len(pr.Resid) != m.layers || len(pr.K) != m.layers || len(pr.V) != m.layers {
		return nil, fmt.Errorf("models: class Jacobians: the probe (%d sequences of %d tokens, %d layers) is not of this batch and model (%d of %d, %d layers)",
			pr.N, pr.T, len(pr.Resid), b.N, t.SeqLen(), m.layers)
	}
	rn, err := newRowNet(m, t)
	if err != nil {
		return nil, err
	}
	T0, P, C, d := pr.T, pr.P, rn.c, rn.d
	for l := 0; l < m.layers; l++ {
		if need := seqs * T0 * d; len(pr.Resid[l]) < need || len(pr.K[l]) < need || len(pr.V[l]) < need {
			return nil, fmt.Errorf("models: class Jacobians: the probe holds layer %d of fewer than %d sequences", l, seqs)
		}
	}
	j := &Jacobians{Sites: append([]int(nil), sites...), Seqs: seqs, P: P, C: C, Width: d,
		ClassLogits: make([]float64, seqs*P*C)}
	for range sites {
		j.Rows = append(j.Rows, make([]float64, seqs*P*C*d))
	}
	pl := par.Pool{Workers: m.opt.Workers}
	pl.Each(seqs*P, func(_ int, item int) {
		s, pi := item/P, item%P
		i := pr.Positions[pi]
		for si, site := range sites {
			h := make([]float64, d)
			if site == SiteEmbed {
				id := b.Tokens[s*T0+i]
				for k := range h {
					h[k] = rn.tok[id*d+k] + rn.pos[i*d+k]
				}
			} else {
				copy(h, pr.Resid[site][(s*T0+i)*d:][:d])
			}
			logits, jac := rn.jacobian(pr, s, i, site+1, h)
			copy(j.Rows[si][item*C*d:], jac)
			if si == 0 {
				copy(j.ClassLogits[item*C:], logits)
			}
		}
	})
	return j, nil
}

// rowNet is a transformer's parameters in float64, for the one-row pass of ClassJacobians.
type rowNet struct {
	d, f, c, heads int
	tok, pos       []float64
	layers         []rowLayer
	norm           []float64
	out            []float64 // C×d: the class rows of the tied embedding, or the head's columns
}

type rowLayer struct {
	norm1, wq, wk, wv, wo, norm2, w1, b1, w2, b2 []float64
	mask                                         []float64
	gateA, gateM                                 float64
}

func newRowNet[T Float](m *net[T], t tunnels.Tunnel) (*rowNet, error) {
	byName := map[string][]float64{}
	for _, p := range m.st.params {
		byName[p.Name] = floats(p.Value)
	}
	get := func(name string) ([]float64, error) {
		v, ok := byName[name]
		if !ok {
			return nil, fmt.Errorf("models: transformer has no parameter %s", name)
		}
		return v, nil
	}
	rn := &rowNet{heads: m.heads, c: t.Classes()}
	var err error
	if rn.tok, err = get("tok"); err != nil {
		return nil, err
	}
	if rn.pos, err = get("pos"); err != nil {
		return nil, err
	}
	if rn.norm, err = get("norm"); err != nil {
		return nil, err
	}
	rn.d = len(rn.norm)
	for l := 0; l < m.layers; l++ {
		var ly rowLayer
		p := fmt.Sprintf("layer%d.", l)
		for _, f := range []struct {
			name string
			dst  *[]float64
		}{{"norm1", &ly.norm1}, {"wq", &ly.wq}, {"wk", &ly.wk}, {"wv", &ly.wv}, {"wo", &ly.wo},
			{"norm2", &ly.norm2}, {"w1", &ly.w1}, {"b1", &ly.b1}, {"w2", &ly.w2}, {"b2", &ly.b2}} {
			if *f.dst, err = get(p + f.name); err != nil {
				return nil, err
			}
		}
		ly.mask = m.mask[l]
		ly.gateA, ly.gateM = *m.unitGate("attn", l), *m.unitGate("mlp", l)
		rn.layers = append(rn.layers, ly)
		rn.f = len(ly.b1)
	}
	d, c := rn.d, rn.c
	rn.out = make([]float64, c*d)
	if m.out.tied {
		copy(rn.out, rn.tok[m.out.off*d:(m.out.off+c)*d])
	} else {
		h, err := get("head") // d×C
		if err != nil {
			return nil, err
		}
		for r := 0; r < d; r++ {
			for k := 0; k < c; k++ {
				rn.out[k*d+r] = h[r*c+k]
			}
		}
	}
	return rn, nil
}

// rowState is what one block's pass over one row keeps for the reverse pass.
type rowState struct {
	x, a, q, k, v, x2, bn, u []float64
	r1, r2                   float64
	alpha                    [][]float64 // [head] weights over positions 0..i
}

// jacobian runs blocks from.. on row h at position i of sequence s (earlier positions' keys
// and values from pr), then the final norm and the class head, and returns the class logits
// and their Jacobian with respect to h, C×d row-major.
func (rn *rowNet) jacobian(pr *Probe, s, i, from int, h []float64) ([]float64, []float64) {
	d, c := rn.d, rn.c
	states := make([]rowState, 0, len(rn.layers)-from)
	x := h
	for l := from; l < len(rn.layers); l++ {
		st := rn.forwardBlock(&rn.layers[l], pr.K[l], pr.V[l], (s*pr.T)*d, i, x)
		states = append(states, st)
		x = blockOut(&rn.layers[l], st)
	}
	rf := rmsInv(x)
	z := make([]float64, d)
	for k := range z {
		z[k] = x[k] * rf * rn.norm[k]
	}
	logits := make([]float64, c)
	for k := 0; k < c; k++ {
		logits[k] = dot64(z, rn.out[k*d:(k+1)*d])
	}
	// Reverse pass: the adjoint of every class logit at once, C×d.
	g := make([]float64, c*d)
	copy(g, rn.out)
	g = rmsBack(x, rf, rn.norm, g, c)
	for li := len(states) - 1; li >= 0; li-- {
		l := from + li
		g = rn.backwardBlock(&rn.layers[l], pr.K[l], pr.V[l], (s*pr.T)*d, i, &states[li], g)
	}
	return logits, g
}

// forwardBlock runs one pre-norm block on row x at position i; K and V hold the layer's keys
// and values, the sequence's rows from base.
func (rn *rowNet) forwardBlock(ly *rowLayer, K, V []float64, base, i int, x []float64) rowState {
	d, f, H := rn.d, rn.f, rn.heads
	hd := d / H
	st := rowState{x: x, r1: rmsInv(x)}
	st.a = make([]float64, d)
	for k := range st.a {
		st.a[k] = x[k] * st.r1 * ly.norm1[k]
	}
	st.q, st.k, st.v = vecMat(st.a, ly.wq, d, d), vecMat(st.a, ly.wk, d, d), vecMat(st.a, ly.wv, d, d)
	scale := 1 / math.Sqrt(float64(hd))
	o := make([]float64, d)
	for hh := 0; hh < H; hh++ {
		lo := hh * hd
		al := make([]float64, i+1)
		for j := 0; j < i; j++ {
			al[j] = scale * dot64(st.q[lo:lo+hd], K[base+j*d+lo:][:hd])
		}
		al[i] = scale * dot64(st.q[lo:lo+hd], st.k[lo:lo+hd])
		softmax64(al)
		st.alpha = append(st.alpha, al)
		for j := 0; j <= i; j++ {
			vj := st.v[lo : lo+hd]
			if j < i {
				vj = V[base+j*d+lo:][:hd]
			}
			w := al[j] * ly.mask[hh]
			for k := range vj {
				o[lo+k] += w * vj[k]
			}
		}
	}
	ow := vecMat(o, ly.wo, d, d)
	st.x2 = make([]float64, d)
	for k := range st.x2 {
		st.x2[k] = x[k] + ly.gateA*ow[k]
	}
	st.r2 = rmsInv(st.x2)
	st.bn = make([]float64, d)
	for k := range st.bn {
		st.bn[k] = st.x2[k] * st.r2 * ly.norm2[k]
	}
	st.u = vecMat(st.bn, ly.w1, d, f)
	for k := range st.u {
		st.u[k] += ly.b1[k]
	}
	return st
}

// blockOut is the block's output: x2 + gate·(GELU(u)·W2 + b2).
func blockOut(ly *rowLayer, st rowState) []float64 {
	d, f := len(st.x2), len(st.u)
	gl := make([]float64, f)
	for k, u := range st.u {
		gl[k] = 0.5 * u * (1 + math.Tanh(geluC*(u+0.044715*u*u*u)))
	}
	y := vecMat(gl, ly.w2, f, d)
	out := make([]float64, d)
	for k := range out {
		out[k] = st.x2[k] + ly.gateM*(y[k]+ly.b2[k])
	}
	return out
}

// backwardBlock maps the adjoints g (C rows) of a block's output to those of its input.
func (rn *rowNet) backwardBlock(ly *rowLayer, K, V []float64, base, i int, st *rowState, g []float64) []float64 {
	d, f, H, c := rn.d, rn.f, rn.heads, rn.c
	hd := d / H
	// MLP: out = x2 + gM·(GELU(u)·W2 + b2), u = norm2(x2)·W1 + b1.
	du := matMulT(g, ly.w2, c, d, f, ly.gateM) // C×f = g·W2ᵀ
	for r := 0; r < c; r++ {
		for k, u := range st.u {
			th := math.Tanh(geluC * (u + 0.044715*u*u*u))
			du[r*f+k] *= 0.5*(1+th) + 0.5*u*(1-th*th)*geluC*(1+3*0.044715*u*u)
		}
	}
	db := matMulT(du, ly.w1, c, f, d, 1)
	dx2 := rmsBack(st.x2, st.r2, ly.norm2, db, c)
	for k := range dx2 {
		dx2[k] += g[k]
	}
	// Attention: x2 = x + gA·(o·Wo).
	do := matMulT(dx2, ly.wo, c, d, d, ly.gateA)
	scale := 1 / math.Sqrt(float64(hd))
	dq, dk, dv := make([]float64, c*d), make([]float64, c*d), make([]float64, c*d)
	for r := 0; r < c; r++ {
		for hh := 0; hh < H; hh++ {
			lo := hh * hd
			al := st.alpha[hh]
			doh := do[r*d+lo : r*d+lo+hd]
			mk := ly.mask[hh]
			dal := make([]float64, i+1)
			for j := 0; j <= i; j++ {
				vj := st.v[lo : lo+hd]
				if j < i {
					vj = V[base+j*d+lo:][:hd]
				}
				dal[j] = mk * dot64(doh, vj)
			}
			var sum float64
			for j, a := range al {
				sum += a * dal[j]
			}
			for k := 0; k < hd; k++ {
				dv[r*d+lo+k] = mk * al[i] * doh[k]
			}
			for j := 0; j <= i; j++ {
				ds := al[j] * (dal[j] - sum) * scale
				kj := st.k[lo : lo+hd]
				if j < i {
					kj = K[base+j*d+lo:][:hd]
				}
				for k := 0; k < hd; k++ {
					dq[r*d+lo+k] += ds * kj[k]
				}
				if j == i {
					for k := 0; k < hd; k++ {
						dk[r*d+lo+k] += ds * st.q[lo+k]
					}
				}
			}
		}
	}
	da := matMulT(dq, ly.wq, c, d, d, 1)
	addMatMulT(da, dk, ly.wk, c, d, d)
	addMatMulT(da, dv, ly.wv, c, d, d)
	dx := rmsBack(st.x, st.r1, ly.norm1, da, c)
	for k := range dx {
		dx[k] += dx2[k]
	}
	return dx
}
