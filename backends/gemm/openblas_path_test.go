package gemm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenBLASNeverFromCurrentDir: a relative library path with a slash (from
// WINDTUNNEL_OPENBLAS) is refused before dlopen sees it, and a bare name is looked up by
// dlopen's system search, which does not find a file of that name in the current directory.
func TestOpenBLASNeverFromCurrentDir(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	const planted = "libwindtunnel-planted.so"
	if err := os.WriteFile(filepath.Join(dir, planted), []byte("not a library"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path, want string
	}{
		{"./" + planted, "refused: a relative path"},
		{"lib/libopenblas.so.0", "refused: a relative path"},
		{"../libopenblas.so.0", "refused: a relative path"},
		// dlopen reports a file it found but could not load as "invalid ELF header"; a
		// bare name it did not find as "cannot open shared object file".
		{planted, "cannot open shared object file"},
	} {
		_, err := openOpenBLASFrom([]string{c.path})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.path, err, c.want)
		}
	}
	if err := CheckLibraryPath("/usr/lib/libopenblas.so.0"); err != nil {
		t.Errorf("absolute path refused: %v", err)
	}
}
