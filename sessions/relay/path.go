package relay

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// maxSocketPath is the longest socket path this package makes: sun_path holds 104 bytes on
// macOS and the BSDs (108 on Linux), the terminating NUL included.
const maxSocketPath = 103

// SocketDir returns the directory of the control sockets of this user's live runs:
// $XDG_RUNTIME_DIR/windtunnel, else <user cache directory>/windtunnel/run.
func SocketDir() (string, error) {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "windtunnel"), nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("relay: socket directory: %w", err)
	}
	return filepath.Join(d, "windtunnel", "run"), nil
}

// SocketPath returns the control socket in dir of the run writing session: the session's
// name and a short hash of its absolute path (two sessions of one name in different
// folders do not collide), or the hash alone when that would not fit a socket address.
func SocketPath(dir, session string) string {
	abs, err := filepath.Abs(session)
	if err != nil {
		abs = session
	}
	sum := sha256.Sum256([]byte(abs))
	h := hex.EncodeToString(sum[:])
	name := strings.TrimSuffix(filepath.Base(abs), filepath.Ext(abs))
	p := filepath.Join(dir, name+"-"+h[:10]+".sock")
	if len(p) > maxSocketPath {
		p = filepath.Join(dir, h[:20]+".sock")
	}
	return p
}

// Listen makes the socket directory (0700, owned by this user; a looser mode is tightened)
// and listens on a unix socket at path (0600). A stale socket left by a run that died is
// replaced; one that a live run answers on is an error.
func Listen(path string) (*net.UnixListener, error) {
	if len(path) > maxSocketPath {
		return nil, fmt.Errorf("relay: listen %s: path longer than %d bytes", path, maxSocketPath)
	}
	if err := privateDir(filepath.Dir(path)); err != nil {
		return nil, fmt.Errorf("relay: listen %s: %w", path, err)
	}
	if _, err := os.Lstat(path); err == nil {
		if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
			c.Close()
			return nil, fmt.Errorf("relay: listen %s: a live run already uses this socket", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("relay: listen %s: remove stale socket: %w", path, err)
		}
	}
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("relay: listen %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, fmt.Errorf("relay: listen %s: %w", path, err)
	}
	return l, nil
}

// privateDir makes dir (and its parents) and checks that it is a directory of this user
// with mode 0700, tightening a looser mode.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	if uid, ok := fileOwner(fi); ok && uid != uint32(os.Getuid()) {
		return fmt.Errorf("%s belongs to uid %d, not to this user", dir, uid)
	}
	if fi.Mode().Perm() != 0o700 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return err
		}
	}
	return nil
}

// errNoRun is returned by dialing a socket nobody listens on (a stale one).
var errNoRun = errors.New("no run listens on this socket")

// errConnRefused is what dialing a socket with no listener gives.
var errConnRefused error = syscall.ECONNREFUSED
