package bpe

import (
	"container/heap"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tokenizer is a parsed tokenizer.json. It is safe for concurrent use.
type Tokenizer struct {
	vocab        map[string]int
	tokens       []string // id → token string (vocabulary and added tokens)
	merges       map[uint64]merge
	unk          int
	byteFallback bool
	ignoreMerges bool
	byteLevel    bool
	byteChar     [256]rune
	charByte     map[rune]byte
	added        []added // longest content first
	normalizers  []normalizer
	pre          preTokenizer
	single       template
}

// merge is the rank of a pair and the id of the token it makes.
type merge struct{ rank, id int }

// added is an added token: matched in the raw text before anything else, never split.
type added struct {
	id                         int
	content                    string
	singleWord, lstrip, rstrip bool
	special                    bool
}

// template is what the post-processor puts around a single sequence's ids.
type template struct{ before, after []int }

func pairKey(a, b int) uint64 { return uint64(a)<<32 | uint64(uint32(b)) }

// sortAdded orders added tokens longest first, so the first match at a position is the longest.
func (t *Tokenizer) sortAdded() {
	slices.SortStableFunc(t.added, func(a, b added) int { return len(b.content) - len(a.content) })
}

// VocabSize returns one more than the largest token id (vocabulary and added tokens).
func (t *Tokenizer) VocabSize() int { return len(t.tokens) }

// ID returns the id of the token string s (a vocabulary entry in its byte-level form, or an
// added token's content).
func (t *Tokenizer) ID(s string) (int, bool) {
	if id, ok := t.vocab[s]; ok {
		return id, true
	}
	for _, a := range t.added {
		if a.content == s {
			return a.id, true
		}
	}
	return 0, false
}

// Token returns the token string of id as the vocabulary spells it ("" outside it).
func (t *Tokenizer) Token(id int) string {
	if id < 0 || id >= len(t.tokens) {
		return ""
	}
	return t.tokens[id]
}

// Special reports whether id is an added token marked special.
func (t *Tokenizer) Special(id int) bool {
	for _, a := range t.added {
		if a.id == id {
			return a.special
		}
	}
	return false
}

// Encode returns the token ids of text: added tokens first, then each stretch between them
// normalized, pre-tokenized and merged; with addSpecial, the post-processor's tokens around
// them (Llama-3's <|begin_of_text|> before). A character the vocabulary cannot spell (no
// byte fallback, no unknown token) is an error.
func (t *Tokenizer) Encode(text string, addSpecial bool) ([]int, error) {
	var ids []int
	if addSpecial {
		ids = append(ids, t.single.before...)
	}
	for _, seg := range t.splitAdded(text) {
		if seg.id >= 0 {
			ids = append(ids, seg.id)
			continue
		}
		s := seg.text
		for _, n := range t.normalizers {
			s = n(s)
		}
		if s == "" {
			continue
		}
		for _, p := range t.pre.split([]string{s}) {
			if p == "" {
				continue
			}
			var err error
			if ids, err = t.word(ids, p); err != nil {
				return nil, err
			}
		}
	}
	if addSpecial {
		ids = append(ids, t.single.after...)
	}
	return ids, nil
}

// segment is a stretch of text, or an added token (id ≥ 0).
type segment struct {
	text string
	id   int
}

// splitAdded cuts text at its added tokens, leftmost-longest, honouring single_word,
// lstrip and rstrip.
func (t *Tokenizer) splitAdded(text string) []segment {
	if len(t.added) == 0 {
		return []segment{{text: text, id: -1}}
	}
	var out []segment
	start := 0
	for i := 0; i < len(text); {
		a, ok := t.addedAt(text, i)
		if !ok {
			_, size := utf8.DecodeRuneInString(text[i:])
			i += size
			continue
		}
		lo, hi := i, i+len(a.content)
		if a.lstrip {
			for lo > start {
				r, size := utf8.DecodeLastRuneInString(text[start:lo])
				if !unicode.IsSpace(r) {
					break
				}
				lo -= size
			}
		}
		if a.rstrip {
			for hi < len(text) {
				r, size := utf8.DecodeRuneInString(text[hi:])
				if !unicode.IsSpace(r) {
					break
				}
				hi += size
			}
		}
		if lo > start {
			out = append(out, segment{text: text[start:lo], id: -1})
		}
		out = append(out, segment{id: a.id})
		start, i = hi, hi
	}
	if start < len(text) {
		out = append(out, segment{text: text[start:], id: -1})
	}
	return out
}

// addedAt returns the longest added token matching text at byte i.
func (t *Tokenizer) addedAt(text string, i int) (added, bool) {
	for _, a := range t.added {
		if !strings.HasPrefix(text[i:], a.content) {
			continue
		}
		if a.singleWord {
			if r, _ := utf8.DecodeLastRuneInString(text[:i]); i > 0 && wordChar(r) {
				continue
			}
			if j := i + len(a.content); j < len(text) {
				if r, _ := utf8.DecodeRuneInString(text[j:]); wordChar(r) {
					continue
				}
			}
		}
		return a, true
	}
	return added{}, false
}

func wordChar(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// word appends the ids of one pre-token p to ids.
func (t *Tokenizer) word(ids []int, p string) ([]int, error) {
	if t.ignoreMerges {
		if id, ok := t.vocab[p]; ok {
			return append(ids, id), nil
		}
	}
	syms := make([]symbol, 0, len(p))
	for _, r := range p {
		s := string(r)
		if id, ok := t.vocab[s]; ok {
			syms = append(syms, symbol{id: id})
			continue
		}
		switch {
		case t.byteFallback:
			for k := 0; k < len(s); k++ {
				id, ok := t.vocab[fmt.Sprintf("<0x%02X>", s[k])]
				if !ok {
					if t.unk < 0 {
						return nil, fmt.Errorf("bpe: byte %#02x of %q has no <0x%02X> token", s[k], s, s[k])
					}
					id = t.unk
				}
				syms = append(syms, symbol{id: id})
			}
		case t.unk >= 0:
			syms = append(syms, symbol{id: t.unk})
		default:
			return nil, fmt.Errorf("bpe: character %q is not in the vocabulary (no byte fallback, no unknown token)", r)
		}
	}
	for i := range syms {
		syms[i].prev, syms[i].next = i-1, i+1
	}
	syms[len(syms)-1].next = -1
	h := &pairHeap{}
	for i := 0; i+1 < len(syms); i++ {
		t.push(h, syms, i)
	}
	for h.Len() > 0 {
		c := heap.Pop(h).(candidate)
		l := &syms[c.pos]
		if l.gone || l.next < 0 || l.id != c.left || syms[l.next].id != c.right {
			continue // stale: a neighbour merged since
		}
		r := &syms[l.next]
		l.id = c.id
		r.gone = true
		l.next = r.next
		if r.next >= 0 {
			syms[r.next].prev = c.pos
		}
		if l.prev >= 0 {
			t.push(h, syms, l.prev)
		}
		t.push(h, syms, c.pos)
	}
	for i := 0; i >= 0; i = syms[i].next {
		ids = append(ids, syms[i].id)
	}
	return ids, nil
}

// push adds the pair starting at symbol i, if it merges.
func (t *Tokenizer) push(h *pairHeap, syms []symbol, i int) {
	j := syms[i].next
	if j < 0 {
		return
	}
	if m, ok := t.merges[pairKey(syms[i].id, syms[j].id)]; ok {
		heap.Push(h, candidate{rank: m.rank, pos: i, left: syms[i].id, right: syms[j].id, id: m.id})
	}
}

// symbol is a token in the word being merged, linked to its live neighbours.
type symbol struct {
	id, prev, next int
	gone           bool
}

// candidate is a mergeable pair: lowest rank first, then leftmost.
type candidate struct{ rank, pos, left, right, id int }

type pairHeap []candidate

func (h pairHeap) Len() int { return len(h) }
func (h pairHeap) Less(i, j int) bool {
	if h[i].rank != h[j].rank {
		return h[i].rank < h[j].rank
	}
	return h[i].pos < h[j].pos
}
func (h pairHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *pairHeap) Push(x any)   { *h = append(*h, x.(candidate)) }
func (h *pairHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Decode returns the text of ids: byte-level tokens mapped back to their bytes, byte
// fallback tokens <0xXX> to theirs, "▁" to a space; added tokens as their content; ids
// outside the vocabulary are skipped. Invalid UTF-8 (a character cut between tokens) is
// kept as bytes.
func (t *Tokenizer) Decode(ids []int) string {
	var b []byte
	for _, id := range ids {
		s := t.Token(id)
		if s == "" {
			continue
		}
		if _, isVocab := t.vocab[s]; !isVocab || t.vocab[s] != id {
			b = append(b, s...)
			continue
		}
		b = t.appendToken(b, s)
	}
	return string(b)
}

// DisplayToken is Decode of one id, for showing a token on its own.
func (t *Tokenizer) DisplayToken(id int) string { return t.Decode([]int{id}) }

func (t *Tokenizer) appendToken(b []byte, s string) []byte {
	if t.byteLevel {
		for _, r := range s {
			if c, ok := t.charByte[r]; ok {
				b = append(b, c)
			} else {
				b = utf8.AppendRune(b, r)
			}
		}
		return b
	}
	if len(s) == 6 && strings.HasPrefix(s, "<0x") && s[5] == '>' {
		var v byte
		if _, err := fmt.Sscanf(s, "<0x%02X>", &v); err == nil {
			return append(b, v)
		}
	}
	return append(b, strings.ReplaceAll(s, "▁", " ")...)
}
