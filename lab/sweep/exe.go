package sweep

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// ExeError is a binary a sweep's points cannot run (Exe): one `go run` built, for Slurm, or
// a path that is no executable file. It is the user's to fix: a bad command line.
type ExeError struct{ msg string }

func (e *ExeError) Error() string { return e.msg }

// Exe is the windtunnel binary a sweep's points run, as an absolute path: exe, or this
// process's own binary when exe is "". For Slurm this one must not be one `go run` built
// (BuiltByGo), which the nodes would run by its path in a folder go removes; the error
// names the windtunnel on PATH, if there is an installed one, to give as --exe instead. A
// path that is not an executable regular file is an *ExeError too.
func Exe(exe string, slurm bool) (string, error) {
	var err error
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return "", fmt.Errorf("sweep: the windtunnel binary: %w (give --exe)", err)
		}
		if slurm && BuiltByGo(exe) {
			hint := "go install ./cmd/windtunnel puts it in $(go env GOPATH)/bin"
			if p, err := exec.LookPath("windtunnel"); err == nil && !BuiltByGo(p) {
				hint = "--exe " + p + " is the one on PATH"
			}
			return "", &ExeError{fmt.Sprintf("sweep: --slurm: this windtunnel was built by `go run` (%s): the nodes would run it by that path, in a temporary go-build folder (or Go's build cache) that go removes; run an installed windtunnel or give --exe (%s)", exe, hint)}
		}
	}
	if exe, err = filepath.Abs(exe); err != nil {
		return "", fmt.Errorf("sweep: --exe: %w", err)
	}
	if fi, err := os.Stat(exe); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return "", &ExeError{fmt.Sprintf("sweep: --exe %s: not an executable file", exe)}
	}
	return exe, nil
}

// IsExeError reports whether err is (or wraps) an *ExeError.
func IsExeError(err error) bool {
	var e *ExeError
	return errors.As(err, &e)
}
