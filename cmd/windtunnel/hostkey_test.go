package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeHostKeyGenerated checks that --host-key naming a file that does not exist yet
// generates the key there (mode 0600, its folder created 0700), as the README says, and
// loads the same key on the next start.
func TestServeHostKeyGenerated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys", "host_key")
	var out bytes.Buffer
	s1, err := serveHostKey(path, &out)
	if err != nil {
		t.Fatalf("a new --host-key path: %v", err)
	}
	if !strings.Contains(out.String(), "generated host key "+path) {
		t.Errorf("output %q does not say the key was generated", out.String())
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file %v, mode %v", err, st.Mode().Perm())
	}
	out.Reset()
	s2, err := serveHostKey(path, &out)
	if err != nil || out.Len() != 0 {
		t.Fatalf("second start: %v, output %q", err, out.String())
	}
	if !bytes.Equal(s1.PublicKey().Marshal(), s2.PublicKey().Marshal()) {
		t.Error("the second start loaded another key")
	}
}
