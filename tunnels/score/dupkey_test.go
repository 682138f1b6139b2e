package score

import (
	"strings"
	"testing"

	"windtunnel/tunnels"
)

// TestStreamRefusesDuplicateKeys scores a line that gives its task twice: refused, naming
// the key and the line.
func TestStreamRefusesDuplicateKeys(t *testing.T) {
	in := `{"task":"hmm","task":"hmm"}` + "\n"
	_, err := Stream(strings.NewReader(in), "hmm", func(task string) (tunnels.Tunnel, error) { return tunnels.New(task, tunnels.Config{}) }, false)
	if err == nil || !strings.Contains(err.Error(), "line 1") || !strings.Contains(err.Error(), `key "task" appears twice`) {
		t.Errorf("error %v, want one naming line 1 and the key", err)
	}
}
