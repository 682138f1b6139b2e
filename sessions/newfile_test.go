package sessions

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCheckNewFile: a file in a writable folder passes (an existing one too: Create judges
// it); a folder is refused with a free name in it, a missing or non-folder parent and an
// unwritable folder with what is wrong, each message starting with the path.
func TestCheckNewFile(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full")
	os.Mkdir(full, 0o755)
	os.WriteFile(filepath.Join(full, "run.wtlab"), nil, 0o600)
	os.WriteFile(filepath.Join(full, "run-2.wtlab"), nil, 0o600)
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o600)
	locked := filepath.Join(dir, "locked")
	os.Mkdir(locked, 0o500)
	for _, c := range []struct {
		path, want string // want: the error, "" none
	}{
		{filepath.Join(dir, "a.wtlab"), ""},
		{file, ""},
		{dir, dir + " is a folder: name a session file in it (--out " + filepath.Join(dir, "run.wtlab") + ")"},
		{full, full + " is a folder: name a session file in it (--out " + filepath.Join(full, "run-3.wtlab") + ")"},
		{filepath.Join(dir, "none", "a.wtlab"), filepath.Join(dir, "none", "a.wtlab") + ": directory " + filepath.Join(dir, "none") + " does not exist"},
		{filepath.Join(file, "a.wtlab"), filepath.Join(file, "a.wtlab") + ": " + file + " is not a directory"},
		{filepath.Join(locked, "a.wtlab"), filepath.Join(locked, "a.wtlab") + ": directory " + locked + " is not writable"},
	} {
		if c.path == filepath.Join(locked, "a.wtlab") && os.Geteuid() == 0 {
			continue // root writes anywhere
		}
		err := CheckNewFile(c.path)
		if (err == nil) != (c.want == "") || err != nil && err.Error() != c.want {
			t.Errorf("%s: %v, want %q", c.path, err, c.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Errorf("%d entries left in the folder, want the 3 made (the probe file removed)", len(entries))
	}
}
