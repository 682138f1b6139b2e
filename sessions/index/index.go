package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"windtunnel/sessions"
	"windtunnel/sessions/relay"
)

// Run is one run as the index lists it: a live run (found from its control socket) or a
// recorded session.
type Run struct {
	// State is running (or paused), done, stopped, interrupted (stopped by a signal, or
	// killed: the session has no final record) or failed.
	State string `json:"state"`
	Task  string `json:"task"`
	Model string `json:"model"`
	Step  int    `json:"step"`
	Steps int    `json:"steps"`
	// BitError is bit error (a) at the newest evaluation of the whole model (null: none).
	BitError *float64 `json:"bit_error_position"`
	// Note qualifies the state: "no answer" for a session whose control socket is still
	// there but did not answer in time (a run that is alive but busy, or hung).
	Note string `json:"note,omitempty"`
	// Pid and Socket are a live run's process and control socket.
	Pid      int       `json:"pid,omitempty"`
	Socket   string    `json:"socket,omitempty"`
	Path     string    `json:"path"`
	Modified time.Time `json:"modified"`
	// Metrics are the scores of the newest evaluation of the whole model (null: none yet);
	// Config the configuration as stored.
	Metrics *Metrics        `json:"last_eval"`
	Config  json.RawMessage `json:"config,omitempty"`
	// Labels are what a person calls the run (sessions.Labels: run --name, --tag, --note,
	// windtunnel tag); none when the session's cannot be read.
	Labels sessions.Labels `json:"labels"`
	// Live is the live run itself (nil for a recorded session).
	Live *relay.Run `json:"-"`
}

// Metrics are the scores of a run's newest evaluation of the whole model (null: not a
// finite number).
type Metrics struct {
	BitErrorPosition *float64 `json:"bit_error_position"`
	BitErrorSample   *float64 `json:"bit_error_sample"`
	KLBits           *float64 `json:"kl_bits"`
	TVD              *float64 `json:"tvd"`
	Accuracy         *float64 `json:"accuracy"`
}

// Options say which recorded sessions List reads besides the live runs.
type Options struct {
	// Dir is the folder searched, with its sub-folders, for sessions (sessions.Find).
	Dir string
	// Age keeps the sessions modified within it (0: any age); Recent keeps the newest
	// Recent of them (0: all).
	Age    time.Duration
	Recent int
	// Skip is told of each session or folder that cannot be read (nil: nothing).
	Skip func(error)
	// Sockets is the folder of the live runs' control sockets ("": relay.SocketDir).
	Sockets string
}

// List returns the live runs of this user (Live, in o.Sockets), then the
// recorded sessions under o.Dir that no live run writes, newest first. A session that
// cannot be read is told to o.Skip and left out. o.Dir may be a link to a folder (links
// inside it are followed to files, not to folders: sessions.Find) or not exist yet (no
// sessions); anything else that is not a folder is an error (sessions.CheckFolder).
func List(ctx context.Context, o Options) ([]Run, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	skip := o.Skip
	if skip == nil {
		skip = func(error) {}
	}
	live, err := Live(ctx, o.Sockets)
	if err != nil {
		return nil, err
	}
	var rows []Run
	var liveFiles []os.FileInfo
	for i := range live {
		r := &live[i]
		h := r.Hello
		row := Run{State: "running", Task: h.Meta.Task, Model: h.Meta.Model, Step: h.Step, Steps: h.Meta.Steps,
			Pid: h.Pid, Socket: r.Socket, Path: h.Meta.Path, BitError: finite(float64(h.BitError)), Config: h.Meta.Config, Live: r}
		row.Metrics, row.Labels = readLive(h.Meta.Path)
		if h.State == sessions.Paused {
			row.State = "paused"
		}
		if fi, err := os.Stat(h.Meta.Path); err == nil {
			row.Modified = fi.ModTime().UTC()
			liveFiles = append(liveFiles, fi)
		}
		rows = append(rows, row)
	}
	if err := sessions.CheckFolder(o.Dir); errors.Is(err, fs.ErrNotExist) {
		return rows, nil // no sessions yet
	} else if err != nil {
		return nil, err
	}
	found, err := sessions.Find([]string{o.Dir}, sessions.FindOptions{Recursive: true, MayBeEmpty: true, Skip: skip})
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	cutoff := time.Now().Add(-o.Age)
	var files []sessions.Found
	for _, f := range found {
		if o.Age > 0 && f.Info.ModTime().Before(cutoff) {
			continue
		}
		if !slices.ContainsFunc(liveFiles, func(lf os.FileInfo) bool { return os.SameFile(f.Info, lf) }) {
			files = append(files, f)
		}
	}
	sort.SliceStable(files, func(i, j int) bool { return files[i].Info.ModTime().After(files[j].Info.ModTime()) })
	n := 0
	for _, f := range files {
		if o.Recent > 0 && n >= o.Recent {
			break
		}
		row, err := Read(f.Path)
		if err != nil {
			skip(err)
			continue
		}
		row.Modified = f.Info.ModTime().UTC()
		rows = append(rows, row)
		n++
	}
	return rows, nil
}

