package bpe

import (
	"fmt"
	"regexp"
	"strings"
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
	return &splitter{re: re, ws: ws}, nil
}

// span is a byte range [lo, hi) of a string and whether a match produced it.
type span struct {
	lo, hi int
	match  bool
}

// spans cuts s into the pattern's matches and the text between them, in order, as a
// backtracking engine scanning left to right would find them.
func (sp *splitter) spans(s string) []span {
	var out []span
	pos := 0
	for pos < len(s) {
		m := sp.re.FindStringSubmatchIndex(s[pos:])
		if m == nil || m[1] == m[0] {
			if m != nil && m[0] == m[1] && pos+m[0] < len(s) {
				// An empty match: step over one character as a regex scan does.
				_, size := utf8.DecodeRuneInString(s[pos+m[0]:])
				if m[0] > 0 {
					out = append(out, span{pos, pos + m[0], false})
				}
				out = append(out, span{pos + m[0], pos + m[0] + size, false})
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
			out = append(out, span{pos, lo, false})
		}
		out = append(out, span{lo, hi, true})
		pos = hi
	}
	if pos < len(s) {
		out = append(out, span{pos, len(s), false})
	}
	return out
}
