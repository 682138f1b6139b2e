package tunnels

// resizeInts returns s with length n, reusing its storage when it is large enough.
func resizeInts(s []int, n int) []int {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]int, n)
}

// resizeFloats returns s with length n, reusing its storage when it is large enough.
func resizeFloats(s []float64, n int) []float64 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]float64, n)
}

// resizeRows returns p rows of c floats each, reusing rows and their storage.
func resizeRows(rows [][]float64, p, c int) [][]float64 {
	if cap(rows) >= p {
		rows = rows[:p]
	} else {
		rows = append(rows[:cap(rows)], make([][]float64, p-cap(rows))...)
	}
	for j := range rows {
		rows[j] = resizeFloats(rows[j], c)
	}
	return rows
}

// prepare sizes s for a tunnel with seqLen tokens, the given scored positions and
// classes, copying the positions in.
func prepare(s *Sequence, seqLen int, positions []int, classes int) {
	p := len(positions)
	s.Tokens = resizeInts(s.Tokens, seqLen)
	s.Positions = resizeInts(s.Positions, p)
	copy(s.Positions, positions)
	s.Targets = resizeInts(s.Targets, p)
	s.Posterior = resizeRows(s.Posterior, p, classes)
	s.EntropyBits = resizeFloats(s.EntropyBits, p)
}

// clonePositions returns a copy of a tunnel's positions so callers cannot alter them.
func clonePositions(p []int) []int {
	return append([]int(nil), p...)
}