// Live lists this user's live runs: those answering on a control socket in dir ("":
// relay.SocketDir; relay.List removes the sockets nobody listens on).
func Live(ctx context.Context, dir string) ([]relay.Run, error) {
	if dir == "" {
		var err error
		if dir, err = relay.SocketDir(); err != nil {
			return nil, fmt.Errorf("index: %w", err)
		}
	}
	live, err := relay.List(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	return live, nil
}

// Writing returns the live runs that write the session file fi is of.
func Writing(live []relay.Run, fi os.FileInfo) []relay.Run {
	var out []relay.Run
	for _, r := range live {
		if lf, err := os.Stat(r.Hello.Meta.Path); err == nil && os.SameFile(fi, lf) {
			out = append(out, r)
		}
	}
	return out
}

// Session is what is read of a recorded session: its meta and its last record.
type Session struct {
	Meta    sessions.Meta
	Last    sessions.Record
	HasLast bool
}

// ReadSession reads a session's meta and last record.
func ReadSession(path string) (Session, error) {
	r, err := sessions.Open(path)
	if err != nil {
		return Session{}, err
	}
	defer r.Close()
	return sessionOf(r)
}

func sessionOf(r *sessions.Reader) (Session, error) {
	s := Session{Meta: r.Meta()}
	var err error
	s.Last, s.HasLast, err = r.At(-1)
	return s, err
}

// State is the session's state in the index's words: done, failed, stopped (by its
// operator), or interrupted (by a signal, or killed before a final record).
func (s Session) State() string {
	if !s.HasLast {
		return "interrupted"
	}
	switch s.Last.State {
	case sessions.Done:
		return "done"
	case sessions.Failed:
		return "failed"
	case sessions.Stopped:
		if s.Last.Message != "interrupted" {
			return "stopped"
		}
	}
	return "interrupted"
}

// Read describes a session file that no live run is writing: its state, step and newest
// whole-model scores; a session whose control socket is still there is running with the
// note "no answer".
func Read(path string) (Run, error) {
	r, err := sessions.Open(path)
	if err != nil {
		return Run{}, err
	}
	defer r.Close()
	s, err := sessionOf(r)
	if err != nil {
		return Run{}, err
	}
	m := s.Meta
	row := Run{State: s.State(), Task: m.Task, Model: m.Model, Steps: m.Steps, Path: path, Config: validJSON(m.Config)}
	if abs, err := filepath.Abs(path); err == nil {
		row.Path = abs
	}
	if s.HasLast {
		row.Step = s.Last.Step
	}
	// relay.List removed the sockets nobody listens on: one still named and present
	// belongs to a run that did not answer in time.
	if fi, err := os.Lstat(m.Socket); m.Socket != "" && err == nil && fi.Mode()&os.ModeSocket != 0 {
		row.State, row.Note, row.Socket = "running", "no answer", m.Socket
	}
	evals, err := r.Evals(-1, 0)
	if err != nil {
		return Run{}, err
	}
	if rec, ok := sessions.LastWhole(evals); ok {
		row.BitError = finite(rec.Eval.BitErrorPosition)
		row.Metrics = metricsOf(rec.Eval)
	}
	row.Labels, _ = r.Labels() // labels that cannot be read are left out, the run listed
	return row, nil
}

// metricsOf are the row's metrics of an evaluation.
func metricsOf(e *sessions.Eval) *Metrics {
	return &Metrics{BitErrorPosition: finite(e.BitErrorPosition), BitErrorSample: finite(e.BitErrorSample),
		KLBits: finite(e.KLBits), TVD: finite(e.TVD), Accuracy: finite(e.Accuracy)}
}

// ReadMetrics reads the metrics of the newest whole-model evaluation of the session at path
// (a live run's too; nil when it has none or cannot be read).
func ReadMetrics(path string) *Metrics {
	m, _ := readLive(path)
	return m
}

// readLive reads the metrics (ReadMetrics) and labels of the session at path.
func readLive(path string) (*Metrics, sessions.Labels) {
	r, err := sessions.Open(path)
	if err != nil {
		return nil, sessions.Labels{}
	}
	defer r.Close()
	l, _ := r.Labels()
	evals, err := r.Evals(-1, 0)
	if err != nil {
		return nil, l
	}
	if rec, ok := sessions.LastWhole(evals); ok {
		return metricsOf(rec.Eval), l
	}
	return nil, l
}

// validJSON is b when it is valid JSON (a session's stored configuration, written by
// whoever made the file), else nil.
func validJSON(b json.RawMessage) json.RawMessage {
	if !json.Valid(b) {
		return nil
	}
	return b
}

// finite returns a pointer to x, or nil when x is not a finite number.
func finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}
