package sweep

import (
	"path/filepath"
	"testing"
	"time"
)

// TestDefaultDir: a sweep's default folder is ./runs/<kind>-<time>, and a point's session
// its name with the session suffix.
func TestDefaultDir(t *testing.T) {
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.Local)
	if got, want := DefaultDir("compare", now), filepath.Join("runs", "compare-20260304-050607"); got != want {
		t.Errorf("DefaultDir %q, want %q", got, want)
	}
	if got := (Point{Name: "bijection-mlp-seed=1"}).Session(); got != "bijection-mlp-seed=1.wtlab" {
		t.Errorf("Session %q", got)
	}
}
