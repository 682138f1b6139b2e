package runconfig

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

// nesting is how deep a decoded TOML value nests: 1 + its deepest child for a table or an
// array, 0 for a value.
func nesting(v any) int {
	d := 0
	switch x := v.(type) {
	case map[string]any:
		for _, c := range x {
			d = max(d, nesting(c))
		}
	case []any:
		for _, c := range x {
			d = max(d, nesting(c))
		}
	case []map[string]any:
		for _, c := range x {
			d = max(d, nesting(c))
		}
	default:
		return 0
	}
	return d + 1
}

// checkBound fails when the TOML parser reads text as nesting deeper than TOMLDepth says.
func checkBound(t *testing.T, text string) {
	t.Helper()
	var m map[string]any
	if _, err := toml.Decode(text, &m); err != nil {
		return
	}
	if got, bound := nesting(m)-1, TOMLDepth([]byte(text)); got > bound {
		t.Errorf("the parser nests %q %d deep, TOMLDepth says at most %d", text, got, bound)
	}
}

// TestTOMLDepth: the bound on hand-made texts, among them the ways around the old guard
// (issue 44 item 8): quotes a multi-line string closes with, dotted keys and table headers.
func TestTOMLDepth(t *testing.T) {
	deep := strings.Repeat("[", 40) + strings.Repeat("]", 40)
	dotted := strings.Repeat("a.", 40) + "a"
	for _, c := range []struct {
		text string
		want int // the bound; -1: at least MaxDepth+1
	}{
		{"steps = 3\n", 0},
		{"a = [1, [2]]\n", 2},
		{"a = {b = {c = 1}}\n", 2},
		{"a = {b.c = 1}\n", 3},
		{"[transformer]\nwidth = 64\n", 2},
		{"[a.b]\nx = [1]\n", 5},
		{"[[a]]\nx = 1\n", 2},
		{"a.b.c = 1\n", 4},
		{"lr = 1.5e-3\nx = 2.5\n", 0},
		{"a = '''[[[[[['''\n# [[[[[\nb = \"]]]\"\n", 0},
		{"a = \"\"\"x\"\"\"\"\nb = " + deep + "\nc = \"\n", -1},
		{"a = '''x'''''\nb = " + deep + "\nc = '\n", -1},
		{"a = \"x\\\"\nb = " + deep + "\n", -1},
		{dotted + " = 1\n", -1},
		{"[" + dotted + "]\n", -1},
		{"x = {" + dotted + " = 1}\n", -1},
	} {
		got := TOMLDepth([]byte(c.text))
		if c.want >= 0 && got != c.want || c.want < 0 && got <= MaxDepth {
			t.Errorf("TOMLDepth(%.60q) = %d, want %d", c.text, got, c.want)
		}
		checkBound(t, c.text)
	}
}

// tomlGen writes random TOML: table headers, keys (bare, quoted, dotted) and values
// (numbers, strings of each kind holding brackets, quotes and #, arrays, inline tables).
type tomlGen struct {
	r *rand.Rand
	b strings.Builder
	n int // keys written, so that each is new
}

func (g *tomlGen) key() {
	for i := range 1 + g.r.IntN(3) {
		if i > 0 {
			g.b.WriteString([]string{".", " . "}[g.r.IntN(2)])
		}
		g.n++
		switch g.r.IntN(3) {
		case 0:
			fmt.Fprintf(&g.b, "k%d", g.n)
		case 1:
			fmt.Fprintf(&g.b, `"k.%d["`, g.n)
		default:
			fmt.Fprintf(&g.b, `'k#%d{'`, g.n)
		}
	}
}

func (g *tomlGen) str() {
	inner := []string{"", "[", "]]", "{", "#", ".", "x", `\"`, "'", `"`, `""`}
	body := func(noQuote string) string {
		var s strings.Builder
		for range g.r.IntN(5) {
			s.WriteString(inner[g.r.IntN(len(inner))])
		}
		return strings.ReplaceAll(s.String(), noQuote, "")
	}
	switch g.r.IntN(4) {
	case 0:
		g.b.WriteString(`"` + strings.ReplaceAll(body("'"), `""`, "") + `"`)
	case 1:
		g.b.WriteString("'" + body("'") + "'")
	case 2: // up to two quotes just inside the closing delimiter
		g.b.WriteString(`"""` + body("'") + "\n" + strings.Repeat(`"`, g.r.IntN(3)) + `"""`)
	default:
		g.b.WriteString("'''" + body("'") + strings.Repeat("'", g.r.IntN(3)) + "'''")
	}
}

