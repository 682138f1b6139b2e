// Package timescales is Paper II's two-timescale experiment as the authors ran it
// (experiments/paper2_gradient/em_vs_sgd_multiseed.py in their repository), which
// `windtunnel timescales` runs and prints.
//
// The task (task.go) is a sticky Markov chain over 8 symbols (Transition: self-transition
// 0.3, the others ∝ 1/circular distance, normalised as the authors do) whose inputs are the
// previous symbol's mean plus standard normal noise in 20 dimensions (Means, from a seed of
// their own, shared by every seed; Draw: one sequence of 2,000 symbols per seed). The model
// (head.go) is a bare causal attention head — W_Q, W_K 20×10, W_V 20×15, W_O 15×8, N(0, 0.1²)
// initial weights, no normalisation, residual, MLP or positions — whose mean cross-entropy
// and gradient Head computes on the project's GEMM (backends/gemm) and the models package's
// vector softmax kernels, one block of query rows at a time up to its last key, so that the
// causal half of the 2,000×2,000 attention matrix is all it computes and none of it is held
// whole. The optimiser (train.go) is full-batch gradient descent, every matrix updated
// from one gradient at its own rate: the baseline at 0.01 on all four, the EM-like arm
// with W_V at 10× that; both arms of a seed start from the same weights. The metric is
// sessions/derived's (Timescales, StepsToTarget): the target is the mean over seeds of the
// baseline's final loss, each arm's steps the first step whose loss, recorded before the
// update, is below it. Run tells Config.Progress how far it is (arms and steps done), which
// the command prints as its progress line (ProgressPrinter). Settings are the command's flags, checked
// and made a Config.
//
// The authors' seeds drive PyTorch's generator, which Go does not reproduce: the sequences,
// means and initial weights here are the bench's own draws (PCG) from the same
// distributions, and the result says so (Note).
package timescales
