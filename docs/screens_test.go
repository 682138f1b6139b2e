package docs

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// screenBlock is a screen docs/usage.md shows: a comment naming the golden it was taken
// from (a path from the repository's root, its size in its name: screenSize), then the
// screen fenced.
var (
	screenBlock = regexp.MustCompile("<!-- golden: (\\S+\\.golden) -->\n```text\n((?s:.*?))\n```")
	screenSize  = regexp.MustCompile(`(\d+)x(\d+)[^/]*$`)
)

// TestUsageScreens holds each screen docs/usage.md shows to the test golden it names (so a
// change to a view that updates its golden fails here until the doc is updated too), and
// each to its terminal's size: exactly its height in lines, each its width in cells.
func TestUsageScreens(t *testing.T) {
	b, err := os.ReadFile("usage.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := screenBlock.FindAllStringSubmatch(string(b), -1)
	if len(blocks) < 12 {
		t.Fatalf("usage.md shows %d screens from goldens, want 12: issue 53's items at two sizes (the TensorBoard export has no screen of ours)", len(blocks))
	}
	for _, m := range blocks {
		path, screen := m[1], m[2]
		sz := screenSize.FindStringSubmatch(path)
		if sz == nil {
			t.Errorf("%s: no size in its name", path)
			continue
		}
		w, _ := strconv.Atoi(sz[1])
		h, _ := strconv.Atoi(sz[2])
		g, err := os.ReadFile("../" + path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if strings.TrimRight(string(g), "\n") != screen {
			t.Errorf("usage.md's screen of %s is not its golden now: copy it again", path)
		}
		lines := strings.Split(screen, "\n")
		if len(lines) != h {
			t.Errorf("%s: %d lines, want %d", path, len(lines), h)
		}
		for i, l := range lines {
			if n := ansi.StringWidth(l); n != w {
				t.Errorf("%s: line %d is %d cells, want %d", path, i, n, w)
			}
		}
	}
}
