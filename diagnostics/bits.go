package diagnostics

import (
	"errors"
	"fmt"
	"math"
)

// KLFloor is the lower clamp applied to model probabilities q inside the KL
// term computed by Score and ScoreInto, so that a q that underflowed to zero
// where p* > 0 gives a large finite KL instead of +Inf.
const KLFloor = 1e-30

// MAPTolerance is how far below the largest posterior probability a class may
// be and still count as a MAP class when scoring accuracy.
const MAPTolerance = 1e-9

// invLn2 converts nats to bits.
const invLn2 = 1 / math.Ln2

// Scores is the comparison of model distributions with exact posteriors on a probe set.
type Scores struct {
	// BitErrorPosition is bit error (a), per-position: |mean_seq H(q) − mean_seq H(p*)| averaged over positions (the paper's headline).
	BitErrorPosition float64 `json:"bit_error_position"`
	// BitErrorSample is bit error (b), per-sample: mean over sequences and positions of |H(q) − H(p*)|.
	BitErrorSample float64 `json:"bit_error_sample"`
	// KLBits is the mean KL(p*‖q) in bits over sequences and positions (q clamped to KLFloor).
	KLBits float64 `json:"kl_bits"`
	// TVD is the mean total variation distance ½Σ|p*−q| over sequences and positions.
	TVD float64 `json:"tvd"`
	// Accuracy is the fraction of positions where argmax q is a MAP class of p* (within MAPTolerance of the max).
	Accuracy float64 `json:"accuracy"`
	// PerPosition holds the same quantities per scored position, averaged over sequences.
	PerPosition PositionCurves `json:"per_position"`
}

// PositionCurves holds one value per scored position (index p), each averaged over sequences.
type PositionCurves struct {
	// ModelEntropy is mean_seq H(q) in bits at each position.
	ModelEntropy []float64 `json:"model_entropy_bits"`
	// BayesEntropy is mean_seq H(p*) in bits at each position.
	BayesEntropy []float64 `json:"bayes_entropy_bits"`
	// BitError is |ModelEntropy[p] − BayesEntropy[p]| at each position.
	BitError []float64 `json:"bit_error"`
	// KLBits is mean_seq KL(p*‖q) in bits at each position (q clamped to KLFloor).
	KLBits []float64 `json:"kl_bits"`
	// TVD is mean_seq ½Σ|p*−q| at each position.
	TVD []float64 `json:"tvd"`
	// Accuracy is the fraction of sequences whose argmax q is a MAP class of p* at each position.
	Accuracy []float64 `json:"accuracy"`
}

// Score compares model distributions q with exact posteriors p, both laid out N×P×C (sequence, scored position, class), flat, row-major.
//
// Entropies, KL and TVD are computed in float64; the KL term clamps q to at
// least KLFloor so that underflowed model probabilities do not make it +Inf.
// Ties in argmax q go to the lowest class index. NaN inputs propagate into the
// affected metrics rather than producing an error. Wrong sizes or slice
// lengths return an error and a zero Scores.
func Score(q, p []float64, n, positions, classes int) (Scores, error) {
	var s Scores
	if err := ScoreInto(&s, q, p, n, positions, classes); err != nil {
		return Scores{}, err
	}
	return s, nil
}

// ScoreInto is Score writing into s, reusing its slices (no allocation when sizes repeat).
//
// On error s is left unchanged.
func ScoreInto(s *Scores, q, p []float64, n, positions, classes int) error {
	if s == nil {
		return errors.New("diagnostics: score: nil *Scores")
	}
	if err := checkSizes("score", q, p, n, positions, classes); err != nil {
		return err
	}

	pc := &s.PerPosition
	pc.ModelEntropy = resize(pc.ModelEntropy, positions)
	pc.BayesEntropy = resize(pc.BayesEntropy, positions)
	pc.BitError = resize(pc.BitError, positions)
	pc.KLBits = resize(pc.KLBits, positions)
	pc.TVD = resize(pc.TVD, positions)
	pc.Accuracy = resize(pc.Accuracy, positions)

	var sampleErr float64 // Σ |H(q) − H(p*)| in bits
	stride := positions * classes
	for i := range n {
		off := i * stride
		addSequence(pc, &sampleErr, q[off:off+stride], p[off:off+stride], positions, classes)
	}
	finish(s, sampleErr, n, positions)
	return nil
}

// addSequence adds one sequence's scores (q and p positions×classes, flat) to the running
// sums in pc and its |H(q) − H(p*)| at each position, in bits, to *sampleErr (one running
// sum, in the same order whether the sequences come at once or one by one).
func addSequence(pc *PositionCurves, sampleErr *float64, q, p []float64, positions, classes int) {
	off := 0
	for j := range positions {
		qd := q[off : off+classes : off+classes]
		pd := p[off : off+classes : off+classes]
		off += classes

		// All sums in nats; converted to bits at the end.
		var hq, hp, kl, tv float64
		qArg, qMax := 0, math.Inf(-1)
		pMax := math.Inf(-1)
		for c, qi := range qd {
			pi := pd[c]
			lq := math.Log(max(qi, KLFloor))
			if qi > 0 {
				if qi >= KLFloor {
					hq -= qi * lq
				} else {
					hq -= qi * math.Log(qi)
				}
			} else if qi != qi { // NaN
				hq = math.NaN()
			}
			if !(pi <= 0) { // also true for NaN, which then propagates
				lp := math.Log(pi)
				hp -= pi * lp
				kl += pi * (lp - lq)
			}
			tv += math.Abs(pi - qi)
			if qi > qMax {
				qArg, qMax = c, qi
			}
			if pi > pMax {
				pMax = pi
			}
		}
		hq *= invLn2
		hp *= invLn2
		kl *= invLn2
		tv *= 0.5

		pc.ModelEntropy[j] += hq
		pc.BayesEntropy[j] += hp
		pc.KLBits[j] += kl
		pc.TVD[j] += tv
		if pd[qArg] >= pMax-MAPTolerance {
			pc.Accuracy[j]++
		}
		*sampleErr += math.Abs(hq - hp)
	}
}

