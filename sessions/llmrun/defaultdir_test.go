package llmrun

import (
	"path/filepath"
	"testing"
	"time"
)

// TestDefaultDir: a run's default output folder is ./llm-runs/<time>-<the model folder's name>.
func TestDefaultDir(t *testing.T) {
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.Local)
	want := filepath.Join("llm-runs", "20260304-050607-gpt2")
	for _, dir := range []string{"models/gpt2", "models/gpt2/", "gpt2"} {
		if got := DefaultDir(dir, now); got != want {
			t.Errorf("DefaultDir(%q) = %q, want %q", dir, got, want)
		}
	}
}
