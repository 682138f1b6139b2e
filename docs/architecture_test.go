// Package docs holds the project's prose documentation; its tests hold docs/architecture.md
// to the code (the import table against `go list`, the rules it states as "never", and every
// Go name it mentions against the packages that should hold it), every relative link of
// README.md and docs/*.md to a file and heading that exist, and the screens docs/usage.md
// shows to the tests' goldens they were taken from (screens_test.go).
package docs

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// module is the module path of the project's packages.
const module = "windtunnel/"

// pkg is what `go list -json` says of one package.
type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
	GoFiles    []string
	// TestGoFiles and XTestGoFiles are the package's tests (names a document may cite).
	TestGoFiles, XTestGoFiles []string
}

// listPackages runs `go list -json ./...` at the repository's root.
func listPackages(t *testing.T) map[string]pkg {
	t.Helper()
	// Only the fields read: go list then skips what it would compute for the rest (staleness).
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports,Deps,GoFiles,TestGoFiles,XTestGoFiles", "./...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	pkgs := map[string]pkg{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		if len(p.GoFiles) == 0 {
			continue // test-only packages, this one among them
		}
		pkgs[strings.TrimPrefix(p.ImportPath, module)] = p
	}
	return pkgs
}

// importTable reads the "Who imports whom" table: each package with the project packages it
// imports.
func importTable(t *testing.T) map[string][]string {
	t.Helper()
	f, err := os.Open("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tick := regexp.MustCompile("`([^`]+)`")
	table := map[string][]string{}
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## Who imports whom"):
			in = true
			continue
		case in && strings.HasPrefix(line, "## "):
			in = false
		}
		if !in || !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) < 3 {
			t.Fatalf("architecture.md: bad table row %q", line)
		}
		var imports []string
		for _, m := range tick.FindAllStringSubmatch(cells[2], -1) {
			if !strings.Contains(m[1], ".") && strings.ToLower(m[1]) == m[1] { // a package, not a name in a remark
				imports = append(imports, m[1])
			}
		}
		for _, m := range tick.FindAllStringSubmatch(cells[1], -1) {
			if _, dup := table[m[1]]; dup {
				t.Errorf("architecture.md: %s has two rows", m[1])
			}
			table[m[1]] = imports
		}
	}
	return table
}

// TestArchitecture runs `go list` once and holds docs/architecture.md to it.
func TestArchitecture(t *testing.T) {
	pkgs := listPackages(t)
	t.Run("imports", func(t *testing.T) { importsMatch(t, pkgs) })
	t.Run("parts", func(t *testing.T) { partsRanked(t, pkgs) })
	t.Run("nevers", func(t *testing.T) { nevers(t, pkgs) })
	t.Run("names", func(t *testing.T) { namesExist(t, pkgs) })
	t.Run("bare names", func(t *testing.T) { bareNamesExist(t, pkgs) })
}

// importsMatch checks that docs/architecture.md's import table lists every package of the
// project, and for each exactly the project packages it imports.
func importsMatch(t *testing.T, pkgs map[string]pkg) {
	table := importTable(t)
	var names []string
	for name := range pkgs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		want, ok := table[name]
		if !ok {
			t.Errorf("architecture.md: no row for %s", name)
			continue
		}
		var got []string
		for _, imp := range pkgs[name].Imports {
			if strings.HasPrefix(imp, module) {
				got = append(got, strings.TrimPrefix(imp, module))
			}
		}
		sort.Strings(got)
		w := slices.Clone(want)
		sort.Strings(w)
		if !slices.Equal(got, w) {
			t.Errorf("architecture.md: %s imports %v, the table says %v", name, got, w)
		}
	}
	for name := range table {
		if _, ok := pkgs[name]; !ok {
			t.Errorf("architecture.md: a row for %s, which is no package", name)
		}
	}
}

// partRank is each part's rank, lowest first, as architecture.md states it; the leaves
// beside the parts (backends, among them backends/untrusted) rank below them all.
var partRank = map[string]int{
	"backends":    0,
	"diagnostics": 1, "tunnels": 2, "models": 3, "sessions": 4, "tui": 5, "lab": 6, "cmd": 7,
}

// partOf is the rank of a package's part (its first path element).
func partOf(t *testing.T, name string) int {
	top, _, _ := strings.Cut(name, "/")
	r, ok := partRank[top]
	if !ok {
		t.Errorf("architecture.md: %s is in no part", name)
	}
	return r
}

// partsRanked checks that no package imports one of a higher part.
func partsRanked(t *testing.T, pkgs map[string]pkg) {
	for name, p := range pkgs {
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			imp = strings.TrimPrefix(imp, module)
			if partOf(t, imp) > partOf(t, name) {
				t.Errorf("%s imports %s, a higher part", name, imp)
			}
		}
	}
}

// nevers checks the rules architecture.md states as "must not": the dashboard and the
// overlay never reach lab or models, and sessions/* and tui/sshserve never reach gorgonia or
// purego (they run on a laptop replaying a file, and under serve for viewers who may not train).
func nevers(t *testing.T, pkgs map[string]pkg) {
	for name, p := range pkgs {
		var banned, allowed []string
		switch {
		case name == "tui" || name == "tui/overlay" || name == "tui/look":
			banned = []string{module + "lab", module + "models"}
			allowed = []string{module + "models/arch"} // the leaf it names
		case strings.HasPrefix(name, "sessions") || name == "tui/sshserve":
			banned = []string{"gorgonia.org/", "github.com/ebitengine/purego"}
		default:
			continue
		}
		for _, d := range p.Deps {
			if slices.Contains(allowed, d) {
				continue
			}
			for _, b := range banned {
				if d == b || strings.HasPrefix(d, b+"/") || (strings.HasSuffix(b, "/") && strings.HasPrefix(d, b)) {
					t.Errorf("%s depends on %s, which architecture.md rules out", name, d)
				}
			}
		}
	}
}

// namesExist checks that every `pkg.Name` architecture.md mentions names something
// declared in a package of that last path element (a func, type, var or const).
func namesExist(t *testing.T, pkgs map[string]pkg) {
	doc, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	byBase := map[string][]string{}
	for name := range pkgs {
		base := name[strings.LastIndex(name, "/")+1:]
		byBase[base] = append(byBase[base], name)
	}
	ref := regexp.MustCompile("`([a-z][a-z0-9]*)\\.([A-Z][A-Za-z0-9]*)")
	for _, m := range ref.FindAllStringSubmatch(string(doc), -1) {
		dirs, ok := byBase[m[1]]
		if !ok {
			continue // not a package of the project (a file name, say)
		}
		found := false
		decl := regexp.MustCompile(`(?m)^(func( \([^)]*\))? |type |var |const |\t)` + m[2] + `\b`)
		for _, dir := range dirs {
			for _, f := range pkgs[dir].GoFiles {
				b, err := os.ReadFile("../" + dir + "/" + f)
				if err == nil && decl.Match(b) {
					found = true
				}
			}
		}
		if !found {
			t.Errorf("architecture.md mentions %s.%s, which %v do not declare", m[1], m[2], dirs)
		}
	}
}

