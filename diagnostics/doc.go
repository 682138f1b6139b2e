// Package diagnostics computes how far a network's predictions are from the
// exact Bayesian posterior, in bits, and (later) the geometry of its attention
// and residual stream. It takes plain slices, never gorgonia nodes.
package diagnostics
