package index

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"windtunnel/sessions"
)

// Info is one session described (windtunnel info): its run, file, step range, records,
// events, checkpoints, state and last scores.
type Info struct {
	Path        string         `json:"path"`
	Bytes       int64          `json:"bytes"`
	Task        string         `json:"task"`
	Model       string         `json:"model"`
	Params      int            `json:"params"`
	Device      string         `json:"device"`
	Version     string         `json:"version"`
	Host        string         `json:"host"`
	Created     time.Time      `json:"created"`
	FirstStep   int            `json:"first_step"`
	LastStep    int            `json:"last_step"`
	PlanSteps   int            `json:"planned_steps"`
	Records     int            `json:"records"`
	Events      int            `json:"events"`
	Checkpoints []int          `json:"checkpoints"`
	State       string         `json:"state"`
	Last        *sessions.Eval `json:"last_eval,omitempty"`
	// LastLoss and WallS are null when not finite (a diverged run's loss).
	LastLoss sessions.Num `json:"last_loss"`
	WallS    sessions.Num `json:"wall_s"`
	// Labels are what a person called the run (none when they cannot be read).
	Labels sessions.Labels `json:"labels"`
	// Config is the configuration as stored (info shows it resolved for display,
	// lab.Effective, where it resolves).
	Config json.RawMessage `json:"config"`
}

// ReadInfo describes the session at path.
func ReadInfo(path string) (Info, error) {
	r, err := sessions.Open(path)
	if err != nil {
		return Info{}, err
	}
	defer r.Close()
	m := r.Meta()
	in := Info{Path: path, Task: m.Task, Model: m.Model, Params: m.Params, Device: m.Device, Version: m.Version,
		Host: m.Host, Created: m.Created, PlanSteps: m.Steps, Config: m.Config}
	if st, err := os.Stat(path); err == nil {
		in.Bytes = st.Size()
	}
	in.Labels, _ = r.Labels()
	in.FirstStep, in.LastStep, _ = r.Span()
	if in.Records, err = r.Count(); err != nil {
		return in, err
	}
	ev, err := r.Events(-1)
	if err != nil {
		return in, err
	}
	in.Events = len(ev)
	if in.Checkpoints, err = r.Checkpoints(); err != nil {
		return in, err
	}
	last, ok, err := r.At(-1)
	if err != nil {
		return in, err
	}
	if ok {
		in.State, in.LastLoss, in.WallS = string(last.State), sessions.Num(last.Loss), sessions.Num(last.WallS)
	}
	evs, err := r.Evals(-1, 0)
	if err != nil {
		return in, err
	}
	if r, ok := sessions.LastWhole(evs); ok {
		in.Last = r.Eval
	}
	return in, nil
}

// Text is the description as info prints it, the configuration indented as written.
func (in Info) Text() string {
	w := &strings.Builder{}
	fmt.Fprintf(w, "session   %s (%d bytes)\n", sessions.SafeText(in.Path), in.Bytes)
	fmt.Fprintf(w, "run       %s %s, %d parameters, %s, windtunnel %s on %s, %s\n", in.Task, in.Model, in.Params, in.Device, in.Version, in.Host, in.Created.Format(time.RFC3339))
	fmt.Fprintf(w, "steps     %d..%d of %d planned, %d records, %d operator events, state %s, %.1f s\n", in.FirstStep, in.LastStep, in.PlanSteps, in.Records, in.Events, in.State, in.WallS)
	if l := in.Labels; !l.Empty() {
		fmt.Fprintf(w, "labels    name %s · tags %s\n", LabelCell(l.Name), LabelCell(strings.Join(l.Tags, ",")))
		if l.Note != "" {
			fmt.Fprintf(w, "note      %s\n", strings.ReplaceAll(l.Note, "\n", "\n          "))
		}
	}
	fmt.Fprintf(w, "checkpts  %v\n", in.Checkpoints)
	fmt.Fprintf(w, "last      loss %.5f", in.LastLoss)
	if e := in.Last; e != nil {
		fmt.Fprintf(w, "  bit error (a) %.5f  (b) %.5f  KL %.5f bits  TVD %.5f  accuracy %.4f", e.BitErrorPosition, e.BitErrorSample, e.KLBits, e.TVD, e.Accuracy)
	}
	fmt.Fprintln(w)
	var cfg bytes.Buffer
	if json.Indent(&cfg, in.Config, "          ", "  ") == nil { // in the order written
		fmt.Fprintf(w, "config    %s\n", cfg.Bytes())
	}
	return w.String()
}
