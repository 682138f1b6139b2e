package bpe

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Style selects the layout of a synthesized tokenizer.json.
type Style int

// The layouts Synthesize writes.
const (
	// NeoX is GPT-NeoX's: NFC, ByteLevel with GPT-2's regex, <|endoftext|> added, nothing
	// added around a sequence.
	NeoX Style = iota
	// Llama3 is Llama-3's: Split with its regex then ByteLevel without, ignore_merges,
	// <|begin_of_text|> before every sequence.
	Llama3
)

// Synthesize returns a byte-level tokenizer.json with exactly vocab ids: the 256 bytes, the
// merges a byte-pair count over texts finds (each merging the most frequent adjacent pair
// seen at least twice, ties by the pair's text), unreachable filler tokens up to the size,
// and the style's special token last. It stands in for a real tokenizer where none can be
// fetched (the tests' and the timing folders' models) and gives English text a realistic
// number of tokens.
func Synthesize(texts []string, vocab int, style Style) ([]byte, error) {
	if vocab < 258 {
		return nil, fmt.Errorf("bpe: synthesize: vocabulary %d, want ≥ 258", vocab)
	}
	pattern := gpt2Pattern
	special := "<|endoftext|>"
	if style == Llama3 {
		pattern = llama3Split
		special = "<|begin_of_text|>"
	}
	sp, err := newSplitter(pattern)
	if err != nil {
		return nil, err
	}
	bc := byteChars()
	counts := map[string]int{}
	for _, t := range texts {
		spans, err := sp.spans(t)
		if err != nil {
			return nil, err
		}
		for _, s := range spans {
			var b strings.Builder
			for i := s.lo; i < s.hi; i++ {
				b.WriteRune(bc[t[i]])
			}
			counts[b.String()]++
		}
	}
	type word struct {
		syms []string
		n    int
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	words := make([]word, len(keys))
	for i, k := range keys {
		for _, r := range k {
			words[i].syms = append(words[i].syms, string(r))
		}
		words[i].n = counts[k]
	}
	v := map[string]int{}
	for b := range 256 {
		v[string(bc[b])] = b
	}
	var merges []string
	for len(v) < vocab-1 {
		pairs := map[[2]string]int{}
		for _, w := range words {
			for i := 0; i+1 < len(w.syms); i++ {
				pairs[[2]string{w.syms[i], w.syms[i+1]}] += w.n
			}
		}
		best, bestN := [2]string{}, 1
		for p, n := range pairs {
			if n > bestN || (n == bestN && n > 1 && p[0]+" "+p[1] < best[0]+" "+best[1]) {
				best, bestN = p, n
			}
		}
		if bestN < 2 {
			break
		}
		tok := best[0] + best[1]
		if _, ok := v[tok]; ok { // two pairs spell one token: merge, no new id
			merges = append(merges, best[0]+" "+best[1])
		} else {
			v[tok] = len(v)
			merges = append(merges, best[0]+" "+best[1])
		}
		for wi := range words {
			s := words[wi].syms
			out := s[:0]
			for i := 0; i < len(s); i++ {
				if i+1 < len(s) && s[i] == best[0] && s[i+1] == best[1] {
					out = append(out, tok)
					i++
					continue
				}
				out = append(out, s[i])
			}
			words[wi].syms = out
		}
	}
	for i := 0; len(v) < vocab-1; i++ {
		v[fmt.Sprintf("<filler_%d>", i)] = len(v)
	}
	specialID := vocab - 1
	v[special] = specialID
	f := map[string]any{
		"version": "1.0", "truncation": nil, "padding": nil, "decoder": map[string]any{"type": "ByteLevel"},
		"added_tokens": []any{map[string]any{"id": specialID, "content": special, "single_word": false, "lstrip": false,
			"rstrip": false, "normalized": false, "special": true}},
	}
	model := map[string]any{"type": "BPE", "dropout": nil, "unk_token": nil, "continuing_subword_prefix": nil,
		"end_of_word_suffix": nil, "fuse_unk": false, "byte_fallback": false, "vocab": v, "merges": merges}
	switch style {
	case NeoX:
		f["normalizer"] = map[string]any{"type": "NFC"}
		f["pre_tokenizer"] = map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}
		f["post_processor"] = map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}
	case Llama3:
		model["ignore_merges"] = true
		f["normalizer"] = nil
		f["pre_tokenizer"] = map[string]any{"type": "Sequence", "pretokenizers": []any{
			map[string]any{"type": "Split", "pattern": map[string]any{"Regex": llama3Split}, "behavior": "Isolated", "invert": false},
			map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false},
		}}
		f["post_processor"] = map[string]any{"type": "TemplateProcessing",
			"single":         []any{map[string]any{"SpecialToken": map[string]any{"id": special, "type_id": 0}}, map[string]any{"Sequence": map[string]any{"id": "A", "type_id": 0}}},
			"pair":           []any{},
			"special_tokens": map[string]any{special: map[string]any{"id": special, "ids": []int{specialID}, "tokens": []string{special}}}}
	}
	f["model"] = model
	return json.Marshal(f)
}

// llama3Split is the Split regex of Llama-3's tokenizer.json.
const llama3Split = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
