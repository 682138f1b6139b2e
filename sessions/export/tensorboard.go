package export

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat"

	"windtunnel/sessions"
)

// The tags of the scalars a TensorBoard export writes (TensorBoard groups a tag's cards by
// the part before its first slash): per record the training step's scalars, per evaluation
// of the whole model its scores in bits, per geometry snapshot each head's attention
// entropy (and all heads' as one histogram), and the user's own metrics at their steps.
const (
	TagLoss      = "loss"
	TagLR        = "lr"
	TagGradNorm  = "grad_norm"
	TagStepsPerS = "steps_per_s"
	TagBitsA     = "bits/a"
	TagBitsB     = "bits/b"
	TagKL        = "kl"
	TagTVD       = "tvd"
	TagAccuracy  = "accuracy"
	// TagKLAtLength prefixes an hmm run's KL at each evaluated length K (kl_at_length/K12).
	TagKLAtLength = "kl_at_length/K"
	// TagAttentionEntropy is the histogram of every head's attention entropy (bits) at a
	// snapshot; each head's is a scalar under it (attention_entropy/L0H1).
	TagAttentionEntropy = "attention_entropy"
	// TagUser prefixes the user's own metrics (sessions.UserMetric: user/probe/r2).
	TagUser = "user/"
)

// histogramBuckets is the number of equal-width buckets an attention-entropy histogram
// spans its values' range with (fewer when there are fewer values).
const histogramBuckets = 20

// TensorBoard writes the session as a TensorBoard event file: the file version, then an
// event per record (TensorBoard's scalars, listed at the Tag constants) at the record's
// step and wall time (the session's start plus the record's seconds), reading the session
// in chunks of steps as Records does; the user's metrics (under TagUser) join the events at
// their steps.
func TensorBoard(r *sessions.Reader, w io.Writer) error {
	start := 0.0
	if c := r.Meta().Created; !c.IsZero() {
		start = float64(c.UnixNano()) / 1e9
	}
	if err := writeRecord(w, event(start, 0, fileVersion, nil)); err != nil {
		return err
	}
	ums, err := r.UserMetrics()
	if err != nil {
		return err
	}
	slices.SortStableFunc(ums, func(a, b sessions.UserMetric) int { return a.Step - b.Step })
	// The user's metrics go into the first record's event at their step, or an event of
	// their own at the wall time of the record before (after the last record: at its).
	wall, i, prev := start, 0, -1
	users := func(upTo int) []tbValue { // the next metrics, up to step upTo
		var vs []tbValue
		for ; i < len(ums) && ums[i].Step <= upTo; i++ {
			vs = append(vs, tbValue{tag: TagUser + ums[i].Name, scalar: ums[i].Value})
		}
		return vs
	}
	err = eachChunk(r, func(recs []sessions.Record) error {
		for _, rec := range recs {
			for i < len(ums) && ums[i].Step < rec.Step {
				step := ums[i].Step
				if err := writeRecord(w, event(wall, int64(step), "", users(step))); err != nil {
					return err
				}
			}
			wall = start + rec.WallS
			vs := append(recordValues(rec, rec.Step == prev), users(rec.Step)...)
			prev = rec.Step
			if len(vs) == 0 {
				continue
			}
			if err := writeRecord(w, event(wall, int64(rec.Step), "", vs)); err != nil {
				return err
			}
		}
		return nil
	})
	for err == nil && i < len(ums) {
		step := ums[i].Step
		err = writeRecord(w, event(wall, int64(step), "", users(step)))
	}
	return err
}

// recordValues are the Summary values of one record; again marks a record at the step of
// the one before (a pause, an ablated evaluation, the final record), whose training scalars
// that one gave already (TensorBoard would draw them twice).
func recordValues(rec sessions.Record, again bool) []tbValue {
	var vs []tbValue
	if !again {
		vs = append(vs, tbValue{tag: TagLoss, scalar: rec.Loss}, tbValue{tag: TagLR, scalar: rec.LR}, tbValue{tag: TagGradNorm, scalar: rec.GradNorm})
		if rec.StepsPerS > 0 {
			vs = append(vs, tbValue{tag: TagStepsPerS, scalar: rec.StepsPerS})
		}
	}
	if rec.Whole() {
		e := rec.Eval
		vs = append(vs, tbValue{tag: TagBitsA, scalar: e.BitErrorPosition}, tbValue{tag: TagBitsB, scalar: e.BitErrorSample},
			tbValue{tag: TagKL, scalar: e.KLBits}, tbValue{tag: TagTVD, scalar: e.TVD}, tbValue{tag: TagAccuracy, scalar: e.Accuracy})
		for _, l := range e.Lengths {
			vs = append(vs, tbValue{tag: TagKLAtLength + strconv.Itoa(l.K), scalar: float64(l.KLBits)})
		}
	}
	if s := rec.Snapshot; s != nil && len(s.AttentionEntropy) > 0 {
		var all []float64
		for l, row := range s.AttentionEntropy {
			for h, x := range row {
				vs = append(vs, tbValue{tag: TagAttentionEntropy + "/" + sessions.Head{Layer: l, Head: h}.String(), scalar: x})
				all = append(all, x)
			}
		}
		if h := histogram(all, histogramBuckets); h != nil {
			vs = append(vs, tbValue{tag: TagAttentionEntropy, histo: h})
		}
	}
	return vs
}

