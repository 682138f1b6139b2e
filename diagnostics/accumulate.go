package diagnostics

import "fmt"

// Accumulator scores sequences as they come, one at a time, in memory that does not grow
// with their number (a stream of predictions of any length). Its Scores are exactly, bit
// for bit, what Score gives for the same sequences in the same order.
type Accumulator struct {
	positions, classes, n int
	sampleErr             float64
	sums                  PositionCurves
}

// NewAccumulator returns an Accumulator for sequences of positions scored positions over
// classes classes.
func NewAccumulator(positions, classes int) (*Accumulator, error) {
	if positions <= 0 || classes <= 0 {
		return nil, fmt.Errorf("diagnostics: accumulate: sizes must be positive (positions=%d classes=%d)", positions, classes)
	}
	a := &Accumulator{positions: positions, classes: classes}
	pc := &a.sums
	for _, f := range []*[]float64{&pc.ModelEntropy, &pc.BayesEntropy, &pc.BitError, &pc.KLBits, &pc.TVD, &pc.Accuracy} {
		*f = make([]float64, positions)
	}
	return a, nil
}

// Add scores one sequence: q and p are its model distributions and exact posteriors,
// positions×classes each, flat, row-major. Neither is kept.
func (a *Accumulator) Add(q, p []float64) error {
	if err := checkSizes("accumulate", q, p, 1, a.positions, a.classes); err != nil {
		return err
	}
	addSequence(&a.sums, &a.sampleErr, q, p, a.positions, a.classes)
	a.n++
	return nil
}

// Len is the number of sequences added.
func (a *Accumulator) Len() int { return a.n }

// Scores returns the scores of the sequences added so far (an error when there are none).
// The Accumulator can go on adding.
func (a *Accumulator) Scores() (Scores, error) {
	if a.n == 0 {
		return Scores{}, fmt.Errorf("diagnostics: accumulate: no sequences")
	}
	var s Scores
	pc, sums := &s.PerPosition, &a.sums
	pc.ModelEntropy = append([]float64(nil), sums.ModelEntropy...)
	pc.BayesEntropy = append([]float64(nil), sums.BayesEntropy...)
	pc.BitError = make([]float64, a.positions)
	pc.KLBits = append([]float64(nil), sums.KLBits...)
	pc.TVD = append([]float64(nil), sums.TVD...)
	pc.Accuracy = append([]float64(nil), sums.Accuracy...)
	finish(&s, a.sampleErr, a.n, a.positions)
	return s, nil
}
