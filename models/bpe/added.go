package bpe

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// added is an added token, never split: one that is not normalized is matched in the raw
// text before anything else; a normalized one, whose content is then the normalizers' output,
// in each normalized stretch between those (Hugging Face's two passes).
type added struct {
	id                         int
	content                    string
	singleWord, lstrip, rstrip bool
	normalized, special        bool
}

// addedIndex finds added tokens in a text. It holds their indices ordered by content (ties
// in file order), so the tokens that share a prefix form one run of it; finding those that
// start a text narrows the run byte by byte, skipping a run's common prefix in one
// comparison: O(log n) per branching and O(1) per byte, whatever the number of tokens
// (a scan of every token at every position made 1M added tokens cost minutes).
type addedIndex struct {
	added   []added
	order   []int32      // indices into added, by content then file order
	special map[int]bool // id → special, for the first added token with that id
}

func newAddedIndex(list []added) addedIndex {
	x := addedIndex{added: list, order: make([]int32, len(list)), special: make(map[int]bool, len(list))}
	for i := range x.order {
		x.order[i] = int32(i)
	}
	slices.SortFunc(x.order, func(a, b int32) int {
		if c := strings.Compare(list[a].content, list[b].content); c != 0 {
			return c
		}
		return int(a - b)
	})
	for _, a := range list {
		if _, ok := x.special[a.id]; !ok {
			x.special[a.id] = a.special
		}
	}
	return x
}

func (x *addedIndex) content(j int) string { return x.added[x.order[j]].content }

// find returns the first added token (in file order) whose content is s.
func (x *addedIndex) find(s string) (added, bool) {
	j := sort.Search(len(x.order), func(j int) bool { return x.content(j) >= s })
	if j < len(x.order) && x.content(j) == s {
		return x.added[x.order[j]], true
	}
	return added{}, false
}

// prefixes appends to buf the indices (into added) of the tokens whose content s starts
// with, shortest first, tokens of one content in file order, and returns how far into s it
// compared.
func (x *addedIndex) prefixes(s string, buf []int32) ([]int32, int) {
	lo, hi, k := 0, len(x.order), 0 // every token in [lo, hi) starts with s[:k]
	for lo < hi {
		for lo < hi && len(x.content(lo)) == k {
			buf = append(buf, x.order[lo])
			lo++
		}
		if lo == hi || k == len(s) {
			break
		}
		c := s[k]
		lo += sort.Search(hi-lo, func(j int) bool { return x.content(lo + j)[k] >= c })
		hi = lo + sort.Search(hi-lo, func(j int) bool { return x.content(lo + j)[k] > c })
		if lo == hi {
			break
		}
		// The run's common prefix is that of its first and last tokens (they are sorted).
		first, last := x.content(lo), x.content(hi-1)
		l := k + 1
		for l < len(first) && l < len(last) && first[l] == last[l] {
			l++
		}
		if l > len(s) || s[k+1:l] != first[k+1:l] {
			break // every token of the run needs a byte s lacks
		}
		k = l
	}
	return buf, k
}

// segment is a stretch of text, or an added token (id ≥ 0).
type segment struct {
	text string
	id   int
}

// Bounds on the bytes splitAdded compares: at most addedWorkPerByte × the text's length +
// addedWorkSlack. Each position costs the length of the longest added token's prefix found
// there; a real file's added tokens (<|…|> specials, runs of spaces) cost a few bytes a
// position, but tokens sharing long prefixes with the text ("a…ab" for every length up to
// 1023, against a text of "a…ac") would cost 1000 a position.
const (
	addedWorkPerByte = 64
	addedWorkSlack   = 64 << 10
)

// split cuts text at its added tokens, leftmost-longest, honouring single_word, lstrip and
// rstrip.
func (x *addedIndex) split(text string) ([]segment, error) {
	if len(x.added) == 0 {
		return []segment{{text: text, id: -1}}, nil
	}
	var out []segment
	var buf []int32
	work, budget := 0, addedWorkPerByte*len(text)+addedWorkSlack
	start := 0
	for i := 0; i < len(text); {
		var a added
		var ok bool
		var n int
		a, ok, buf, n = x.at(text, i, buf)
		if work += n; work > budget {
			return nil, fmt.Errorf("bpe: added tokens: matching needs more than %d bytes of comparison for a text of %d bytes (the limit is %d× + %d)",
				budget, len(text), addedWorkPerByte, addedWorkSlack)
		}
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
	return out, nil
}

// at returns the longest added token matching text at byte i (the first in file order of
// that length) whose single_word allows it there, and the bytes compared; buf is scratch
// space, returned for reuse.
func (x *addedIndex) at(text string, i int, buf []int32) (added, bool, []int32, int) {
	buf, n := x.prefixes(text[i:], buf[:0])
	for end := len(buf); end > 0; {
		// buf is shortest first; take its longest tokens first, each length in file order.
		start := end - 1
		n := len(x.added[buf[start]].content)
		for start > 0 && len(x.added[buf[start-1]].content) == n {
			start--
		}
		for _, j := range buf[start:end] {
			a := x.added[j]
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
			return a, true, buf, n
		}
		end = start
	}
	return added{}, false, buf, n
}

func wordChar(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }
