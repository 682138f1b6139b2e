// Package probe is the checkpoint probe (windtunnel probe): Check refuses a step or a
// count it does not probe; Session loads a session's
// checkpoint, rebuilds its model from the stored configuration (derived.SessionConfig) and
// computes what a run records at an evaluation and a geometry snapshot — the scores on the
// run's probe set, an hmm run's length-generalisation curve, focus, key orthogonality,
// value manifold, ablation table and the J-lens overlap — beside the frame history and the
// authors' frame statistic the run recorded (derived.ReadFrameRatios). Report.Text prints
// it; means over heads and positions are derived's (NaN-skipping). Noise (CheckNoise
// refusing what it does not measure) scores a checkpoint on many independent probe sets of
// one size: the evaluation noise a probe set of that size leaves in bit error.
//
// It imports lab, sessions, sessions/derived, sessions/runconfig and diagnostics.
package probe
