package runconfig

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDuplicateKeysRefused gives a stored configuration and a .json configuration file a
// key twice (encoding/json kept the last): each is refused, naming the key.
func TestDuplicateKeysRefused(t *testing.T) {
	if _, err := Decode(json.RawMessage(`{"batch":8,"tunnel":{"v":4,"v":5},"batch":9}`)); err == nil || !strings.Contains(err.Error(), `key "v" appears twice in the object at $.tunnel`) {
		t.Errorf("stored configuration: %v", err)
	}
	p := filepath.Join(t.TempDir(), "run.json")
	os.WriteFile(p, []byte(`{"batch":8,"batch":9}`), 0o644)
	if _, err := ReadFile(p); err == nil || !strings.Contains(err.Error(), `key "batch" appears twice`) {
		t.Errorf("configuration file: %v", err)
	}
}
