// Package figures draws a run's figures from its session files with gonum.org/v1/plot, as
// PNG, SVG or PDF, for `windtunnel plot` and the report. Load reads a session (or Loads a
// list of files and folders) into a Run; Render groups runs that differ only in their seed
// (one configuration, several seeds) and writes every figure the runs have data for:
//
//   - errors: bit error (a), (b) and KL vs step on a log axis, mean ± band over seeds, with
//     the pass threshold (0.15 bits) and, for a bijection, the context-free level;
//   - entropy: model vs Bayes entropy per position at the last evaluation;
//   - lengths: an hmm run's KL per position at each evaluated K (length generalisation);
//   - table: the architecture table (models × tasks, mean bit error (a) or accuracy for
//     recall, pass/fail) over all the runs, as lab.Table builds it.
//
// Nothing here keeps state between calls; each figure kind lives in its own file.
package figures
