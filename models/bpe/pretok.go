package bpe

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// gpt2Pattern is the regex of the ByteLevel pre-tokenizer with use_regex (GPT-2's).
const gpt2Pattern = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`

// preTokenizer is one stage of pre-tokenization: it cuts a piece of text into smaller
// pieces, and may rewrite them. Encode runs the stages depth first, so a piece goes on to
// the next stage (and at the last to the model) as soon as it is cut, and the token limit
// stops the work where it is reached.
type preTokenizer interface {
	// name is the stage as errors name it.
	name() string
	// size returns the bytes the stage writes for piece p (0 for one that only cuts): the
	// encoder counts them against its budget before split writes them.
	size(p string, i int) int
	// split passes p's pieces, in order, to emit, stopping at emit's first error; i counts
	// the pieces the stage was given before p in this stretch of text.
	split(p string, i int, emit func(string) error) error
}

// byteLevel is the ByteLevel pre-tokenizer: optionally GPT-2's regex split, then each
// piece's bytes mapped to GPT-2's printable characters (each byte to at most 2).
type byteLevel struct {
	re         *splitter
	prefix     bool
	byteToChar *[256]rune
}

func (byteLevel) name() string { return "ByteLevel pre-tokenizer" }

func (b byteLevel) size(p string, _ int) int {
	n := 0
	if b.prefix && !strings.HasPrefix(p, " ") {
		n = len(p) + 1 + utf8.RuneLen(b.byteToChar[' '])
	}
	for i := 0; i < len(p); i++ {
		n += utf8.RuneLen(b.byteToChar[p[i]])
	}
	return n
}

func (b byteLevel) split(p string, _ int, emit func(string) error) error {
	if b.prefix && !strings.HasPrefix(p, " ") {
		p = " " + p
	}
	if b.re == nil {
		return emit(b.mapBytes(p))
	}
	return b.re.each(p, func(s span) error { return emit(b.mapBytes(p[s.lo:s.hi])) })
}

func (b byteLevel) mapBytes(q string) string {
	var sb strings.Builder
	sb.Grow(2 * len(q))
	for i := 0; i < len(q); i++ {
		sb.WriteRune(b.byteToChar[q[i]])
	}
	return sb.String()
}

// split is the Split pre-tokenizer with a regex, in one of its behaviours. Its pieces are
// slices of the piece it is given: it writes nothing, and each behaviour is one pass.
type split struct {
	re       *splitter
	behavior string
	invert   bool
}

func (split) name() string         { return "Split pre-tokenizer" }
func (split) size(string, int) int { return 0 }

func (s split) split(p string, _ int, emit func(string) error) error {
	start := 0 // where the piece being gathered begins
	first := true
	last := false
	err := s.re.each(p, func(x span) error {
		if s.invert {
			x.match = !x.match
		}
		defer func() { first, last = false, x.match }()
		switch s.behavior {
		case "Isolated":
			return emit(p[x.lo:x.hi])
		case "Removed":
			if !x.match {
				return emit(p[x.lo:x.hi])
			}
		case "MergedWithPrevious":
			if x.match {
				q := p[start:x.hi]
				start = x.hi
				return emit(q)
			}
		case "MergedWithNext":
			if x.match && x.lo > start {
				q := p[start:x.lo]
				start = x.lo
				return emit(q)
			}
		case "Contiguous":
			if !first && x.match != last {
				q := p[start:x.lo]
				start = x.lo
				return emit(q)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	switch s.behavior {
	case "MergedWithPrevious", "MergedWithNext", "Contiguous":
		if start < len(p) {
			return emit(p[start:])
		}
	}
	return nil
}

// metaspace is the Metaspace pre-tokenizer without splitting: spaces become the
// replacement, which is prepended to the first piece (scheme "first") or every piece
// ("always").
type metaspace struct {
	replacement string
	scheme      string
}

func (metaspace) name() string { return "Metaspace pre-tokenizer" }

func (m metaspace) size(p string, i int) int {
	n := strings.Count(p, " ")
	grow := n * (len(m.replacement) - 1)
	if m.scheme == "always" || (m.scheme == "first" && i == 0) {
		grow += len(m.replacement) // at most: prepended unless the piece starts with it
	}
	if n == 0 && grow == 0 {
		return 0
	}
	return len(p) + grow
}

func (m metaspace) split(p string, i int, emit func(string) error) error {
	p = strings.ReplaceAll(p, " ", m.replacement)
	if (m.scheme == "always" || (m.scheme == "first" && i == 0)) && !strings.HasPrefix(p, m.replacement) {
		p = m.replacement + p
	}
	return emit(p)
}

// parsePre reads the pre_tokenizer as its stages (a Sequence flattened, at most MaxStages);
// it notes whether the tokenizer is byte-level.
func (t *Tokenizer) parsePre(raw json.RawMessage) ([]preTokenizer, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
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
		return []preTokenizer{b}, nil
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
		return []preTokenizer{split{re: re, behavior: v.Behavior, invert: v.Invert}}, nil
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
		if err := checkContent("Metaspace pre-tokenizer", "replacement", v.Replacement); err != nil {
			return nil, err
		}
		if v.PrependScheme == "" {
			v.PrependScheme = "always"
			if v.AddPrefix != nil && !*v.AddPrefix {
				v.PrependScheme = "never"
			}
		}
		return []preTokenizer{metaspace{replacement: v.Replacement, scheme: v.PrependScheme}}, nil
	case "Sequence":
		var v struct {
			Pre []json.RawMessage `json:"pretokenizers"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("bpe: Sequence pre-tokenizer: %w", err)
		}
		var q []preTokenizer
		for _, r := range v.Pre {
			p, err := t.parsePre(r)
			if err != nil {
				return nil, err
			}
			if q = append(q, p...); len(q) > MaxStages {
				return nil, fmt.Errorf("bpe: pre_tokenizer: more than %d pre-tokenizers (Sequences counted through)", MaxStages)
			}
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
				if len(tp.before)+len(tp.after) > MaxTemplateIDs {
					return template{}, fmt.Errorf("bpe: TemplateProcessing: single adds more than %d ids", MaxTemplateIDs)
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
