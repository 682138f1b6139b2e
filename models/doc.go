// Package models holds the networks trained in the wind tunnels as gorgonia expression
// graphs: the transformer and its capacity-matched baselines, Mamba (a selective
// state-space model), the LSTM and the per-position MLP — the rows of Paper I's
// architecture table, arch.PaperKinds — and the prefix MLP ("mlp-prefix"), an ablation that
// reads the flattened one-hot prefix and so sees the whole context. arch.Kinds lists them all
// and New builds one from an arch.Spec (models/arch: the kinds and size structs), matching a baseline to the transformer's parameter count
// when its width is not given (the per-position MLP as the authors did: the transformer's
// width, hidden 4·width, the block count closest to the count; 9 blocks at the paper's
// bijection size).
// The hot paths are custom gorgonia ops with hand-written forward and backward passes over
// BLAS (and sequential scans for the recurrent models) that write into memory they own, so
// a steady-state training step allocates almost nothing. The transformer's query, key and
// value projections are one kernel (one product with the three weights side by side), whose
// (N·T)×3d output the attention kernel reads as it is. In float32 on amd64 with AVX2 and
// FMA, attention's per-(sequence, head) products, softmax rows, bias+GELU, RMSNorm rows and
// bias-gradient sums run on Go assembly kernels (smm_amd64.s, vmath_amd64.s with its shared
// constants and macros in vmath_amd64.h, gelu_erf_amd64.s, rows_amd64.s; the same tanh, exp
// and erf polynomials as the scalar code; bias+GELU sixteen lanes at a time where the CPU has
// AVX-512, with the same results); so do Mamba's selective scan (scan_amd64.s, one channel
// over a whole sequence at a time, and scan512_amd64.s for a state of 16, sixteen channels at
// once, one an AVX-512 lane; scan_chan.go picks them), its gates and its causal convolution (mulArr,
// mulAddArr); elsewhere, and in float64, the scalar loops and the BLAS backend do. GELU has
// two forms (Options.GELU), each with its vector kernel: the tanh approximation, and the
// exact u·Φ(u) (its float32 erf in numerics.go, the kernel's Go twin; the forward pass keeps
// GELU′, the backward pass multiplies by it). rowkernels.go exports the softmax row kernels and the typed
// product (MatMul) for computations outside a Model (lab/timescales). Gorgonia sums a node's gradient contributions with Add
// nodes; the tape machine runs with sumEngine, which splits those sums over the workers
// (gradsum.go). Loops over rows and items share par.Pool.
//
// The per-position MLP's training graph runs its blocks on the scored positions' rows alone
// (mlp_scored.go: no other row reaches the loss); its evaluation and probe graphs on every row.
//
// Parameters live once per model and are shared by every compiled graph (one per batch
// size). Every model can be probed (attention, queries, keys, values, residual stream,
// copied out as plain slices) and ablated (head masks and units are graph inputs).
// PredictChunks and ProbeChunks run a large set in passes of a bounded number of sequences
// (chunks.go), so that the compiled graphs' buffers stay proportional to the chunk. A training
// graph's activation gradients share buffers where their lifetimes do not overlap
// (gradmem.go: planned in the tape's order, checked against the order the first step ran in).
//
// Resident executes a float32 model's compiled training graph on an accelerator (an
// accel.Device: the GPU, or the host's Go kernels): each kernel op runs its device version
// (resident_kernels.go), gorgonia's gradient sums run as device adds, parameters, gradients and
// AdamW moments sit in one flat buffer each; an op with no device version is an error when the
// Resident is built.
// Each numeric formula (the norm ε, GELU, RMSNorm's factor, the float32 exp of the sigmoid
// and the scan) is written once, in numerics.go, which names its deliberate twins (the
// assembly, backends/accel, models/llm, the PyTorch references); the J-lens pass
// (jlens_pass.go) uses those formulas in a forward and reverse pass of its own (JLens says
// why it is not built on the training kernels).
// Models know nothing of the UI; they import models/arch, the tunnels package, the compute back-ends
// under backends/ and par, and no other package of the project.
package models
