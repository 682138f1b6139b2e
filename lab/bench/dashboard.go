package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
	"windtunnel/lab/launch"
	"windtunnel/sessions/derived"
	"windtunnel/sessions/runconfig"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"windtunnel/lab"
	"windtunnel/sessions"
	"windtunnel/tui"
)

// DashOptions configure the in-process dashboard benchmark.
type DashOptions struct {
	Windows int           // number of windows, an even number: half with the dashboard
	Window  time.Duration // length of each window
	Settle  time.Duration // left out at the start of each window (start-up and shut-down)
	Key     time.Duration // a Tab is typed this often while the dashboard runs (0: none)
	// Terminal: the dashboard draws on this process's terminal (stdout), else into a
	// virtual 160×48 terminal.
	Terminal bool
}

// DashWindow is one window of the benchmark: the trainer's step times while the dashboard
// was, or was not, drawing.
type DashWindow struct {
	On       bool    `json:"dashboard"`
	Steps    int     `json:"steps"`
	MedianMs float64 `json:"median_step_ms"`
	MeanMs   float64 `json:"mean_step_ms"`
	Frames   int     `json:"frames,omitempty"`
	Keys     int     `json:"keys,omitempty"`
	// AllocMBps is the process's allocation rate and GCs its garbage collections in the window.
	AllocMBps float64 `json:"alloc_mb_per_s"`
	GCs       uint32  `json:"gcs"`
}

// DashResult is the benchmark's outcome.
type DashResult struct {
	Config     string       `json:"config"`
	Params     int          `json:"params"`
	BLAS       string       `json:"blas"`
	Terminal   string       `json:"terminal"`
	WindowS    float64      `json:"window_s"`
	SettleS    float64      `json:"settle_s"`
	Windows    []DashWindow `json:"windows"`
	PairRatios []float64    `json:"pair_ratios"`
	// MedianPairRatio is the median over window pairs of the dashboard window's median step
	// time over its neighbour's: above 1, the dashboard slows the trainer.
	MedianPairRatio float64 `json:"median_pair_ratio"`
	// OnMeanMs and OffMeanMs are the mean step times over all steps in each kind of window
	// (steps that ran an evaluation left out); MeanRatio is their ratio.
	OnMeanMs  float64 `json:"dashboard_mean_step_ms"`
	OffMeanMs float64 `json:"headless_mean_step_ms"`
	MeanRatio float64 `json:"mean_ratio"`
	// FramesPerS is the dashboard's rate of new screens while it ran; KeyMeanMs and
	// KeyMaxMs the time from a key to its new screen being ready.
	FramesPerS float64 `json:"frames_per_s"`
	Keys       int     `json:"keys"`
	KeyMeanMs  float64 `json:"key_mean_ms"`
	KeyMaxMs   float64 `json:"key_max_ms"`
	// KeyToScreenMs is the time from typing a key to the dashboard's next write to the
	// terminal: mean, median, 95th percentile and maximum.
	KeyToScreenMs [4]float64 `json:"key_to_screen_ms"`
	// BytesPerS and WritesPerS are what the dashboard wrote to the terminal; WriteBusy the
	// fraction of the time spent inside those writes and WriteMaxMs the longest.
	BytesPerS    float64 `json:"bytes_per_s"`
	WritesPerS   float64 `json:"writes_per_s"`
	WriteBusy    float64 `json:"write_busy"`
	WriteMaxMs   float64 `json:"write_max_ms"`
	TrainerSteps int     `json:"trainer_steps"`
}

// stepClock is a trainer sink that timestamps every training record.
type stepClock struct {
	t0   time.Time
	mu   sync.Mutex
	at   []time.Duration // when each training record arrived
	eval []bool          // whether the step ran an evaluation or a snapshot
}

func (c *stepClock) Record(r sessions.Record) {
	if r.State != sessions.Training {
		return
	}
	d := time.Since(c.t0)
	c.mu.Lock()
	c.at = append(c.at, d)
	c.eval = append(c.eval, r.Eval != nil || r.Snapshot != nil)
	c.mu.Unlock()
}
func (c *stepClock) Event(sessions.Event)            {}
func (c *stepClock) Checkpoint(*sessions.Checkpoint) {}

