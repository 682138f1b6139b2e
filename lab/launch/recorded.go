package launch

import (
	"fmt"

	"windtunnel/diagnostics"
	"windtunnel/lab"
	"windtunnel/sessions"
)

// Recorded is res cut back to what the session at path holds after its writer failed with
// werr (a full disk at the end of a run): the last committed record's step, the newest
// committed evaluation (none: no final evaluation), state failed and a message naming the
// steps kept, the state the session's last record shows and the write error. The summary
// and the exit line of a run whose end was not recorded then report the session, not the
// run that was lost.
func Recorded(path string, res lab.Result, werr error) lab.Result {
	ran := res.Steps
	if res.Last.Step > ran {
		ran = res.Last.Step
	}
	out := res
	out.Steps, out.Last, out.LastEval, out.Scores = 0, sessions.Record{}, sessions.Record{}, diagnostics.Scores{}
	held := "no record"
	if r, err := sessions.Open(path); err == nil {
		if last, ok, err := r.At(-1); err == nil && ok {
			out.Steps, out.Last.WallS = last.Step, last.WallS
			held = fmt.Sprintf("%d steps of the %d trained (its last record says %s)", last.Step, ran, sessions.SafeText(string(last.State)))
		}
		if evs, err := r.Evals(-1, 0); err == nil && len(evs) > 0 {
			out.LastEval = evs[len(evs)-1]
		}
		r.Close()
	}
	out.Last.Step, out.Last.State = out.Steps, sessions.Failed
	out.Last.Message = fmt.Sprintf("the session holds %s; the rest could not be recorded: %v", held, werr)
	out.WallS = res.WallS
	return out
}
