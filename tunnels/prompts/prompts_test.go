package prompts

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestShippedSets(t *testing.T) {
	if got := Domains(); !slices.Equal(got, []string{"antonyms", "arithmetic", "geography", "narrative"}) {
		t.Errorf("domains %v", got)
	}
	for _, name := range append(Domains(), Mixed) {
		ps, err := Set(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) < 50 {
			t.Errorf("%s: %d prompts, want ≥ 50", name, len(ps))
		}
		seen := map[string]bool{}
		for _, p := range ps {
			if seen[p] {
				t.Errorf("%s: %q twice", name, p)
			}
			seen[p] = true
		}
	}
	if _, err := Set("nope"); err == nil || !strings.Contains(err.Error(), "mixed and antonyms") {
		t.Errorf("unknown set: %v", err)
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	ps, err := Read(write("ok.txt", "# a comment\nfirst prompt \r\n\n  \nsecond\n"))
	if err != nil || !slices.Equal(ps, []string{"first prompt ", "second"}) {
		t.Errorf("Read = %q, %v", ps, err)
	}
	for _, c := range []struct{ name, body, want string }{
		{"empty.txt", "# nothing\n\n", "no prompts"},
		{"long.txt", "x\n" + strings.Repeat("a", MaxLine+5) + "\n", "line 2"},
		{"utf8.txt", "ok\nbad \xff\n", "line 2 is not valid UTF-8"},
		{"many.txt", strings.Repeat("p\n", MaxPrompts+1), "over 10000 prompts"},
	} {
		if _, err := Read(write(c.name, c.body)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("folder: %v", err)
	}
	if _, err := Read(filepath.Join(dir, "missing")); err == nil {
		t.Error("missing: no error")
	}
}
