package sshserve

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// OperatorOption, in the options field of an authorized_keys line, lets the key's holder
// operate a live run (pause, stop, toggle heads); keys without it watch read-only. It
// grants only bare or with an explicitly true value (windtunnel-operator="true", "yes" or
// "1"); an explicitly false value ("false", "no", "0") or one it does not understand
// leaves the key read-only, the latter with a note.
const OperatorOption = "windtunnel-operator"

// operatorValue reads OperatorOption's value (everything after "=", quotes and all; has
// reports whether there was one): whether it grants, and whether it was understood.
func operatorValue(value string, has bool) (grant, understood bool) {
	if !has {
		return true, true
	}
	v := strings.TrimSpace(value)
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		v = v[1 : len(v)-1]
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "yes", "1":
		return true, true
	case "false", "no", "0":
		return false, true
	}
	return false, false
}

// harmless reports whether an OpenSSH option only forbids what the server never allows
// anyway; a line carrying it is admitted as if it were absent.
func harmless(option string) bool {
	switch option {
	case "restrict", "no-port-forwarding", "no-agent-forwarding", "no-x11-forwarding", "no-user-rc":
		return true
	}
	return false
}

// Key is one public key admitted by the authorized-keys file.
type Key struct {
	// Key is the public key.
	Key gossh.PublicKey
	// Comment is the line's comment (usually who holds the key).
	Comment string
	// Operator reports whether the line carries OperatorOption, bare or true.
	Operator bool
	// Fingerprint is the key's SHA256 fingerprint ("SHA256:...").
	Fingerprint string
}

// By is the Event.By that the key's operator actions are recorded with.
func (k Key) By() string { return "ssh:" + k.Fingerprint }

// ParseAuthorizedKeys reads an OpenSSH authorized_keys file: one key a line, an optional
// comma-separated options field before it, # comments and blank lines ignored. It returns
// the admitted keys and a note for every line it skipped (not a key, or an option the
// server cannot honour, such as from= or command=: such a key is not admitted rather than
// admitted without its restriction).
func ParseAuthorizedKeys(data []byte) ([]Key, []string) {
	var keys []Key
	var notes []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		pk, comment, options, _, err := gossh.ParseAuthorizedKey([]byte(line))
		if err != nil {
			notes = append(notes, fmt.Sprintf("line %d: not a public key: %v", n, err))
			continue
		}
		k := Key{Key: pk, Comment: comment, Fingerprint: gossh.FingerprintSHA256(pk)}
		bad := ""
		seenOperator := false
		for _, o := range options {
			name, value, has := strings.Cut(o, "=")
			switch name = strings.ToLower(strings.TrimSpace(name)); {
			case name == OperatorOption:
				grant, understood := operatorValue(value, has)
				if !understood {
					notes = append(notes, fmt.Sprintf("line %d: option %s=%s not understood (bare, true or false): key %s watches read-only", n, OperatorOption, value, k.Fingerprint))
				}
				// Given more than once, every one must grant.
				k.Operator = grant && (k.Operator || !seenOperator)
				seenOperator = true
			case harmless(name):
			case bad == "":
				bad = name
			}
		}
		if bad != "" {
			notes = append(notes, fmt.Sprintf("line %d: option %q is not supported by windtunnel serve: key %s not admitted", n, bad, k.Fingerprint))
			continue
		}
		keys = append(keys, k)
	}
	if err := sc.Err(); err != nil {
		notes = append(notes, fmt.Sprintf("reading stopped: %v", err))
	}
	return keys, notes
}

// keyring is the authorized-keys file, re-read when its size or modification time changes,
// so that a key added or removed takes effect at the next connection.
type keyring struct {
	path string
	warn func(string)

	mu    sync.Mutex
	size  int64
	mtime time.Time
	keys  map[string]Key // by the key's wire encoding
}

// newKeyring loads path; a file that cannot be read is an error, one with no usable key
// only a warning (keys may be added while the server runs).
func newKeyring(path string, warn func(string)) (*keyring, error) {
	k := &keyring{path: path, warn: warn}
	if err := k.reload(); err != nil {
		return nil, err
	}
	if len(k.keys) == 0 {
		warn(fmt.Sprintf("%s lists no usable key yet: nobody is admitted until one is added", path))
	}
	return k, nil
}

// reload re-reads the file if it changed; k.mu is held or k is not shared yet.
func (k *keyring) reload() error {
	st, err := os.Stat(k.path)
	if err != nil {
		return fmt.Errorf("authorized keys: %w", err)
	}
	if k.keys != nil && st.Size() == k.size && st.ModTime().Equal(k.mtime) {
		return nil
	}
	data, err := os.ReadFile(k.path)
	if err != nil {
		return fmt.Errorf("authorized keys: %w", err)
	}
	list, notes := ParseAuthorizedKeys(data)
	for _, n := range notes {
		k.warn(k.path + ": " + n)
	}
	keys := make(map[string]Key, len(list))
	for _, key := range list {
		keys[string(key.Key.Marshal())] = key
	}
	k.keys, k.size, k.mtime = keys, st.Size(), st.ModTime()
	return nil
}

// lookup returns the admitted key equal to pk. When the file cannot be read any more,
// nobody is admitted (and the reason is logged).
func (k *keyring) lookup(pk gossh.PublicKey) (Key, bool) {
	if pk == nil {
		return Key{}, false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := k.reload(); err != nil {
		k.warn(err.Error() + ": admitting nobody")
		k.keys, k.size, k.mtime = map[string]Key{}, -1, time.Time{}
		return Key{}, false
	}
	key, ok := k.keys[string(pk.Marshal())]
	return key, ok
}