// window returns the step times (ms) of the steps that ended in [from, to), leaving out
// steps that ran an evaluation and the step after one.
func (c *stepClock) window(from, to time.Duration) []float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var ms []float64
	for i := 1; i < len(c.at); i++ {
		if c.at[i] < from || c.at[i] >= to || c.eval[i] || c.eval[i-1] {
			continue
		}
		ms = append(ms, float64(c.at[i]-c.at[i-1])/1e6)
	}
	return ms
}

// stampedWriter passes the dashboard's output on to a terminal (or discards it) and
// notes when each write began and how long it took.
type stampedWriter struct {
	w     io.Writer
	t0    time.Time
	mu    sync.Mutex
	at    []time.Duration // start of each write, since t0
	bytes int64
	busy  time.Duration // total time inside Write
	worst time.Duration
}

func (s *stampedWriter) Write(p []byte) (int, error) {
	t := time.Now()
	n, err := s.w.Write(p)
	d := time.Since(t)
	s.mu.Lock()
	s.at = append(s.at, t.Sub(s.t0))
	s.bytes += int64(n)
	s.busy += d
	s.worst = max(s.worst, d)
	s.mu.Unlock()
	return n, err
}

// firstAfter returns the start of the first write at or after t (false: none).
func (s *stampedWriter) firstAfter(t time.Duration) (time.Duration, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := sort.Search(len(s.at), func(i int) bool { return s.at[i] >= t })
	if i == len(s.at) {
		return 0, false
	}
	return s.at[i], true
}

// stampedFile is a stampedWriter on a terminal: bubbletea reads the terminal's size
// through Fd.
type stampedFile struct {
	*stampedWriter
	f *os.File
}

func (s stampedFile) Read(p []byte) (int, error) { return s.f.Read(p) }
func (s stampedFile) Close() error               { return nil }
func (s stampedFile) Fd() uintptr                { return s.f.Fd() }

// DashboardConfig is what Dashboard trains: the quick bijection preset, a million steps,
// with the backend blas.
func DashboardConfig(blas string) (runconfig.Config, error) {
	return config([]string{"--preset", runconfig.PresetQuick, "--steps", "1000000", "--blas", blas})
}

