package bpe

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestAddedTokensTwoPasses (issue 53): added tokens are matched in Hugging Face's order — those
// that are not normalized in the raw text first (lstrip and rstrip there), then the normalized
// ones, their contents normalized, in each normalized stretch between — where one pass over the
// raw text matched them all at once.
func TestAddedTokensTwoPasses(t *testing.T) {
	bl := map[string]any{"type": "ByteLevel", "use_regex": false}
	nfc := map[string]any{"type": "NFC"}
	for _, c := range []struct {
		name       string
		added      []map[string]any
		normalizer any
		text       string
		want       []any // a token id, or a text spelt one byte-level token a byte
	}{
		// "b" (not normalized) is taken first, so the longer normalized "ab" is not there to match.
		{"not normalized first", []map[string]any{
			{"id": 256, "content": "ab", "normalized": true},
			{"id": 257, "content": "b", "special": true, "normalized": false}},
			nil, "ab", []any{"a", 257}},
		// A normalized token's content is normalized (e U+0301 x → éx) and found in the
		// normalized text; the text's é, composed or not, is matched.
		{"content normalized", []map[string]any{{"id": 256, "content": "e\u0301x", "normalized": true}},
			nfc, "éx", []any{256}},
		{"found after normalizing", []map[string]any{{"id": 256, "content": "é", "normalized": true}},
			nfc, "e\u0301!", []any{256, "!"}},
		// Prepend writes before each stretch, and the normalized token's content gets it too:
		// "x" is "▁x", not found in "▁ax".
		{"Prepend in the content", []map[string]any{{"id": 256, "content": "x", "normalized": true}},
			map[string]any{"type": "Prepend", "prepend": "▁"}, "ax", []any{"▁ax"}},
		// A not-normalized token's rstrip takes the raw space; the stretch after it is
		// normalized on its own (its own Prepend).
		{"rstrip in the raw pass", []map[string]any{{"id": 256, "content": "<s>", "special": true, "normalized": false, "rstrip": true}},
			map[string]any{"type": "Prepend", "prepend": "▁"}, "a<s> b", []any{"▁a", 256, "▁b"}},
		// A normalized token's lstrip reaches back only within its normalized stretch.
		{"lstrip in the normalized pass", []map[string]any{
			{"id": 256, "content": "|", "special": true, "normalized": false},
			{"id": 257, "content": "x", "normalized": true, "lstrip": true}},
			nil, "a |  x", []any{"a", " ", 256, 257}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tk, vocab := build(t, spec{added: c.added, normalizer: c.normalizer, pre: bl})
			got, err := tk.Encode(c.text, false)
			if err != nil {
				t.Fatal(err)
			}
			var want []int
			for _, w := range c.want {
				switch w := w.(type) {
				case int:
					want = append(want, w)
				case string:
					want = append(want, ids(t, vocab, chars(w))...)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("Encode(%q) = %v %q, want %v", c.text, got, tokensOf(tk, got), want)
			}
		})
	}
}

// TestNormalizedAddedBounded: normalizing the contents of the normalized added tokens is
// bounded like a text of their length: a chain that grows each content 64-fold is refused at
// load, naming the limit.
func TestNormalizedAddedBounded(t *testing.T) {
	var added []map[string]any
	for i := range 100 {
		added = append(added, map[string]any{"id": 256 + i, "content": fmt.Sprintf("t%d", i), "normalized": true})
	}
	b, _ := spec{added: added, normalizer: map[string]any{"type": "Sequence",
		"normalizers": repeated(MaxStages, map[string]any{"type": "Prepend", "prepend": strings.Repeat("y", MaxContentBytes)})}}.json(t)
	_, err := Parse(b)
	if err == nil || !strings.Contains(err.Error(), "bpe: normalized added tokens") {
		t.Errorf("error %v, want the normalized added tokens' limit", err)
	}
}
