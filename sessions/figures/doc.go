// Package figures draws a run's figures from its session files with gonum.org/v1/plot, as
// PNG, SVG or PDF, for `windtunnel plot` and the report, at a size CheckSize accepts
// (MinSize..MaxSize pixels each way, plot's and llm's --width and --height). Load reads a session (or Loads a
// list of files and folders) into a Run; Render groups runs that are one configuration under
// the rule of sessions/derived (its seeds; the worker count, BLAS, cadences and geometry
// size aside, the device and precision not) and writes every figure the runs have data for:
//
//   - errors: bit error (a), (b) and KL vs step on a log axis, mean ± band over seeds, with
//     the pass threshold (derived.PassBits) and, for a bijection, the context-free level,
//     each drawn where it is near the data and named at the range's edge where it is not;
//   - entropy: model vs Bayes entropy per position at the last evaluation;
//   - lengths: an hmm run's KL per position at each evaluated K (length generalisation);
//   - from the first seed's newest snapshot, where it holds the data (titles name the seed):
//     keys (key orthogonality per layer × head, the authors' statistic trained vs at
//     initialisation, the bench's vs random vectors), manifold (PC1 vs PC2 coloured by
//     posterior entropy, many sequences and one, |ρ| in the titles), ablation (Δ bits per
//     head with the costliest marked, beside a layer × head heat map), frame (frame, log2 bit
//     error and 1−|ρ| min–max scaled on one step axis, settle steps as dots) and qk (QK
//     alignment heat maps per layer), simplex (an hmm run's final-layer states, PC1 vs PC2
//     coloured by the exact posterior's argmax state, with k-means purity (and, where recorded, against the observed symbol), R² of the linear
//     map to the posterior and the corner distance in the title); several panels share one file;
//   - user: the user's own metrics (windtunnel metric) vs step, a panel per metric on its own
//     axis, mean ± sd over seeds, six panels a file (userMetricsFigures);
//   - table: the architecture table (models × tasks, mean bit error (a) or accuracy for
//     recall, pass/fail) over all the runs, as derived.Table builds it: a model and task run in
//     several configurations gets one band of its cell per configuration; cells are at most
//     maxCellW × maxCellH a band, their text shrunk to fit;
//   - frontier: bit error (b) vs wall time (its pauses left out: derived.ActiveWall) of the
//     bijection V=20 transformer's configurations;
//   - timescales: for each pair of transformer configurations that differ only in value_lr
//     (Paper II's two arms), KL vs step of both with the baseline's final KL as the target
//     line, pairs of one task tagged by what tells them apart (derived.Labels).
//
// Titles name a group by task, model and what tells its configuration apart (heading), or
// the name its runs share (derived.CommonName).
// Presentation is shared: ticks.go gives round tick labels (linearTicks; logTicks at 1-2-5
// steps), layout.go places each legend where a trial drawing shows no data (else beside the
// plot, or under it where a column would squeeze the data), reflines.go draws reference
// lines labelled at the end the curves leave free (notes of lines beyond one edge stacked),
// and fit.go makes every figure read from one column (480×300) up: a figure smaller than
// 640×400 pixels is laid out on a page of that size and drawn scaled down, titles wrap to
// their width (three lines at most), each axis keeps as many round labels as stand apart,
// bars take a share of their slot, colour bars (panels.go) span the data areas beside them,
// and a figure may have a short layout for a low page (keys: its panels side by side).
//
// ForReport is the figure renderer the report plugs in (reports.Options.Figures): plot's
// figures as PNG into the report's fig folder. Primitives draws `windtunnel primitives`'s
// table (primitives.go: each cell's verdict pass, slow or FAIL with its first pass, and Paper
// I's verdict in words, derived.PaperWord), on the architecture table's grid;
// PrimitiveCurves its curves, a figure a task (primitivecurves.go: every seed's metric against
// the step, with the pass line and the slow line the verdict reads).
//
// Nothing here keeps state between calls; each figure kind lives in its own file.
package figures