// histogram is the HistogramProto of the finite values of xs in at most n equal-width
// buckets over their range (one bucket when they are all equal); nil when none is finite.
func histogram(xs []float64, n int) *tbHisto {
	var v []float64
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return nil
	}
	slices.Sort(v)
	h := &tbHisto{min: v[0], max: v[len(v)-1], num: float64(len(v))}
	for _, x := range v {
		h.sum += x
		h.sumSquares += x * x
	}
	n = min(n, len(v))
	if h.max == h.min {
		n = 1
	}
	// n+1 dividers from min to just above max (stat.Histogram's last bucket is open at the top).
	div := make([]float64, n+1)
	for i := range div {
		div[i] = h.min + (h.max-h.min)*float64(i)/float64(n)
	}
	div[n] = math.Nextafter(h.max, math.Inf(1))
	h.counts = stat.Histogram(nil, div, v, nil)
	h.limits = div[1:]
	return h
}

// TensorBoardRun is one session and the name of its run in a TensorBoard log folder.
type TensorBoardRun struct {
	Name, Path string
}

// TensorBoardRuns names the sessions of paths as TensorBoard runs: a session file named on
// its own by its file name without .wtlab, each session (*.wtlab) of a folder by the
// folder's name and its own (sweep/p0). Two sessions of one name are refused.
func TensorBoardRuns(paths []string) ([]TensorBoardRun, error) {
	var runs []TensorBoardRun
	seen := map[string]string{}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("export: %w", err)
		}
		files, prefix := []string{p}, ""
		if st.IsDir() {
			if files, err = filepath.Glob(filepath.Join(p, "*.wtlab")); err != nil || len(files) == 0 {
				return nil, fmt.Errorf("export: read %s: no sessions (*.wtlab) in it", p)
			}
			slices.Sort(files)
			abs, err := filepath.Abs(p)
			if err != nil {
				return nil, fmt.Errorf("export: %w", err)
			}
			prefix = filepath.Base(abs) + "/"
		}
		for _, f := range files {
			name := prefix + strings.TrimSuffix(filepath.Base(f), ".wtlab")
			for _, part := range strings.Split(name, "/") {
				if part == "" || part == "." || part == ".." || part == string(filepath.Separator) {
					return nil, fmt.Errorf("export: %s: cannot name a run folder %q; rename the session or its folder", f, name)
				}
			}
			if other, ok := seen[name]; ok {
				return nil, fmt.Errorf("export: %s and %s would both be run %q; export them to separate folders", other, f, name)
			}
			seen[name] = f
			runs = append(runs, TensorBoardRun{Name: name, Path: f})
		}
	}
	return runs, nil
}

// WriteTensorBoard writes each run's event file (TensorBoard) into its own folder dir/<run
// name>/, named events.out.tfevents.<the session's start, Unix seconds>.windtunnel so
// that an export repeated into the same folder replaces it (TensorBoard would show the
// points of two files twice); it makes dir if needed and returns the files written.
func WriteTensorBoard(dir string, runs []TensorBoardRun) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	var written []string
	for _, run := range runs {
		r, err := sessions.Open(run.Path)
		if err != nil {
			return written, err
		}
		sub := dir
		for _, part := range strings.Split(run.Name, "/") {
			sub = filepath.Join(sub, part)
			if err := sessions.MakeOutputDir(sub, 0o755); err != nil {
				r.Close()
				return written, err
			}
		}
		path := filepath.Join(sub, fmt.Sprintf("events.out.tfevents.%d.windtunnel", max(r.Meta().Created.Unix(), 0)))
		err = sessions.WriteOutputFunc(path, 0o644, func(w io.Writer) error { return TensorBoard(r, w) })
		r.Close()
		if err != nil {
			return written, fmt.Errorf("export: %s: %w", run.Path, err)
		}
		written = append(written, path)
	}
	return written, nil
}
