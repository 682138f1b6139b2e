package llm

import (
	"errors"
	"fmt"

	"windtunnel/models/bpe"
)

// Encode tokenizes a prompt as the model reads it (with the tokenizer's special tokens when
// special). A prompt of more than MaxTokens tokens is an error wrapping bpe.ErrTooManyTokens,
// found while the tokenizer works: a long prompt costs no more than the tokens the model
// could take. A prompt of no tokens is returned as such, for the caller to refuse.
func (m *Model) Encode(prompt string, special bool) ([]int, error) {
	ids, err := m.Tokenizer.EncodeMax(prompt, special, m.MaxTokens())
	if errors.Is(err, bpe.ErrTooManyTokens) {
		return nil, fmt.Errorf("llm: the prompt is over %d tokens, the most the model takes: %w", m.MaxTokens(), bpe.ErrTooManyTokens)
	}
	if err != nil {
		return nil, fmt.Errorf("llm: %w", err)
	}
	return ids, nil
}
