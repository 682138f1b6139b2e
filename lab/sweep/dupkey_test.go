package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDuplicateKeysRefused gives a sweep's manifest and a sweep file a key twice: each is
// refused, naming the key (the manifest through the strict decoder, the sweep file by the
// YAML reader, which refuses a key twice itself).
func TestDuplicateKeysRefused(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ManifestName), []byte(`{"format":"x","format":"y"}`), 0o644)
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), `key "format" appears twice`) {
		t.Errorf("manifest: %v", err)
	}
	for _, name := range []string{"s.json", "s.yaml"} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(`{"method":"grid","parameters":{"lr":{"values":[0.1]},"lr":{"values":[0.2]}}}`), 0o644)
		if _, err := ReadFile(p); err == nil || !strings.Contains(err.Error(), `"lr" given twice`) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
