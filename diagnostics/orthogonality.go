package diagnostics

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
)

// MeanAbsOffDiagCosine returns the mean |cosine| between distinct rows of the n×dim row-major matrix rows.
//
// Each row is L2-normalised; rows with zero norm are skipped. The mean runs
// over the m(m−1) ordered pairs i≠j of the m usable rows, which equals the
// mean over unordered pairs. Orthonormal rows give 0 and identical rows give
// 1. Non-positive sizes, a wrong length or fewer than 2 usable rows return an
// error; NaN entries propagate into the result.
func MeanAbsOffDiagCosine(rows []float64, n, dim int) (float64, error) {
	if n <= 0 || dim <= 0 {
		return 0, fmt.Errorf("diagnostics: orthogonality: sizes must be positive (n=%d dim=%d)", n, dim)
	}
	want, err := product(n, dim)
	if err != nil {
		return 0, fmt.Errorf("diagnostics: orthogonality: %w", err)
	}
	if len(rows) != want {
		return 0, fmt.Errorf("diagnostics: orthogonality: rows has %d values, want %d (n=%d dim=%d)",
			len(rows), want, n, dim)
	}
	v, ok := meanAbsOffDiagCosine(rows, n, dim, make([]float64, 0, want))
	if !ok {
		return 0, fmt.Errorf("diagnostics: orthogonality: need at least 2 rows with non-zero norm, have %d of %d",
			usableRows(rows, n, dim), n)
	}
	return v, nil
}

// usableRows counts the rows of the n×dim matrix with non-zero norm.
func usableRows(rows []float64, n, dim int) int {
	m := 0
	for i := range n {
		if floats.Norm(rows[i*dim:(i+1)*dim], 2) != 0 {
			m++
		}
	}
	return m
}

// meanAbsOffDiagCosine is MeanAbsOffDiagCosine on checked sizes, using buf (length 0) for the normalised rows; ok is false with fewer than 2 usable rows.
func meanAbsOffDiagCosine(rows []float64, n, dim int, buf []float64) (float64, bool) {
	u := buf[:0]
	for i := range n {
		r := rows[i*dim : (i+1)*dim]
		norm := floats.Norm(r, 2)
		if norm == 0 {
			continue
		}
		inv := 1 / norm
		for _, x := range r {
			u = append(u, x*inv)
		}
	}
	m := len(u) / dim
	if m < 2 {
		return 0, false
	}
	var sum float64
	for i := range m {
		ui := u[i*dim : (i+1)*dim]
		for j := i + 1; j < m; j++ {
			c := math.Abs(floats.Dot(ui, u[j*dim:(j+1)*dim]))
			if c > 1 { // rounding of normalised vectors
				c = 1
			}
			sum += c
		}
	}
	return sum / float64(m*(m-1)/2), true
}

// RandomOrthogonality returns the MeanAbsOffDiagCosine of n i.i.d. standard Gaussian vectors in dim dimensions, averaged over trials.
//
// With centre set the vectors are centred (CentreRows) first, as KeyOrthogonality does
// with centre, so the baseline is comparable.
//
// The draws come from a PCG generator seeded with seed, so the result is
// deterministic. For large dim the expectation is close to sqrt(2/(π·dim)).
// It returns NaN when n < 2, dim < 1 or trials < 1.
func RandomOrthogonality(n, dim int, seed uint64, trials int, centre bool) float64 {
	if n < 2 || dim < 1 || trials < 1 {
		return math.NaN()
	}
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	x := make([]float64, n*dim)
	buf := make([]float64, 0, n*dim)
	var sum float64
	for range trials {
		for i := range x {
			x[i] = r.NormFloat64()
		}
		if centre {
			CentreRows(x, n, dim)
		}
		v, ok := meanAbsOffDiagCosine(x, n, dim, buf)
		if !ok { // a Gaussian vector is zero with probability 0
			return math.NaN()
		}
		sum += v
	}
	return sum / float64(trials)
}

