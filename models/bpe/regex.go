package bpe

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The look-ahead alternative GPT-2's and Llama-3's patterns carry: a run of whitespace not
// followed by a non-space (so a space before a word is left to the word).
const lookahead = `\s+(?!\S)`

// Oniguruma's \s (Unicode White_Space): \t..\r, U+0085 and the separators (\p{Z}).
const spaceClass = `\t-\r\x{85}\p{Z}`

// splitter finds the pieces a Split or ByteLevel pre-tokenizer isolates.
type splitter struct {
	re *regexp.Regexp
	// ws is the index of the capture group standing for `\s+(?!\S)`, or 0 when the
	// pattern has none.
	ws int
	// window is the first window each searches in (0: firstWindow); tests set it small.
	window int
	// pattern is the pattern as the file gives it, for errors.
	pattern string
}

// Translate rewrites an Oniguruma pattern of a tokenizer.json for Go's RE2 and returns it
// with the index of the capture group that stands for `\s+(?!\S)` (0 when the pattern has no
// such look-ahead). \s, \d and \w become their Unicode classes; anchors, word boundaries,
// other look-arounds, backreferences and \S inside a class are refused.
func Translate(pattern string) (string, int, error) {
	var b strings.Builder
	ws := 0
	groups := 0
	inClass := false
	for i := 0; i < len(pattern); {
		if !inClass && strings.HasPrefix(pattern[i:], lookahead) {
			if ws != 0 {
				return "", 0, fmt.Errorf("bpe: pattern %q: %s twice", pattern, lookahead)
			}
			groups++
			ws = groups
			b.WriteString(`([` + spaceClass + `]+)`)
			i += len(lookahead)
			continue
		}
		c := pattern[i]
		switch {
		case c == '\\':
			if i+1 >= len(pattern) {
				return "", 0, fmt.Errorf("bpe: pattern %q ends in a backslash", pattern)
			}
			e := pattern[i+1]
			switch e {
			case 's':
				if inClass {
					b.WriteString(spaceClass)
				} else {
					b.WriteString(`[` + spaceClass + `]`)
				}
			case 'S':
				if inClass {
					return "", 0, fmt.Errorf("bpe: pattern %q: \\S inside a class is not supported", pattern)
				}
				b.WriteString(`[^` + spaceClass + `]`)
			case 'd':
				b.WriteString(`\p{Nd}`)
			case 'w':
				if inClass {
					b.WriteString(`\p{L}\p{M}\p{N}\p{Pc}`)
				} else {
					b.WriteString(`[\p{L}\p{M}\p{N}\p{Pc}]`)
				}
			case 'b', 'B', 'A', 'z', 'Z', 'G', 'D', 'W', 'k', 'g', 'K', 'R', 'X':
				return "", 0, fmt.Errorf("bpe: pattern %q: \\%c is not supported", pattern, e)
			default:
				if e >= '1' && e <= '9' {
					return "", 0, fmt.Errorf("bpe: pattern %q: backreference \\%c is not supported", pattern, e)
				}
				b.WriteString(pattern[i : i+2])
			}
			i += 2
			continue
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
			b.WriteByte(c)
			i++
			// A ']' or '^]' right after '[' is literal.
			if strings.HasPrefix(pattern[i:], "^") {
				b.WriteByte('^')
				i++
			}
			if strings.HasPrefix(pattern[i:], "]") {
				b.WriteByte(']')
				i++
			}
			continue
		case c == '^' || c == '$':
			return "", 0, fmt.Errorf("bpe: pattern %q: anchor %c is not supported", pattern, c)
		case c == '(':
			if strings.HasPrefix(pattern[i:], "(?=") || strings.HasPrefix(pattern[i:], "(?!") ||
				strings.HasPrefix(pattern[i:], "(?<=") || strings.HasPrefix(pattern[i:], "(?<!") ||
				strings.HasPrefix(pattern[i:], "(?>") {
				return "", 0, fmt.Errorf("bpe: pattern %q: look-around or atomic group at byte %d is not supported", pattern, i)
			}
			if !strings.HasPrefix(pattern[i:], "(?") {
				groups++
			} else if strings.HasPrefix(pattern[i:], "(?P<") || strings.HasPrefix(pattern[i:], "(?<") {
				groups++
			}
		}
		_, size := utf8.DecodeRuneInString(pattern[i:])
		b.WriteString(pattern[i : i+size])
		i += size
	}
	if inClass {
		return "", 0, fmt.Errorf("bpe: pattern %q: unterminated class", pattern)
	}
	return b.String(), ws, nil
}

// newSplitter compiles an Oniguruma pattern through Translate.
func newSplitter(pattern string) (*splitter, error) {
	t, ws, err := Translate(pattern)
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile(t)
	if err != nil {
		return nil, fmt.Errorf("bpe: pattern %q (as %q for RE2): %w", pattern, t, err)
	}
	return &splitter{re: re, ws: ws, pattern: pattern}, nil
}

