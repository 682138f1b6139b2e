package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// markdownLink matches an inline link or image, `[text](target)` or `![alt](target)`, with
// an optional title; group 1 is the target.
var markdownLink = regexp.MustCompile(`!?\[[^\]\n]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// codeSpan matches an inline code span, whose brackets are not links.
var codeSpan = regexp.MustCompile("`[^`\n]*`")

// documents are the Markdown files whose links TestRelativeLinks checks: the README and every
// document under docs/.
func documents(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{filepath.Join("..", "README.md")}, docs...)
}

// unfenced is a Markdown text without its fenced code blocks.
func unfenced(text string) string {
	var b strings.Builder
	fenced := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// prose is a Markdown text without its fenced code blocks and inline code spans.
func prose(text string) string {
	return codeSpan.ReplaceAllString(unfenced(text), "")
}

// anchors are the heading anchors a Markdown viewer (GitHub's rule) gives a document: each
// heading lower-cased, every character but letters, digits, spaces, '-' and '_' dropped,
// spaces made '-', a repeated anchor numbered -1, -2, ….
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, l := range strings.Split(unfenced(text), "\n") {
		h := strings.TrimLeft(l, "#")
		if h == l || !strings.HasPrefix(h, " ") || len(l)-len(h) > 6 {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(h)) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out[a+"-"+strconv.Itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// TestRelativeLinks: every relative link and image in README.md and docs/*.md names a file
// that exists, and a link's #anchor a heading of the file it names, so that moving a section
// between the README and docs/ cannot leave a reference behind.
func TestRelativeLinks(t *testing.T) {
	checked := 0
	for _, doc := range documents(t) {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range markdownLink.FindAllStringSubmatch(prose(string(b)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			checked++
			file, anchor, _ := strings.Cut(target, "#")
			path := doc
			if file != "" {
				path = filepath.Join(filepath.Dir(doc), filepath.FromSlash(file))
			}
			body, err := os.ReadFile(path)
			if err != nil {
				if _, serr := os.Stat(path); serr == nil && anchor == "" {
					continue // a folder
				}
				t.Errorf("%s links to %s, which does not exist", doc, target)
				continue
			}
			if anchor != "" && !anchors(string(body))[anchor] {
				t.Errorf("%s links to %s: %s has no heading with anchor #%s", doc, target, path, anchor)
			}
		}
	}
	if checked == 0 {
		t.Error("no relative link found in README.md and docs/*.md")
	}
}

// TestAnchors checks the anchor rule on headings of the kinds the documents hold.
func TestAnchors(t *testing.T) {
	text := "# Title\n## The precision frontier (bijection V=20, 2 cores)\n### The report's verdicts\n" +
		"## Paper III on real language models (`llm`)\n## Title\n```\n# not a heading\n```\n#nospace\n"
	want := []string{"title", "the-precision-frontier-bijection-v20-2-cores", "the-reports-verdicts",
		"paper-iii-on-real-language-models-llm", "title-1"}
	got := anchors(text)
	for _, a := range want {
		if !got[a] {
			t.Errorf("no anchor %q in %v", a, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("anchors %v, want %v", got, want)
	}
}