// bareNamesExist checks that every exported Go name architecture.md mentions bare, in
// backticks (`ClassJacobians`, `Build`), is declared somewhere in the project.
func bareNamesExist(t *testing.T, pkgs map[string]pkg) {
	doc, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	for dir, p := range pkgs {
		for _, f := range slices.Concat(p.GoFiles, p.TestGoFiles, p.XTestGoFiles) {
			b, err := os.ReadFile("../" + dir + "/" + f)
			if err != nil {
				t.Fatal(err)
			}
			src.Write(b)
		}
	}
	// The exported names declared at a line's start (func, method, type, var, const, or a
	// tab-indented field or grouped declaration), read in one pass over the sources.
	declared := map[string]bool{}
	decl := regexp.MustCompile(`(?m)^(?:func(?: \([^)]*\))? |type |var |const |\t)([A-Z][A-Za-z0-9_]*)`)
	for _, m := range decl.FindAllStringSubmatch(src.String(), -1) {
		declared[m[1]] = true
	}
	bare := regexp.MustCompile("`([A-Z][A-Za-z0-9]*)`")
	for _, m := range bare.FindAllStringSubmatch(string(doc), -1) {
		if !declared[m[1]] {
			t.Errorf("architecture.md mentions %s, which no package declares", m[1])
		}
	}
}
