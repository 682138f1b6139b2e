package index

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"windtunnel/sessions"
	"windtunnel/sessions/relay"
)

// ChoiceError is a query Pick cannot settle on one live run: none matches, or several do
// (the message lists the live runs to name). It is the user's to fix: a bad command line.
type ChoiceError struct{ msg string }

func (e *ChoiceError) Error() string { return e.msg }

// IsChoiceError reports whether err is (or wraps) a *ChoiceError.
func IsChoiceError(err error) bool {
	var e *ChoiceError
	return errors.As(err, &e)
}

// Pick finds the live run of live that query names (relay.Select; a session file names
// the run that writes it, and a session no live run writes is an error that suggests
// replay). Without a query there must be exactly one live run. Several, or a query that
// matches several or none, is a *ChoiceError listing the live runs; no live run at all is
// a plain error.
func Pick(live []relay.Run, query string) (relay.Run, error) {
	sel := relay.Select(live, query)
	if fi, err := os.Stat(query); query != "" && err == nil && !fi.IsDir() {
		sel = Writing(live, fi)
		if len(sel) == 0 {
			if _, err := sessions.Open(query); err != nil {
				return relay.Run{}, err
			}
			return relay.Run{}, fmt.Errorf("no live run writes %s (see it with `windtunnel replay %s`)", query, query)
		}
	}
	switch {
	case len(sel) == 1:
		return sel[0], nil
	case len(live) == 0:
		return relay.Run{}, fmt.Errorf("no live runs (start one in the background with `windtunnel run --detach`)")
	case len(sel) == 0:
		return relay.Run{}, &ChoiceError{fmt.Sprintf("no live run matches %q; live runs:\n%s", query, RunList(live))}
	case query == "":
		return relay.Run{}, &ChoiceError{fmt.Sprintf("%d live runs, name one:\n%s", len(sel), RunList(sel))}
	default:
		return relay.Run{}, &ChoiceError{fmt.Sprintf("%d live runs match %q, name one:\n%s", len(sel), query, RunList(sel))}
	}
}

// RunList lists live runs, one a line: name, task, model, step of steps and pid.
func RunList(runs []relay.Run) string {
	var b strings.Builder
	for _, r := range runs {
		h := r.Hello
		fmt.Fprintf(&b, "  %s  (%s %s, step %d/%d, pid %d)\n", r.Name(), h.Meta.Task, h.Meta.Model, h.Step, h.Meta.Steps, h.Pid)
	}
	return strings.TrimRight(b.String(), "\n")
}