// finish turns the running sums in s.PerPosition over n sequences into means and fills in
// the overall scores.
func finish(s *Scores, sampleErr float64, n, positions int) {
	pc := &s.PerPosition
	invN := 1 / float64(n)
	var posErr, klSum, tvSum, accSum float64
	for j := range positions {
		pc.ModelEntropy[j] *= invN
		pc.BayesEntropy[j] *= invN
		pc.KLBits[j] *= invN
		pc.TVD[j] *= invN
		pc.Accuracy[j] *= invN
		pc.BitError[j] = math.Abs(pc.ModelEntropy[j] - pc.BayesEntropy[j])
		posErr += pc.BitError[j]
		klSum += pc.KLBits[j]
		tvSum += pc.TVD[j]
		accSum += pc.Accuracy[j]
	}
	invP := 1 / float64(positions)
	s.BitErrorPosition = posErr * invP
	s.BitErrorSample = sampleErr / float64(n*positions)
	s.KLBits = klSum * invP
	s.TVD = tvSum * invP
	s.Accuracy = accSum * invP
}

// checkSizes validates the sizes and the lengths of q and p for op.
func checkSizes(op string, q, p []float64, n, positions, classes int) error {
	if n <= 0 || positions <= 0 || classes <= 0 {
		return fmt.Errorf("diagnostics: %s: sizes must be positive (n=%d positions=%d classes=%d)",
			op, n, positions, classes)
	}
	if positions > math.MaxInt/classes || n > math.MaxInt/(positions*classes) {
		return fmt.Errorf("diagnostics: %s: n*positions*classes overflows int (n=%d positions=%d classes=%d)",
			op, n, positions, classes)
	}
	want := n * positions * classes
	if len(q) != want {
		return fmt.Errorf("diagnostics: %s: q has %d values, want %d (n=%d positions=%d classes=%d)",
			op, len(q), want, n, positions, classes)
	}
	if len(p) != want {
		return fmt.Errorf("diagnostics: %s: p has %d values, want %d (n=%d positions=%d classes=%d)",
			op, len(p), want, n, positions, classes)
	}
	return nil
}

// resize returns s with length k and all elements zero, reusing its storage when large enough.
func resize(s []float64, k int) []float64 {
	if cap(s) < k {
		return make([]float64, k)
	}
	s = s[:k]
	clear(s)
	return s
}

// Entropy returns the entropy of a distribution in bits (0·log 0 = 0).
//
// Entries ≤ 0 contribute 0; a NaN entry makes the result NaN. The input is not
// renormalised.
func Entropy(d []float64) float64 {
	var h float64
	for _, x := range d {
		if x <= 0 {
			continue
		}
		h -= x * math.Log(x)
	}
	return h * invLn2
}

// KL returns KL(p‖q) in bits; terms with p=0 contribute 0; q=0 where p>0 gives +Inf.
//
// Entries of p that are ≤ 0 contribute 0. Unlike Score, no clamp is applied to
// q. Slices of different lengths give NaN.
func KL(p, q []float64) float64 {
	if len(p) != len(q) {
		return math.NaN()
	}
	var kl float64
	for i, pi := range p {
		if pi <= 0 {
			continue
		}
		qi := q[i]
		if qi <= 0 {
			return math.Inf(1)
		}
		kl += pi * (math.Log(pi) - math.Log(qi))
	}
	return kl * invLn2
}

// TVD returns ½ Σ|p−q|.
//
// Slices of different lengths give NaN.
func TVD(p, q []float64) float64 {
	if len(p) != len(q) {
		return math.NaN()
	}
	var t float64
	for i, pi := range p {
		t += math.Abs(pi - q[i])
	}
	return 0.5 * t
}

// SoftmaxInto writes softmax(logits) into dst (numerically stable, float64) and returns dst.
//
// dst is resliced to len(logits), or reallocated if its capacity is too small;
// it may alias logits. The max logit is subtracted before exponentiating. If
// the largest logit is not finite (all −Inf, any +Inf or NaN) the result is
// NaN throughout.
func SoftmaxInto(dst, logits []float64) []float64 {
	if cap(dst) < len(logits) {
		dst = make([]float64, len(logits))
	}
	dst = dst[:len(logits)]
	if len(logits) == 0 {
		return dst
	}
	m := math.Inf(-1)
	for _, x := range logits {
		if x > m || x != x {
			m = x
			if x != x {
				break
			}
		}
	}
	if math.IsInf(m, 0) || m != m {
		for i := range dst {
			dst[i] = math.NaN()
		}
		return dst
	}
	var sum float64
	for i, x := range logits {
		e := math.Exp(x - m)
		dst[i] = e
		sum += e
	}
	inv := 1 / sum
	for i := range dst {
		dst[i] *= inv
	}
	return dst
}
