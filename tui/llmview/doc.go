// Package llmview is the interactive prompt view of `windtunnel llm view`: the user types a
// SULA prompt or any other and sees the language model's next-token distribution, its
// posterior over the two SULA labels against the exact one, the prompt's place on the
// entropy axis (PC1 of reference prompts' hidden states) and the focusing by layer
// (attention entropy at the last position). It is a bubbletea v1 model fed through the
// Analyzer interface with plain data (sessions/llmrun's Analysis), so it imports neither
// models nor lab; it draws with tui/look,
// exactly the terminal's size (panes that do not fit are named, not scrolled), token strings
// cut by display width.
package llmview