// span is a byte range [lo, hi) of a string and whether a match produced it.
type span struct {
	lo, hi int
	match  bool
}

// firstWindow is the text a pattern first sees from the current position, and
// windowMargin how far before the window's end a match must end to be taken (see each).
const (
	firstWindow  = 64
	windowMargin = 16
)

// Bounds on the matching of one piece (see each): the bytes handed to the regex engine
// total at most splitWorkPerByte × the piece's length + splitWorkSlack.
const (
	splitWorkPerByte = 128
	splitWorkSlack   = 64 << 10
)

// spans cuts s into the pattern's matches and the text between them (see each).
func (sp *splitter) spans(s string) ([]span, error) {
	var out []span
	err := sp.each(s, func(x span) error { out = append(out, x); return nil })
	return out, err
}

// each passes f, in order, the pattern's matches in s and the text between them (non-empty
// spans covering s), as a backtracking engine scanning left to right would find them, and
// stops at f's first error.
//
// Each match is sought in a window of the text from the current position: 64 bytes, doubled
// while the match found ends within 16 bytes of the window's end (it might go on, if only by
// a contraction's 'll) or none is found, up to the whole rest; a window never ends inside a
// character or inside a run of white space. So a match costs time in its own length, not in
// the rest of the text: without the window a pattern such as `.*b|a` rescans the rest at
// every match, quadratic in the text (40 000 bytes took 81 s).
//
// The price: a preferred alternative that must look further than the window to match at all
// (`.*b` with the b further on) is not seen, and the next one (`a`) matches instead. GPT-2's,
// Llama-3's and Qwen2's patterns never need that: a prefix of one of their matches, short of
// a bounded tail, is itself a match, so a cut match ends near the window's end and is sought
// again, and `\s*[\r\n]+` sees its whole run of white space (TestWindowedSplitIsExact checks
// them against matching in the whole text). GPT-4o's pattern does: its `[\p{Lu}…]*[\p{Ll}…]+`
// cuts an upper-case run longer than a window before lower case differently. A pattern that
// makes the windows grow anyway (` *b| ` on a run of spaces) is stopped with an error once
// the bytes handed to the engine pass splitWorkPerByte × the piece + splitWorkSlack.
func (sp *splitter) each(s string, f func(span) error) error {
	window := sp.window
	if window <= 0 {
		window = firstWindow
	}
	work, budget := 0, splitWorkPerByte*len(s)+splitWorkSlack
	pos := 0
	for pos < len(s) {
		var m []int
		for w := window; ; w *= 2 {
			end := sp.windowEnd(s, min(len(s), pos+w))
			if work += end - pos; work > budget {
				return fmt.Errorf("bpe: pattern %q needs more than %d bytes of matching for a piece of %d bytes (the limit is %d× + %d)",
					sp.pattern, budget, len(s), splitWorkPerByte, splitWorkSlack)
			}
			m = sp.re.FindStringSubmatchIndex(s[pos:end])
			if end == len(s) || (m != nil && pos+m[1]+windowMargin <= end) {
				break
			}
		}
		if m == nil || m[1] == m[0] {
			if m != nil && m[0] == m[1] && pos+m[0] < len(s) {
				// An empty match: step over one character as a regex scan does.
				_, size := utf8.DecodeRuneInString(s[pos+m[0]:])
				if m[0] > 0 {
					if err := f(span{pos, pos + m[0], false}); err != nil {
						return err
					}
				}
				if err := f(span{pos + m[0], pos + m[0] + size, false}); err != nil {
					return err
				}
				pos += m[0] + size
				continue
			}
			break
		}
		lo, hi := pos+m[0], pos+m[1]
		if sp.ws > 0 && m[2*sp.ws] >= 0 && hi < len(s) {
			// `\s+(?!\S)` before a non-space backtracks by one character; a single
			// space falls through to the plain `\s+` alternative and stays.
			_, last := utf8.DecodeLastRuneInString(s[lo:hi])
			if hi-last > lo {
				hi -= last
			}
		}
		if lo > pos {
			if err := f(span{pos, lo, false}); err != nil {
				return err
			}
		}
		if err := f(span{lo, hi, true}); err != nil {
			return err
		}
		pos = hi
	}
	if pos < len(s) {
		return f(span{pos, len(s), false})
	}
	return nil
}

// windowEnd moves a window's end off the middle of a character (a valid one: stray
// continuation bytes are characters of their own to the engine) and then past a run of
// white space it would cut.
func (sp *splitter) windowEnd(s string, end int) int {
	for i := 1; i < utf8.UTFMax && end < len(s) && !utf8.RuneStart(s[end]); i++ {
		end++
	}
	if end == len(s) {
		return end
	}
	if r, _ := utf8.DecodeLastRuneInString(s[:end]); !unicode.IsSpace(r) {
		return end
	}
	for end < len(s) {
		r, size := utf8.DecodeRuneInString(s[end:])
		if !unicode.IsSpace(r) {
			break
		}
		end += size
	}
	return end
}
