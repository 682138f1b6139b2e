package prompts

import (
	"bufio"
	"bytes"
	"embed"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"windtunnel/backends/untrusted"
)

//go:embed sets/*.txt
var sets embed.FS

// Bounds on a prompt file.
const (
	// MaxPrompts is the most prompts a file may hold.
	MaxPrompts = 10000
	// MaxLine is the longest line in bytes.
	MaxLine = 16 << 10
	// MaxFile is the largest file in bytes.
	MaxFile = 16 << 20
)

// Mixed is the name of the mixed-domain set.
const Mixed = "mixed"

// Domains returns the names of the single-domain sets, sorted.
func Domains() []string {
	var out []string
	entries, _ := sets.ReadDir("sets")
	for _, e := range entries {
		if n := strings.TrimSuffix(e.Name(), ".txt"); n != Mixed {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// Set returns the prompts of the shipped set name (Mixed or one of Domains).
func Set(name string) ([]string, error) {
	b, err := sets.ReadFile("sets/" + name + ".txt")
	if err != nil {
		return nil, fmt.Errorf("prompts: no set %q (have %s and %s)", name, Mixed, strings.Join(Domains(), ", "))
	}
	return Parse(bytes.NewReader(b), name)
}

// Read reads the prompt file at path.
func Read(path string) ([]string, error) {
	f, size, err := untrusted.Open(path) // a FIFO refused, not waited on
	if err != nil {
		return nil, fmt.Errorf("prompts: %w", err)
	}
	defer f.Close()
	if size > MaxFile {
		return nil, fmt.Errorf("prompts: %s: %d bytes, over the limit of %d", path, size, MaxFile)
	}
	return Parse(io.LimitReader(f, MaxFile+1), path)
}

// Parse reads prompts in the package's format from r (named name in errors). A line over
// MaxLine bytes, invalid UTF-8, more than MaxPrompts prompts or none at all is an error.
func Parse(r io.Reader, name string) ([]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), MaxLine+2)
	var out []string
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(s) == "" || strings.HasPrefix(s, "#") {
			continue
		}
		if len(s) > MaxLine {
			return nil, fmt.Errorf("prompts: %s: line %d: %d bytes, over the limit of %d", name, line, len(s), MaxLine)
		}
		if !utf8.ValidString(s) {
			return nil, fmt.Errorf("prompts: %s: line %d is not valid UTF-8", name, line)
		}
		if len(out) == MaxPrompts {
			return nil, fmt.Errorf("prompts: %s: over %d prompts", name, MaxPrompts)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			return nil, fmt.Errorf("prompts: %s: line %d: over the limit of %d bytes", name, line+1, MaxLine)
		}
		return nil, fmt.Errorf("prompts: %s: %w", name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("prompts: %s: no prompts (one a line; '#' starts a comment)", name)
	}
	return out, nil
}