// Dashboard trains cfg (DashboardConfig) once and switches the
// dashboard on and off in alternating windows (off, on, on, off, off, on, …), so that
// drift in the machine's speed falls on both kinds of window alike. On a terminal
// (o.Terminal) the dashboard draws there; otherwise into a virtual 160×48 terminal with
// 256 colours. version names the program in the session it writes (in a temporary folder).
func Dashboard(ctx context.Context, cfg runconfig.Config, o DashOptions, version string, stderr io.Writer) (DashResult, error) {
	tr, err := lab.New(cfg)
	if err != nil {
		return DashResult{}, err
	}
	defer tr.Close()
	dir, err := os.MkdirTemp("", "windtunnel-bench-")
	if err != nil {
		return DashResult{}, fmt.Errorf("bench: %w", err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "dashboard"+sessions.Suffix)
	meta, err := launch.Meta(cfg, tr, path, version)
	if err != nil {
		return DashResult{}, err
	}
	w, err := sessions.Create(path, meta, sessions.WriterOptions{})
	if err != nil {
		return DashResult{}, fmt.Errorf("bench: %w", err)
	}
	out := &stampedWriter{w: io.Discard}
	// A live feed (the dashboard shows it as a run in progress) that takes no commands: the
	// benchmark's trainer must not pause or switch heads off.
	refuse := func(sessions.Event) error { return errors.New("bench --dashboard takes no commands") }
	live := sessions.NewLive(meta, sessions.ControlFunc(refuse), w)
	clock := &stepClock{t0: time.Now()}
	out.t0 = clock.t0
	tr.Attach(live)
	tr.Attach(clock)
	tc := cfg.Transformer
	res := DashResult{
		Config:  fmt.Sprintf("quick bijection V=20 d=%d L=%d H=%d batch=%d", tc.Width, tc.Layers, tc.Heads, cfg.Batch),
		Params:  tr.Model().NumParams(),
		BLAS:    tr.BLAS(),
		WindowS: o.Window.Seconds(),
		SettleS: o.Settle.Seconds(),
	}
	uiOpts := tui.Options{AltScreen: true, Output: out}
	if o.Terminal {
		res.Terminal = "this terminal"
		uiOpts.Output = stampedFile{out, os.Stdout}
		out.w = os.Stdout
	} else {
		res.Terminal = "virtual 160×48, 256 colours"
		uiOpts.Width, uiOpts.Height = 160, 48
		prev := lipgloss.ColorProfile()
		lipgloss.SetColorProfile(termenv.ANSI256)
		defer lipgloss.SetColorProfile(prev)
	}

	// The session is thrown away: the trainer ends without its final evaluation and snapshot.
	trainCtx, cancel := context.WithCancelCause(ctx)
	stop := func() { cancel(lab.ErrAbandoned) }
	defer stop()
	trained := make(chan error, 1)
	go pprof.Do(trainCtx, pprof.Labels("part", "trainer"), func(ctx context.Context) {
		r, err := tr.Run(ctx)
		live.End()
		res.TrainerSteps = r.Steps
		trained <- err
	})
	// Wait for the first steps (start-up, the first evaluation) before timing anything.
	for len(clock.window(0, time.Hour)) < 3 {
		select {
		case err := <-trained:
			w.Close()
			return res, fmt.Errorf("bench: the trainer stopped: %v", err)
		case <-ctx.Done():
			w.Close()
			return res, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	var frames, keys int
	var keyTime, keyMax time.Duration
	var onTime time.Duration
	var lat []float64 // ms from a typed key to the next write to the terminal
	for i := 0; i < o.Windows; i++ {
		on := (i%4 == 1) || (i%4 == 2)
		start := time.Since(clock.t0)
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		fmt.Fprintf(stderr, "bench: window %d/%d, dashboard %s\n", i+1, o.Windows, onOff(on))
		win := DashWindow{On: on}
		if on {
			st, typed, err := showDashboard(ctx, live, uiOpts, o.Window, o.Key, clock.t0)
			if err != nil {
				stop()
				<-trained
				w.Close()
				return res, err
			}
			win.Frames, win.Keys = st.Frames, st.Keys
			for _, k := range typed {
				if at, ok := out.firstAfter(k); ok {
					lat = append(lat, float64(at-k)/1e6)
				}
			}
			frames, keys, keyTime = frames+st.Frames, keys+st.Keys, keyTime+st.KeyTime
			keyMax = max(keyMax, st.KeyMax)
			onTime += o.Window
		} else {
			select {
			case <-ctx.Done():
			case <-time.After(o.Window):
			}
		}
		if ctx.Err() != nil {
			break
		}
		runtime.ReadMemStats(&m1)
		ms := clock.window(start+o.Settle, time.Since(clock.t0))
		win.AllocMBps = float64(m1.TotalAlloc-m0.TotalAlloc) / 1e6 / (time.Since(clock.t0) - start).Seconds()
		win.GCs = m1.NumGC - m0.NumGC
		win.Steps, win.MedianMs, win.MeanMs = len(ms), median(ms), derived.MeanFinite(ms)
		res.Windows = append(res.Windows, win)
	}
	stop()
	trainErr := <-trained
	if cerr := w.Close(); cerr != nil {
		return res, fmt.Errorf("bench: %w", cerr)
	}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	if trainErr != nil && !errors.Is(trainErr, lab.ErrAbandoned) && !errors.Is(trainErr, context.Canceled) {
		return res, fmt.Errorf("bench: trainer: %w", trainErr)
	}
	for i := 0; i+1 < len(res.Windows); i += 2 {
		a, b := res.Windows[i], res.Windows[i+1]
		if a.On {
			a, b = b, a
		}
		if a.MedianMs > 0 && b.MedianMs > 0 {
			res.PairRatios = append(res.PairRatios, b.MedianMs/a.MedianMs)
		}
	}
	// Mean step time over all timed steps of each kind: windows weighted by their steps.
	var sum, n [2]float64 // [off, on]
	for _, win := range res.Windows {
		k := 0
		if win.On {
			k = 1
		}
		sum[k] += win.MeanMs * float64(win.Steps)
		n[k] += float64(win.Steps)
	}
	res.MedianPairRatio = median(res.PairRatios)
	res.OffMeanMs, res.OnMeanMs = sum[0]/max(n[0], 1), sum[1]/max(n[1], 1)
	if res.OffMeanMs > 0 {
		res.MeanRatio = res.OnMeanMs / res.OffMeanMs
	}
	if onTime > 0 {
		res.FramesPerS = float64(frames) / onTime.Seconds()
		res.BytesPerS = float64(out.bytes) / onTime.Seconds()
		res.WritesPerS = float64(len(out.at)) / onTime.Seconds()
		res.WriteBusy = out.busy.Seconds() / onTime.Seconds()
		res.WriteMaxMs = float64(out.worst) / 1e6
	}
	res.Keys = keys
	if keys > 0 {
		res.KeyMeanMs = float64(keyTime) / float64(keys) / 1e6
		res.KeyMaxMs = float64(keyMax) / 1e6
	}
	if len(lat) > 0 {
		sort.Float64s(lat)
		res.KeyToScreenMs = [4]float64{derived.MeanFinite(lat), median(lat), lat[len(lat)*95/100], lat[len(lat)-1]}
	}
	return res, nil
}

// showDashboard runs the dashboard on feed for d, typing a Tab every key (0: never), and
// returns when each key was typed (since t0).
func showDashboard(ctx context.Context, feed sessions.Feed, opts tui.Options, d, key time.Duration, t0 time.Time) (tui.Stats, []time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	in, keys := io.Pipe()
	defer keys.Close()
	opts.Input = in
	var mu sync.Mutex
	var typed []time.Duration
	done := make(chan struct{})
	if key <= 0 {
		close(done)
	} else {
		go func() {
			defer close(done)
			t := time.NewTicker(key)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
					at := time.Since(t0)
					if _, err := keys.Write([]byte{'\t'}); err != nil {
						return
					}
					mu.Lock()
					typed = append(typed, at)
					mu.Unlock()
				}
			}
		}()
	}
	var st tui.Stats
	var err error
	pprof.Do(ctx, pprof.Labels("part", "dashboard"), func(ctx context.Context) {
		st, err = tui.Run(ctx, feed, opts)
	})
	keys.Close()
	<-done
	if err != nil {
		return st, nil, fmt.Errorf("bench: dashboard: %w", err)
	}
	return st, typed, nil
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// Print writes the benchmark's table and summary (or one JSON object).
func (r DashResult) Print(w io.Writer, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(w).Encode(r)
	}
	fmt.Fprintf(w, "dashboard overhead: %s, %d parameters, BLAS %s\n", r.Config, r.Params, r.BLAS)
	fmt.Fprintf(w, "%d windows of %.1f s (off, on, on, off, …; the first %.1f s of each left out), dashboard drawing to %s\n\n",
		len(r.Windows), r.WindowS, r.SettleS, r.Terminal)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "window\tdashboard\tsteps\tmedian ms/step\tmean ms/step\tframes\talloc MB/s\tGCs\t")
	for i, win := range r.Windows {
		fmt.Fprintf(tw, "%d\t%s\t%d\t%.2f\t%.2f\t%d\t%.1f\t%d\t\n", i+1, onOff(win.On), win.Steps, win.MedianMs, win.MeanMs, win.Frames, win.AllocMBps, win.GCs)
	}
	tw.Flush()
	rs := make([]string, len(r.PairRatios))
	for i, x := range r.PairRatios {
		rs[i] = fmt.Sprintf("%.3f", x)
	}
	fmt.Fprintf(w, "\nper pair, dashboard/headless median step: %s\n", strings.Join(rs, " "))
	fmt.Fprintf(w, "median pair ratio %.3f; mean step %.2f ms with the dashboard, %.2f ms without: ratio %.3f\n",
		r.MedianPairRatio, r.OnMeanMs, r.OffMeanMs, r.MeanRatio)
	fmt.Fprintf(w, "dashboard: %.1f new screens/s; %d keys: key handled and screen ready mean %.2f ms, max %.2f ms\n",
		r.FramesPerS, r.Keys, r.KeyMeanMs, r.KeyMaxMs)
	k := r.KeyToScreenMs
	fmt.Fprintf(w, "key typed to screen written: mean %.1f ms, median %.1f, 95%% %.1f, max %.1f\n", k[0], k[1], k[2], k[3])
	fmt.Fprintf(w, "terminal: %.1f writes/s, %.1f KB/s, %.2f%% of the time inside writes, longest %.2f ms\n",
		r.WritesPerS, r.BytesPerS/1024, 100*r.WriteBusy, r.WriteMaxMs)
	return nil
}
