package bpe

import (
	"container/heap"
	"errors"
	"fmt"
	"strings"
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
	added        addedIndex // every added token, for ID and Special
	addedRaw     addedIndex // the added tokens that are not normalized: matched in the raw text
	addedNorm    addedIndex // the normalized ones, their contents normalized: matched after
	normalizers  []normalizer
	pre          []preTokenizer // run in turn
	single       template
	longest      int // bytes of the longest vocabulary entry: the most of a piece one token spells
}

// merge is the rank of a pair and the id of the token it makes.
type merge struct{ rank, id int }

// template is what the post-processor puts around a single sequence's ids.
type template struct{ before, after []int }

func pairKey(a, b int) uint64 { return uint64(a)<<32 | uint64(uint32(b)) }

// VocabSize returns one more than the largest token id (vocabulary and added tokens).
func (t *Tokenizer) VocabSize() int { return len(t.tokens) }

// ID returns the id of the token string s (a vocabulary entry in its byte-level form, or an
// added token's content).
func (t *Tokenizer) ID(s string) (int, bool) {
	if id, ok := t.vocab[s]; ok {
		return id, true
	}
	if a, ok := t.added.find(s); ok {
		return a.id, true
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
func (t *Tokenizer) Special(id int) bool { return t.added.special[id] }

// ErrTooManyTokens is the error (wrapped) of EncodeMax for a text over its token limit.
var ErrTooManyTokens = errors.New("too many tokens")

// Encode returns the token ids of text: the added tokens that are not normalized first, then
// each stretch between them normalized, cut at the normalized added tokens, pre-tokenized and
// merged (Hugging Face's order: a normalized token is matched in the normalized text, and
// never across one that is not); with addSpecial, the post-processor's tokens around them
// (Llama-3's <|begin_of_text|> before). A character the vocabulary cannot spell (no
// byte fallback, no unknown token) is an error, and so is a text the tokenizer's stages
// would grow past MaxGrowth times its length.
func (t *Tokenizer) Encode(text string, addSpecial bool) ([]int, error) {
	return t.EncodeMax(text, addSpecial, 0)
}

// EncodeMax is Encode stopping as soon as the ids number more than max (0: no limit), with
// an error wrapping ErrTooManyTokens: a model's callers give its context length, so a long
// prompt costs no more than the tokens the model could take.
func (t *Tokenizer) EncodeMax(text string, addSpecial bool, max int) ([]int, error) {
	e := encoder{t: t, max: max, limit: MaxGrowth*len(text) + GrowthSlack, seen: make([]int, len(t.pre))}
	if addSpecial {
		if err := e.add(t.single.before...); err != nil {
			return nil, err
		}
	}
	segs, err := t.addedRaw.split(text)
	if err != nil {
		return nil, err
	}
	for _, seg := range segs {
		if seg.id >= 0 {
			if err := e.add(seg.id); err != nil {
				return nil, err
			}
			continue
		}
		s, err := e.normalize(seg.text)
		if err != nil {
			return nil, err
		}
		inner, err := t.addedNorm.split(s)
		if err != nil {
			return nil, err
		}
		for _, in := range inner {
			if in.id >= 0 {
				if err := e.add(in.id); err != nil {
					return nil, err
				}
				continue
			}
			if in.text == "" {
				continue
			}
			clear(e.seen)
			if err := e.pre(0, in.text); err != nil {
				return nil, err
			}
		}
	}
	if addSpecial {
		if err := e.add(t.single.after...); err != nil {
			return nil, err
		}
	}
	return e.ids, nil
}

// encoder is the state of one EncodeMax.
type encoder struct {
	t     *Tokenizer
	ids   []int
	max   int   // token limit (0: none)
	limit int   // bytes the stages may write in all
	wrote int   // bytes they have written
	seen  []int // pieces each pre-tokenizer stage has been given in this stretch
}

// normalize runs s through the tokenizer's normalizers, counting what they write.
func (e *encoder) normalize(s string) (string, error) {
	for _, n := range e.t.normalizers {
		size := n.size(s)
		if size == sameText {
			continue
		}
		if size == sizeAfter {
			// Room for the most it can write, counting only what it wrote.
			if err := e.room(n.name, n.ratio*len(s)); err != nil {
				return "", err
			}
			s = n.apply(s)
			e.wrote += len(s)
			continue
		}
		if err := e.grow(n.name, size); err != nil {
			return "", err
		}
		s = n.apply(s)
	}
	return s, nil
}

// grow counts n bytes stage is about to write against the budget.
func (e *encoder) grow(stage string, n int) error {
	if err := e.room(stage, n); err != nil {
		return err
	}
	e.wrote += n
	return nil
}

// room checks that stage may write n more bytes.
func (e *encoder) room(stage string, n int) error {
	if e.wrote+n > e.limit {
		return fmt.Errorf("bpe: %s: the text would grow past %d bytes, over the limit of %d× its length + %d",
			stage, e.limit, MaxGrowth, GrowthSlack)
	}
	return nil
}

// add appends ids, checking the token limit.
func (e *encoder) add(ids ...int) error {
	e.ids = append(e.ids, ids...)
	return e.check()
}

func (e *encoder) check() error {
	if e.max > 0 && len(e.ids) > e.max {
		return e.tooMany()
	}
	return nil
}

func (e *encoder) tooMany() error {
	return fmt.Errorf("bpe: the text makes more than %d tokens: %w", e.max, ErrTooManyTokens)
}

// pre runs piece p through pre-tokenizer stages k… and the model.
func (e *encoder) pre(k int, p string) error {
	if k == len(e.t.pre) {
		if p == "" {
			return nil
		}
		if e.max > 0 && len(p) > (e.max-len(e.ids))*e.t.longest {
			// More tokens than the limit allows, whatever the merges: refused before the
			// merge work, whose memory is some 70 bytes per byte of the piece.
			return e.tooMany()
		}
		var err error
		if e.ids, err = e.t.word(e.ids, p); err != nil {
			return err
		}
		return e.check()
	}
	st := e.t.pre[k]
	i := e.seen[k]
	e.seen[k]++
	if n := st.size(p, i); n > 0 {
		if err := e.grow(st.name(), n); err != nil {
			return err
		}
	}
	return st.split(p, i, func(q string) error { return e.pre(k+1, q) })
}

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
