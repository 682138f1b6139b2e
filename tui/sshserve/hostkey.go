package sshserve

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	gossh "golang.org/x/crypto/ssh"
)

// configDir is windtunnel's directory under the user's configuration directory
// ($XDG_CONFIG_HOME, else ~/.config, on Linux).
func configDir() (string, error) {
	d, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("sshserve: no configuration directory: %w", err)
	}
	return filepath.Join(d, "windtunnel"), nil
}

// DefaultAuthorizedKeys is the authorized-keys file serve reads by default:
// $XDG_CONFIG_HOME/windtunnel/authorized_keys (~/.config/windtunnel/authorized_keys). It is
// deliberately not ~/.ssh/authorized_keys: being able to log in to the machine is not the
// same as being invited to watch, and sshd would reject the windtunnel-operator option.
func DefaultAuthorizedKeys() (string, error) {
	d, err := configDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "authorized_keys"), nil
}

// DefaultHostKey is where serve keeps the host key it generates on first start:
// $XDG_CONFIG_HOME/windtunnel/ssh_host_ed25519_key.
func DefaultHostKey() (string, error) {
	d, err := configDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "ssh_host_ed25519_key"), nil
}

// AuthorizedKeysFile is the authorized-keys file serve reads: path, or DefaultAuthorizedKeys
// when path is empty; a file that is not there is an error saying how to make it.
func AuthorizedKeysFile(path string) (string, error) {
	if path == "" {
		p, err := DefaultAuthorizedKeys()
		if err != nil {
			return "", err
		}
		path = p
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("serve: no authorized keys: create %s with one public key per line (%s before a key lets it operate runs)",
			path, OperatorOption)
	} else if err != nil {
		return "", fmt.Errorf("serve: authorized keys: %w", err)
	}
	return path, nil
}

// HostKeyFile loads the host key at path, or at DefaultHostKey when path is empty,
// generating it on first start (HostKey with create); it returns the path used.
func HostKeyFile(path string) (signer gossh.Signer, created bool, used string, err error) {
	if path == "" {
		if path, err = DefaultHostKey(); err != nil {
			return nil, false, "", err
		}
	}
	signer, created, err = HostKey(path, true)
	return signer, created, path, err
}

// HostKey loads the server's private key from path (OpenSSH or PEM format, unencrypted).
// When no file is there and create is true, it generates an ed25519 key and writes it
// (mode 0600, its directory 0700); created reports that. A key file that others may read
// is refused, as OpenSSH refuses one.
func HostKey(path string, create bool) (signer gossh.Signer, created bool, err error) {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && create:
		if err := writeHostKey(path); err != nil {
			return nil, false, err
		}
		created = true
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, fmt.Errorf("sshserve: host key %s does not exist", path)
	case err != nil:
		return nil, false, fmt.Errorf("sshserve: host key: %w", err)
	case st.IsDir():
		return nil, false, fmt.Errorf("sshserve: host key %s is a directory", path)
	case st.Mode().Perm()&0o077 != 0:
		return nil, false, fmt.Errorf("sshserve: host key %s is accessible by others (mode %04o): chmod 600 it", path, st.Mode().Perm())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false, fmt.Errorf("sshserve: host key: %w", err)
	}
	signer, err = gossh.ParsePrivateKey(data)
	if err != nil {
		return nil, false, fmt.Errorf("sshserve: host key %s: %w", path, err)
	}
	return signer, created, nil
}

// writeHostKey generates an ed25519 key and writes it to path in OpenSSH format; an
// existing file is never overwritten.
func writeHostKey(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("sshserve: host key directory: %w", err)
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return fmt.Errorf("sshserve: generate host key: %w", err)
	}
	block, err := gossh.MarshalPrivateKey(priv, "windtunnel serve host key")
	if err != nil {
		return fmt.Errorf("sshserve: encode host key: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("sshserve: write host key: %w", err)
	}
	if _, err := f.Write(pem.EncodeToMemory(block)); err != nil {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("sshserve: write host key %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return fmt.Errorf("sshserve: write host key %s: %w", path, err)
	}
	return nil
}
