package sshserve

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestHostKeyFileGenerated checks that a host key file that does not exist yet is
// generated there (mode 0600, its folder created 0700), as docs/usage.md says, and the same
// key is loaded on the next start.
func TestHostKeyFileGenerated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys", "host_key")
	s1, created, used, err := HostKeyFile(path)
	if err != nil {
		t.Fatalf("a new --host-key path: %v", err)
	}
	if !created || used != path {
		t.Errorf("created %v at %q, want a key generated at %q", created, used, path)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file %v, mode %v", err, st.Mode().Perm())
	}
	s2, created, _, err := HostKeyFile(path)
	if err != nil || created {
		t.Fatalf("second start: %v, created %v", err, created)
	}
	if !bytes.Equal(s1.PublicKey().Marshal(), s2.PublicKey().Marshal()) {
		t.Error("the second start loaded another key")
	}
}
