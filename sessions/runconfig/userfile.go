package runconfig

import (
	"fmt"
	"io"

	"windtunnel/backends/untrusted"
)

// MaxDepth bounds how deep a file someone else wrote may nest (TOMLDepth): a run's
// configuration nests two or three levels, a sweep file five.
const MaxDepth = 32

// ReadUserFile reads a small file a user names (a configuration, a sweep file, a sweep's
// manifest): refused without blocking unless it is a regular file (a FIFO would wait for a
// writer forever), and refused when it is larger than limit bytes. Errors name the path.
func ReadUserFile(path string, limit int) ([]byte, error) {
	f, _, err := untrusted.Open(path) // an *fs.PathError, or "PATH is a FIFO, not a regular file"
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(b) > limit {
		return nil, fmt.Errorf("%s: larger than %d KiB", path, limit>>10)
	}
	return b, nil
}

// TOMLDepth is an upper bound on how deep a TOML text nests its values, from its text
// alone, for a bound checked before the parser (which has none, and whose cost grows with
// the square of a dotted key's length) reads it. It counts each open array and inline table
// one level, and each part of a table header ([a.b], [[a.b]]) and each dot of a key (a.b.c =)
// two, as an array of tables may stand at each; strings (basic and literal, single- and
// multi-line, a multi-line one closing with up to two quotes of its own before its
// delimiter) and comments are skipped as TOML reads them.
func TOMLDepth(b []byte) int {
	var stack []byte // open '[' (arrays) and '{' (inline tables)
	dots := []int{0} // the dots of the key being read: the table's, then each frame's
	keyPos := []bool{true}
	header := 0 // levels the current table header opened
	inHeader := false
	lineStart := true
	deepest := 0
	dotSum := 0 // the sum of dots
	depth := func() int { return header + len(stack) + 2*dotSum }
	top := func() int { return len(stack) }
	resetKey := func() { dotSum -= dots[top()]; dots[top()], keyPos[top()] = 0, true }
	for i := 0; i < len(b); i++ {
		c := b[i]
		if lineStart && c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			lineStart = false
			if len(stack) == 0 {
				resetKey()
				if c == '[' { // a table header: [a.b] or [[a.b]]
					inHeader, header = true, 2
					if i+1 < len(b) && b[i+1] == '[' {
						i++
					}
					deepest = max(deepest, depth())
					continue
				}
			}
		}
		switch c {
		case '\n':
			lineStart = true
			if inHeader { // an unterminated header: the parser refuses it
				inHeader = false
			}
		case '#':
			for i+1 < len(b) && b[i+1] != '\n' {
				i++
			}
		case '"', '\'':
			i = skipString(b, i)
		case '.':
			switch {
			case inHeader:
				header += 2
			case keyPos[top()]:
				dots[top()]++
				dotSum++
			}
		case '=':
			keyPos[top()] = false
		case ']':
			if inHeader {
				inHeader = false
				if i+1 < len(b) && b[i+1] == ']' {
					i++
				}
				continue
			}
			fallthrough
		case '}':
			if len(stack) > 0 {
				dotSum -= dots[top()]
				stack = stack[:len(stack)-1]
				dots, keyPos = dots[:len(dots)-1], keyPos[:len(keyPos)-1]
			}
		case '[', '{':
			stack = append(stack, c)
			dots, keyPos = append(dots, 0), append(keyPos, c == '{')
		case ',':
			if len(stack) > 0 && stack[len(stack)-1] == '{' {
				resetKey()
			}
		}
		deepest = max(deepest, depth())
	}
	return deepest
}

// skipString returns the index of the last byte of the string that opens at b[i] (a quote):
// basic ("…", escapes skipped) or literal ('…'), each ending at its quote or, unterminated,
// before the end of its line; or multi-line ("""…""" or ”'…”'), ending at its delimiter
// and up to two more quotes, or at the end of the text.
func skipString(b []byte, i int) int {
	q := b[i]
	if i+2 < len(b) && b[i+1] == q && b[i+2] == q {
		for j := i + 3; j < len(b); j++ {
			switch {
			case q == '"' && b[j] == '\\':
				j++
			case b[j] == q && j+2 < len(b) && b[j+1] == q && b[j+2] == q:
				end := j + 2
				for k := 0; k < 2 && end+1 < len(b) && b[end+1] == q; k++ {
					end++
				}
				return end
			}
		}
		return len(b) - 1
	}
	for j := i + 1; j < len(b); j++ {
		switch {
		case q == '"' && b[j] == '\\':
			if j+1 < len(b) && b[j+1] == '\n' {
				return j // a line break ends a single-line string, escaped or not
			}
			j++
		case b[j] == q:
			return j
		case b[j] == '\n':
			return j - 1
		}
	}
	return len(b) - 1
}