// TokenMeans averages the dim-vectors of vecs (nrows×dim) grouped by token, returning the means of the kept tokens that occur, in ascending token id, as a len(ids)×dim matrix.
//
// tokens[r] is the token of row r and must lie in [0, vocab); keep selects
// tokens (nil keeps all). This is how E_tok[keys] is formed from probe keys.
// It panics on inconsistent sizes or an out-of-range token (programmer
// errors); callers with untrusted input should validate first, as
// KeyOrthogonality does.
func TokenMeans(vecs []float64, tokens []int, nrows, dim int, vocab int, keep func(tok int) bool) (means []float64, ids []int) {
	if nrows < 0 || dim <= 0 || vocab < 0 || len(vecs) != nrows*dim || len(tokens) != nrows {
		panic(fmt.Sprintf("diagnostics: token means: inconsistent sizes (len(vecs)=%d len(tokens)=%d nrows=%d dim=%d vocab=%d)",
			len(vecs), len(tokens), nrows, dim, vocab))
	}
	sums := make([]float64, vocab*dim)
	counts := make([]int, vocab)
	for r, tok := range tokens {
		if tok < 0 || tok >= vocab {
			panic(fmt.Sprintf("diagnostics: token means: token %d at row %d outside [0, %d)", tok, r, vocab))
		}
		if keep != nil && !keep(tok) {
			continue
		}
		counts[tok]++
		floats.Add(sums[tok*dim:(tok+1)*dim], vecs[r*dim:(r+1)*dim])
	}
	for tok, c := range counts {
		if c == 0 {
			continue
		}
		ids = append(ids, tok)
		row := sums[tok*dim : (tok+1)*dim]
		floats.Scale(1/float64(c), row)
		means = append(means, row...)
	}
	return means, ids
}

// KeyOrthogonality returns, per head, the MeanAbsOffDiagCosine of the token means of that head's key slice.
//
// With centre set, the token means of each head are centred (their mean over tokens
// subtracted) first: a direction shared by every key adds the same score to every token
// and leaves attention unchanged, so only the centred keys tell hypotheses apart.
//
// keys is nrows×width (row-major) with head h owning columns
// h·width/heads .. (h+1)·width/heads; tokens[r] is the (non-negative) token
// of row r and keep selects tokens (nil keeps all). Bad sizes, a negative
// token, or a head with fewer than 2 non-zero token means return an error.
func KeyOrthogonality(keys []float64, tokens []int, nrows, width, heads int, keep func(int) bool, centre bool) ([]float64, error) {
	if nrows <= 0 || width <= 0 || heads <= 0 {
		return nil, fmt.Errorf("diagnostics: key orthogonality: sizes must be positive (nrows=%d width=%d heads=%d)",
			nrows, width, heads)
	}
	if width%heads != 0 {
		return nil, fmt.Errorf("diagnostics: key orthogonality: width %d not divisible by heads %d", width, heads)
	}
	want, err := product(nrows, width)
	if err != nil {
		return nil, fmt.Errorf("diagnostics: key orthogonality: %w", err)
	}
	if len(keys) != want {
		return nil, fmt.Errorf("diagnostics: key orthogonality: keys has %d values, want %d (nrows=%d width=%d)",
			len(keys), want, nrows, width)
	}
	if len(tokens) != nrows {
		return nil, fmt.Errorf("diagnostics: key orthogonality: tokens has %d values, want %d", len(tokens), nrows)
	}
	vocab := 0
	for r, tok := range tokens {
		if tok < 0 {
			return nil, fmt.Errorf("diagnostics: key orthogonality: negative token %d at row %d", tok, r)
		}
		vocab = max(vocab, tok+1)
	}
	means, ids := TokenMeans(keys, tokens, nrows, width, vocab, keep)
	m, hd := len(ids), width/heads
	sub := make([]float64, m*hd)
	buf := make([]float64, 0, m*hd)
	out := make([]float64, heads)
	for h := range heads {
		for i := range m {
			copy(sub[i*hd:(i+1)*hd], means[i*width+h*hd:i*width+(h+1)*hd])
		}
		if centre {
			CentreRows(sub, m, hd)
		}
		v, ok := meanAbsOffDiagCosine(sub, m, hd, buf)
		if !ok {
			return nil, fmt.Errorf("diagnostics: key orthogonality: head %d: need at least 2 tokens with non-zero mean key, have %d of %d",
				h, usableRows(sub, m, hd), m)
		}
		out[h] = v
	}
	return out, nil
}

// CentreRows subtracts from each of the n dim-vectors of rows (row-major) their mean vector.
func CentreRows(rows []float64, n, dim int) {
	if n <= 0 || len(rows) != n*dim {
		panic(fmt.Sprintf("diagnostics: centre rows: %d values for %d×%d", len(rows), n, dim))
	}
	mean := make([]float64, dim)
	for i := 0; i < n; i++ {
		floats.Add(mean, rows[i*dim:(i+1)*dim])
	}
	floats.Scale(1/float64(n), mean)
	for i := 0; i < n; i++ {
		floats.Sub(rows[i*dim:(i+1)*dim], mean)
	}
}

