package bpe

import (
	"encoding/json"
	"fmt"
	"strings"
)

// gpt2Pattern is the regex of the ByteLevel pre-tokenizer with use_regex (GPT-2's).
const gpt2Pattern = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`

// preTokenizer cuts a piece of text into smaller pieces (and may rewrite them).
type preTokenizer interface {
	split(pieces []string) []string
}

// byteLevel is the ByteLevel pre-tokenizer: optionally GPT-2's regex split, then each
// piece's bytes mapped to GPT-2's printable characters.
type byteLevel struct {
	re         *splitter
	prefix     bool
	byteToChar *[256]rune
}

func (b byteLevel) split(pieces []string) []string {
	var out []string
	for _, p := range pieces {
		if b.prefix && !strings.HasPrefix(p, " ") {
			p = " " + p
		}
		parts := []string{p}
		if b.re != nil {
			parts = parts[:0]
			for _, s := range b.re.spans(p) {
				parts = append(parts, p[s.lo:s.hi])
			}
		}
		for _, q := range parts {
			var sb strings.Builder
			for i := 0; i < len(q); i++ {
				sb.WriteRune(b.byteToChar[q[i]])
			}
			out = append(out, sb.String())
		}
	}
	return out
}

// split is the Split pre-tokenizer with a regex, in one of its behaviours.
type split struct {
	re       *splitter
	behavior string
	invert   bool
}

func (s split) split(pieces []string) []string {
	var out []string
	for _, p := range pieces {
		sp := s.re.spans(p)
		if s.invert {
			for i := range sp {
				sp[i].match = !sp[i].match
			}
		}
		switch s.behavior {
		case "Isolated":
			for _, x := range sp {
				out = append(out, p[x.lo:x.hi])
			}
		case "Removed":
			for _, x := range sp {
				if !x.match {
					out = append(out, p[x.lo:x.hi])
				}
			}
		case "MergedWithPrevious":
			var cur string
			for _, x := range sp {
				cur += p[x.lo:x.hi]
				if x.match {
					out, cur = append(out, cur), ""
				}
			}
			if cur != "" {
				out = append(out, cur)
			}
		case "MergedWithNext":
			var cur string
			for _, x := range sp {
				if x.match && cur != "" {
					out, cur = append(out, cur), ""
				}
				cur += p[x.lo:x.hi]
			}
			if cur != "" {
				out = append(out, cur)
			}
		case "Contiguous":
			var cur string
			last := false
			for i, x := range sp {
				if i > 0 && x.match != last {
					out, cur = append(out, cur), ""
				}
				cur += p[x.lo:x.hi]
				last = x.match
			}
			if cur != "" {
				out = append(out, cur)
			}
		}
	}
	return out
}

// metaspace is the Metaspace pre-tokenizer without splitting: spaces become the
// replacement character, which is prepended to the first piece (scheme "first") or every
// piece ("always").
type metaspace struct {
	replacement string
	scheme      string
}

func (m metaspace) split(pieces []string) []string {
	out := make([]string, len(pieces))
	for i, p := range pieces {
		p = strings.ReplaceAll(p, " ", m.replacement)
		if (m.scheme == "always" || (m.scheme == "first" && i == 0)) && !strings.HasPrefix(p, m.replacement) {
			p = m.replacement + p
		}
		out[i] = p
	}
	return out
}

// sequence applies pre-tokenizers in turn.
type sequence []preTokenizer

func (q sequence) split(pieces []string) []string {
	for _, p := range q {
		pieces = p.split(pieces)
	}
	return pieces
}

// parsePre reads the pre_tokenizer; it notes whether the tokenizer is byte-level.
func (t *Tokenizer) parsePre(raw json.RawMessage) (preTokenizer, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return sequence(nil), nil
	}
	var ty typed
	if err := json.Unmarshal(raw, &ty); err != nil {
		return nil, fmt.Errorf("bpe: pre_tokenizer: %w", err)
	}
	switch ty.Type {
	case "ByteLevel":
		v := struct {
			AddPrefixSpace bool  `json:"add_prefix_space"`
			UseRegex       *bool `json:"use_regex"`
		}{}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("bpe: ByteLevel pre-tokenizer: %w", err)
		}
		b := byteLevel{prefix: v.AddPrefixSpace, byteToChar: &t.byteChar}
		if v.UseRegex == nil || *v.UseRegex {
			re, err := newSplitter(gpt2Pattern)
			if err != nil {
				return nil, err
			}
			b.re = re
		}
		t.byteLevel = true
		return b, nil
	case "Split":
		v := struct {
			Pattern struct {
				String *string `json:"String"`
				Regex  *string `json:"Regex"`
			} `json:"pattern"`
			Behavior string `json:"behavior"`
			Invert   bool   `json:"invert"`
		}{}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("bpe: Split pre-tokenizer: %w", err)
		}
		var pat string
		switch {
		case v.Pattern.Regex != nil:
			pat = *v.Pattern.Regex
		case v.Pattern.String != nil && *v.Pattern.String != "":
			pat = quoteMeta(*v.Pattern.String)
		default:
			return nil, fmt.Errorf("bpe: Split pre-tokenizer without a pattern")
		}
		switch v.Behavior {
		case "Isolated", "Removed", "MergedWithPrevious", "MergedWithNext", "Contiguous":
		default:
			return nil, fmt.Errorf("bpe: Split pre-tokenizer behavior %q is not supported", v.Behavior)
		}
		re, err := newSplitter(pat)
		if err != nil {
			return nil, err
		}
		return split{re: re, behavior: v.Behavior, invert: v.Invert}, nil
	case "Metaspace":
		v := struct {
			Replacement   string `json:"replacement"`
			PrependScheme string `json:"prepend_scheme"`
			AddPrefix     *bool  `json:"add_prefix_space"`
			Split         *bool  `json:"split"`
		}{}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("bpe: Metaspace pre-tokenizer: %w", err)
		}
		if v.Split != nil && *v.Split {
			return nil, fmt.Errorf("bpe: Metaspace pre-tokenizer with split is not supported")
		}
		if v.Replacement == "" {
			v.Replacement = "▁"
		}
		if v.PrependScheme == "" {
			v.PrependScheme = "always"
			if v.AddPrefix != nil && !*v.AddPrefix {
				v.PrependScheme = "never"
			}
		}
		return metaspace{replacement: v.Replacement, scheme: v.PrependScheme}, nil
	case "Sequence":
		var v struct {
			Pre []json.RawMessage `json:"pretokenizers"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("bpe: Sequence pre-tokenizer: %w", err)
		}
		if len(v.Pre) > 64 {
			return nil, fmt.Errorf("bpe: Sequence of %d pre-tokenizers, over the limit of 64", len(v.Pre))
		}
		var q sequence
		for _, r := range v.Pre {
			p, err := t.parsePre(r)
			if err != nil {
				return nil, err
			}
			q = append(q, p)
		}
		return q, nil
	}
	return nil, fmt.Errorf("bpe: pre_tokenizer %q is not supported", ty.Type)
}

