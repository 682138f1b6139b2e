// Package ticks is the one rule for where an axis is labelled, shared by the figures
// (sessions/figures, on gonum/plot) and the terminal charts (tui/look, on ntcharts): round
// values 1, 2 or 5 × 10^k apart on a linear axis (Linear; an integer axis, such as steps or
// positions, never finer than 1), and on a log axis every decade, or 1-2-5, 1-2-3-5 or every
// multiple of a decade as the range narrows (Log); each label written with as many decimals
// as its spacing needs (Format), so that 0.1 × 3 reads 0.3.
//
// It imports nothing of the project: it knows numbers, not plots or cells.
package ticks
