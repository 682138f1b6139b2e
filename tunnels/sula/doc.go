// Package sula is Paper III's in-context tunnel for language models, SULA (synthetic unary
// likelihood augmentation): k-shot prompts "w1: L, w2: L, … wk: L. test:" whose labels are
// two nonsense words, each a single token of the model's tokenizer. A prompt draws a latent
// label y for the test word uniformly from {L1, L2}; each example's label equals y with
// probability α (0.9) and is the other with 1−α, its carrier word drawn uniformly and
// carrying no evidence (never the test word itself, so no answer can be copied). The exact posterior over the test word's label is therefore
//
//	p(y = L1 | labels) = α^n1 (1−α)^n2 / (α^n1 (1−α)^n2 + α^n2 (1−α)^n1),
//
// with n1 and n2 the counts of L1 and L2 among the examples (Posterior). Generate draws a
// seeded, reproducible set (50 prompts per k ∈ {0, 1, 2, 4, 8} by default); LabelSet picks
// the first candidate labels that are single tokens (with their leading space) for a
// tokenizer given as a function, never an English word (IsWord). Paper III's two prompt
// controls are here too: Remap writes the same prompts with another pair of labels (the same
// evidence), Ablate replaces every example's label with one filler (the same words and
// length, no evidence: a uniform posterior). The carrier words are this project's own list.
//
// The package imports nothing of the project: a tokenizer is passed in as a function.
package sula
