// Package diagnostics computes how far a network's predictions are from the exact
// Bayesian posterior, in bits (Score: bit error both ways, KL, TVD, accuracy, per-position
// curves; Accumulator: the same, bit for bit, one sequence at a time in constant memory;
// Entropy is the one entropy-in-bits function), and the geometry of its attention
// and residual stream. It takes plain slices, never gorgonia nodes, and imports no other
// package of the project.
//
// The geometry diagnostics of docs/usage.md: Geometry work on the same kind of flat, row-major
// float64 slices: AttentionFocus (attention-row entropy and mass on evidence-consistent
// keys per layer and head), KeyOrthogonality beside RandomOrthogonality (mean |off-diagonal
// cosine| of per-token mean keys against Gaussian vectors of the head's dimension),
// QKAlignment (query–key cosine maps), ValueManifold (PCA of the final residual, PC1
// against the posterior entropy), AttentionDrift and SettleStep for the frame–precision
// dissociation over training, and Effect, HeadTable, Worst and Costly (the worst is the costliest only when it costs bits) for ablations. For the
// language models of Paper III: Standardize, ColumnStats and StandardizeRow (the authors'
// scaler before their PCA), PrincipalAxis and Project (the entropy axis) and TrendOf (a
// per-layer series' fall, for dynamic focusing). For Paper I's belief simplex (issue 52):
// SimplexGeometry (KMeans with k = the HMM's states, Purity against the exact posterior's
// argmax state, LinearR2 of the least-squares map to the posterior, each cluster centre's
// image distance from its corner). Bad sizes
// return errors prefixed "diagnostics: "; functions without an error result signal
// inconsistent input with NaN or -1 as documented, and TokenMeans panics on it.
package diagnostics