func (g *tomlGen) value(depth int) {
	k := g.r.IntN(5)
	if depth <= 0 {
		k = g.r.IntN(2)
	}
	switch k {
	case 0:
		g.b.WriteString([]string{"1", "1.5", "-3e-4", "true", "1979-05-27"}[g.r.IntN(5)])
	case 1:
		g.str()
	case 2, 3:
		g.b.WriteString("[")
		for i := range g.r.IntN(3) {
			if i > 0 {
				g.b.WriteString(", ")
			}
			g.value(depth - 1)
		}
		g.b.WriteString([]string{"]", ",]", "\n]"}[g.r.IntN(3)])
	default:
		g.b.WriteString("{")
		for i := range g.r.IntN(3) {
			if i > 0 {
				g.b.WriteString(", ")
			}
			g.key()
			g.b.WriteString(" = ")
			g.value(depth - 1)
		}
		g.b.WriteString("}")
	}
}

func (g *tomlGen) doc() string {
	g.b.Reset()
	for range 1 + g.r.IntN(6) {
		switch g.r.IntN(5) {
		case 0:
			g.b.WriteString("[")
			g.key()
			g.b.WriteString("]")
		case 1:
			g.b.WriteString("[[")
			g.key()
			g.b.WriteString("]]")
		case 2:
			g.b.WriteString(`# [[[ """ '''`)
		default:
			g.key()
			g.b.WriteString(" = ")
			g.value(4)
		}
		g.b.WriteString("\n")
	}
	return g.b.String()
}

// mutate puts one of pieces into text at a random place, or cuts a byte out.
func mutate(r *rand.Rand, text string, pieces []string) string {
	i := r.IntN(len(text) + 1)
	if r.IntN(2) == 0 && i < len(text) {
		return text[:i] + text[i+1:]
	}
	return text[:i] + pieces[r.IntN(len(pieces))] + text[i:]
}

// TestTOMLDepthBoundsParser holds TOMLDepth to the TOML parser on random texts (tomlGen's,
// and the same with a piece put in or a byte cut out, so that strings open and close
// elsewhere): whenever the parser reads a text, it nests no deeper than TOMLDepth says.
func TestTOMLDepthBoundsParser(t *testing.T) {
	g := &tomlGen{r: rand.New(rand.NewPCG(44, 8))}
	cuts := []string{`"`, "'", `"""`, "'''", "[", "]", "{", "}", "\n", "#", ".", `\`, "="}
	n, decoded, nested := 4000, 0, 0
	if testing.Short() {
		n = 500
	}
	for range n {
		text := g.doc()
		for _, s := range []string{text, mutate(g.r, text, cuts), mutate(g.r, text, cuts)} {
			var m map[string]any
			if _, err := toml.Decode(s, &m); err == nil {
				decoded++
				if nesting(m) > 3 {
					nested++
				}
			}
			checkBound(t, s)
		}
	}
	if decoded < n || nested < n/4 {
		t.Errorf("only %d of %d random texts were TOML, %d nested 3 deep: the test holds TOMLDepth to too few", decoded, 3*n, nested)
	}
	t.Logf("%d of %d random texts were TOML, %d nested 3 deep", decoded, 3*n, nested)
}

// FuzzTOMLDepth: go test -fuzz FuzzTOMLDepth ./sessions/runconfig looks for a text the parser
// nests deeper than TOMLDepth says.
func FuzzTOMLDepth(f *testing.F) {
	for _, s := range []string{"a = [[1]]\n", "a = \"\"\"x\"\"\"\"\nb = [[[]]]\nc = \"\n", "[a.b]\nc.d = {e.f = [1]}\n", "[[a]]\n[[a.b]]\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 {
			return
		}
		checkBound(t, s)
	})
}

// TestReadUserFile: a FIFO, a folder and a file over the limit are refused at once (a FIFO
// given as --config or a sweep file waited for a writer forever, issue 44 item 8), naming
// the path; a regular file is read.
func TestReadUserFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "c.toml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs:", err)
	}
	big := filepath.Join(dir, "big.toml")
	os.WriteFile(big, make([]byte, 2048), 0o600)
	ok := filepath.Join(dir, "ok.toml")
	os.WriteFile(ok, []byte("steps = 3\n"), 0o600)
	for _, c := range []struct{ path, want string }{
		{fifo, "c.toml is a FIFO, not a regular file"},
		{dir, "is a folder, not a regular file"},
		{big, "big.toml: larger than 1 KiB"},
		{filepath.Join(dir, "none.toml"), "no such file"},
	} {
		done := make(chan error, 1)
		go func() { _, err := ReadUserFile(c.path, 1024); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("ReadUserFile(%s): %v, want %q", c.path, err, c.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("ReadUserFile(%s) blocks", c.path)
		}
	}
	if b, err := ReadUserFile(ok, 1024); err != nil || string(b) != "steps = 3\n" {
		t.Errorf("a regular file: %q, %v", b, err)
	}
}