// EmbedKeyOrthogonality is the authors' key orthogonality (the authors' statistic 2; docs/usage.md: Geometry): per
// head, the mean |off-diagonal cosine| between the keys of n token embeddings, each
// normalised as the layer's pre-attention RMSNorm does and projected through W_K restricted
// to the head's columns; no position embedding, no centring.
//
// emb is n×d (row-major), one row e_i per token; scale (length d) is the RMSNorm's learned
// gain g and eps its epsilon:
//
//	x̂_i = e_i / sqrt(mean_j e_ij² + eps) ⊙ g,   k_i = x̂_i · W_K,
//	out[h] = mean over pairs i<j of |cos(k_i[h·hd:(h+1)·hd], k_j[h·hd:(h+1)·hd])|,
//
// with wk d×width (row-major, input × output: the layer computes x·W_K) and hd =
// width/heads. The per-row factor 1/sqrt(mean e² + eps) cancels in the cosine, so of the
// norm only the gain changes the result; it is applied anyway, so the keys are the layer's.
// Bad sizes, width not divisible by heads, or a head with fewer than 2 non-zero keys return
// an error.
func EmbedKeyOrthogonality(emb []float64, n, d int, scale []float64, eps float64, wk []float64, width, heads int) ([]float64, error) {
	if n <= 0 || d <= 0 || width <= 0 || heads <= 0 {
		return nil, fmt.Errorf("diagnostics: embedding key orthogonality: sizes must be positive (n=%d d=%d width=%d heads=%d)",
			n, d, width, heads)
	}
	if width%heads != 0 {
		return nil, fmt.Errorf("diagnostics: embedding key orthogonality: width %d not divisible by heads %d", width, heads)
	}
	ne, err := product(n, d)
	if err != nil {
		return nil, fmt.Errorf("diagnostics: embedding key orthogonality: %w", err)
	}
	nw, err := product(d, width)
	if err != nil {
		return nil, fmt.Errorf("diagnostics: embedding key orthogonality: %w", err)
	}
	nk, err := product(n, width)
	if err != nil {
		return nil, fmt.Errorf("diagnostics: embedding key orthogonality: %w", err)
	}
	switch {
	case len(emb) != ne:
		return nil, fmt.Errorf("diagnostics: embedding key orthogonality: emb has %d values, want %d (n=%d d=%d)", len(emb), ne, n, d)
	case len(scale) != d:
		return nil, fmt.Errorf("diagnostics: embedding key orthogonality: scale has %d values, want %d", len(scale), d)
	case len(wk) != nw:
		return nil, fmt.Errorf("diagnostics: embedding key orthogonality: W_K has %d values, want %d (d=%d width=%d)", len(wk), nw, d, width)
	case eps < 0:
		return nil, fmt.Errorf("diagnostics: embedding key orthogonality: negative eps %g", eps)
	}
	keys := make([]float64, nk)
	x := make([]float64, d)
	for i := range n {
		e := emb[i*d : (i+1)*d]
		ss := floats.Dot(e, e)
		inv := 1 / math.Sqrt(ss/float64(d)+eps)
		if math.IsInf(inv, 0) { // a zero row with eps 0: a zero key, skipped below
			inv = 0
		}
		for j, v := range e {
			x[j] = v * inv * scale[j]
		}
		k := keys[i*width : (i+1)*width]
		for j, v := range x {
			if v != 0 {
				floats.AddScaled(k, v, wk[j*width:(j+1)*width])
			}
		}
	}
	hd := width / heads
	sub := make([]float64, n*hd)
	buf := make([]float64, 0, n*hd)
	out := make([]float64, heads)
	for h := range heads {
		for i := range n {
			copy(sub[i*hd:(i+1)*hd], keys[i*width+h*hd:i*width+(h+1)*hd])
		}
		v, ok := meanAbsOffDiagCosine(sub, n, hd, buf)
		if !ok {
			return nil, fmt.Errorf("diagnostics: embedding key orthogonality: head %d: need at least 2 tokens with a non-zero key, have %d of %d",
				h, usableRows(sub, n, hd), n)
		}
		out[h] = v
	}
	return out, nil
}
