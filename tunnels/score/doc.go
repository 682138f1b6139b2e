// Package score scores an outside model's predictions against a tunnel's exact posterior:
// Stream reads JSON Lines (one sequence a line: its tokens and the model's distribution,
// or logits, at each scored position; the lines `run --predictions` and `sample --json`
// write), checks each line against the tunnel, recomputes the posterior from the tokens
// (tunnels.PosteriorOf) and accumulates the scores (diagnostics.Accumulator: bit errors,
// KL, TVD, accuracy and the per-position curves) without holding the lines; Result.Text
// prints them as a table. A line from someone else is bounded (MaxLine) and every error
// names its line.
//
// It imports tunnels and diagnostics.
package score
