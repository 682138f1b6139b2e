// Package prompts holds the prompt sets the language-model measurements run on (Paper III's
// value manifold): a mixed-domain set spanning predictive entropies (the analogue of the
// authors' 13 entropy-controlled prompts) and single-domain sets of 50 or more prompts each
// (geography, arithmetic, narrative, antonyms), written for this project and embedded from
// sets/*.txt; and Read, which reads a user's prompt file in the same format with every size
// bounded.
//
// Format: one prompt per line, UTF-8; lines starting with '#' and blank lines are skipped;
// a line's trailing carriage return is dropped, other whitespace kept (it changes the tokens).
// The package imports only windtunnel/backends/untrusted (Read refuses a FIFO before opening it).
package prompts