// quoteMeta escapes a literal Split pattern for Translate.
func quoteMeta(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// parsePost reads the post_processor and returns the template for a single sequence: the
// ids to put before and after the text.
func (t *Tokenizer) parsePost(raw json.RawMessage) (template, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return template{}, nil
	}
	var ty typed
	if err := json.Unmarshal(raw, &ty); err != nil {
		return template{}, fmt.Errorf("bpe: post_processor: %w", err)
	}
	switch ty.Type {
	case "ByteLevel":
		return template{}, nil
	case "Sequence":
		var v struct {
			Processors []json.RawMessage `json:"processors"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return template{}, fmt.Errorf("bpe: Sequence post-processor: %w", err)
		}
		if len(v.Processors) > 64 {
			return template{}, fmt.Errorf("bpe: Sequence of %d post-processors, over the limit of 64", len(v.Processors))
		}
		var out template
		n := 0
		for _, r := range v.Processors {
			tp, err := t.parsePost(r)
			if err != nil {
				return template{}, err
			}
			if len(tp.before)+len(tp.after) > 0 {
				out = tp
				n++
			}
		}
		if n > 1 {
			return template{}, fmt.Errorf("bpe: more than one template post-processor")
		}
		return out, nil
	case "TemplateProcessing":
		var v struct {
			Single []struct {
				SpecialToken *struct {
					ID string `json:"id"`
				} `json:"SpecialToken"`
				Sequence *struct {
					ID string `json:"id"`
				} `json:"Sequence"`
			} `json:"single"`
			Special map[string]struct {
				IDs []int `json:"ids"`
			} `json:"special_tokens"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return template{}, fmt.Errorf("bpe: TemplateProcessing: %w", err)
		}
		var tp template
		seen := false
		for _, item := range v.Single {
			switch {
			case item.Sequence != nil:
				if seen {
					return template{}, fmt.Errorf("bpe: TemplateProcessing single with two sequences")
				}
				seen = true
			case item.SpecialToken != nil:
				sp, ok := v.Special[item.SpecialToken.ID]
				if !ok || len(sp.IDs) == 0 || len(sp.IDs) > 16 {
					return template{}, fmt.Errorf("bpe: TemplateProcessing: special token %q has no ids", item.SpecialToken.ID)
				}
				for _, id := range sp.IDs {
					if id < 0 || id >= len(t.tokens) {
						return template{}, fmt.Errorf("bpe: TemplateProcessing: special token %q has id %d outside the vocabulary", item.SpecialToken.ID, id)
					}
				}
				if seen {
					tp.after = append(tp.after, sp.IDs...)
				} else {
					tp.before = append(tp.before, sp.IDs...)
				}
			default:
				return template{}, fmt.Errorf("bpe: TemplateProcessing: an item of single is neither SpecialToken nor Sequence")
			}
		}
		if !seen {
			return template{}, fmt.Errorf("bpe: TemplateProcessing single without the sequence")
		}
		return tp, nil
	}
	return template{}, fmt.Errorf("bpe: post_processor %q is not supported", ty.Type)
}
