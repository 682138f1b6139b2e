package figures

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"windtunnel/sessions/runconfig"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"windtunnel/backends/untrusted"
	"windtunnel/sessions"
	"windtunnel/sessions/derived"
)

// Formats returns the output formats Render accepts.
func Formats() []string { return []string{"png", "svg", "pdf"} }

// ValidFormat reports whether format is one of Formats.
func ValidFormat(format string) bool {
	for _, f := range Formats() {
		if f == format {
			return true
		}
	}
	return false
}

// Default figure size in pixels (PNG; SVG and PDF get the same size at 96 dpi).
const (
	DefaultWidth  = 960
	DefaultHeight = 600
	dpi           = 96
)

// The figure sizes Render and RenderLLM draw, in pixels each way (plot's and llm's --width
// and --height).
const (
	MinSize = 64
	MaxSize = 8192
)

// CheckSize refuses a figure size outside MinSize..MaxSize, naming the flags.
func CheckSize(width, height int) error {
	if width < MinSize || width > MaxSize || height < MinSize || height > MaxSize {
		return fmt.Errorf("--width %d --height %d out of range: want %d..%d pixels each", width, height, MinSize, MaxSize)
	}
	return nil
}

// Options says how Render writes the figures.
type Options struct {
	// Format is "png", "svg" or "pdf" ("" means png).
	Format string
	// Width and Height are the figure size in pixels (0: DefaultWidth × DefaultHeight).
	Width, Height int
}

// File is one figure written by Render.
type File struct {
	// Name is the file's base name, Path its path and Title the figure's title on one line
	// (its lines joined by "; "), so a listing of one figure a line holds.
	Name  string `json:"name"`
	Path  string `json:"path"`
	Title string `json:"title"`
}

// Run is one session read for plotting.
type Run struct {
	// Path is the session file.
	Path string
	// Meta is the session's description and Config the run's configuration.
	Meta   sessions.Meta
	Config runconfig.Config
	// Labels are what a person called the run (derived.Run.Labels).
	Labels sessions.Labels
	// Evals are the whole-model evaluations (ablated ones left out), in step order.
	Evals []sessions.Record
	// Snapshot is the newest geometry snapshot (nil when none) and SnapshotStep its step.
	Snapshot     *sessions.Snapshot
	SnapshotStep int
	// FrameRatio is the authors' frame statistic over every snapshot (nil without one), and
	// Dissociation the pre-registered rule applied to it with bit error (b) (nil without it).
	FrameRatio   *derived.FrameRatios
	Dissociation *derived.Dissociation
	// Pauses are the intervals the run was paused, which the wall-time axes leave out
	// (derived.ActiveWall).
	Pauses []derived.Pause
	// UserMetrics are the user's own metrics (windtunnel metric), in order of name and step.
	UserMetrics []sessions.UserMetric
	// key identifies the configuration (derived.Key); "" when it cannot be read, and the run
	// is then a group of its own.
	key string
}

// Load reads the session at path.
func Load(path string) (Run, error) {
	dr, err := derived.ReadRun(path)
	if err != nil {
		return Run{}, fmt.Errorf("figures: load: %w", err)
	}
	run := Run{Path: path, Meta: dr.Meta, Labels: dr.Labels, Evals: dr.Evals, Snapshot: dr.Snapshot, SnapshotStep: dr.SnapshotStep,
		FrameRatio: dr.FrameRatio, Dissociation: dr.Dissociation, Pauses: dr.Pauses, key: dr.Key}
	if len(run.Meta.Config) > 0 {
		if err := untrusted.Unmarshal(run.Meta.Config, &run.Config); err != nil {
			return Run{}, fmt.Errorf("figures: load %s: config: %w", path, err)
		}
	}
	if run.UserMetrics, err = loadUserMetrics(path); err != nil {
		return Run{}, fmt.Errorf("figures: load: %w", err)
	}
	if run.Config.Task == "" {
		run.Config.Task = run.Meta.Task
	}
	if run.Config.Model == "" {
		run.Config.Model = run.Meta.Model
	}
	return run, nil
}

// LoadPaths reads every session named: a file is read as is, a folder for its sessions
// (sessions.Find: its own files, in name order). A folder's unfinished runs are left out
// (as compare --from and report leave them out), each with a note in skipped naming it and
// why (derived.SessionRun.Unfinished); a file named on its own is drawn whatever its state.
// Any other error stops it; the error names the path.
func LoadPaths(paths []string) (runs []Run, skipped []string, err error) {
	found, err := sessions.Find(paths, sessions.FindOptions{})
	if err != nil {
		return nil, nil, fmt.Errorf("figures: %w", err)
	}
	for _, f := range found {
		if !f.Named {
			// A run that has only just started has no evaluation yet (ReadSessionRun's
			// error) but its configuration and state are read: it is unfinished too.
			if sr, err := derived.ReadSessionRun(f.Path); !sr.Done && (err == nil || sr.Config.Steps > 0) {
				skipped = append(skipped, f.Path+": "+sr.Unfinished())
				continue
			}
		}
		r, err := Load(f.Path)
		if err != nil {
			return nil, nil, err
		}
		runs = append(runs, r)
	}
	return runs, skipped, nil
}

// Group is the runs of one configuration (its seeds) and the name its figures carry.
type Group struct {
	Name string
	// Label names what tells the group from the others of its task and model
	// (derived.Labels, e.g. "steps 3000"); "" when it is the only one.
	Label string
	Runs  []Run
}

// groupKey is a run's configuration key, or one of its own when its configuration cannot
// be read (such a run is never pooled with another).
func groupKey(r Run, i int) string {
	if r.key != "" {
		return r.key
	}
	if k, err := derived.Key(r.Meta); err == nil {
		return k
	}
	return fmt.Sprintf("\x00run %d %s", i, r.Path)
}

// Groups gathers runs by configuration under the rule of sessions/derived (seeds of one
// configuration together; the seed, workers, BLAS, cadences and geometry size aside), in
// order of first appearance; a group's name is task-model, numbered where several
// configurations share it, and its Label says what differs between those, or is the name
// its runs were given (derived.CommonName) when they all carry one.
func Groups(runs []Run) []Group {
	keys := make([]string, len(runs))
	for i, r := range runs {
		keys[i] = groupKey(r, i)
	}
	var out []Group
	for _, idx := range derived.GroupIndices(keys) {
		g := Group{Name: runs[idx[0]].Config.Task + "-" + runs[idx[0]].Config.Model}
		for _, i := range idx {
			g.Runs = append(g.Runs, runs[i])
		}
		out = append(out, g)
	}
	byName := map[string][]int{}
	var names []string
	for i, g := range out {
		if byName[g.Name] == nil {
			names = append(names, g.Name)
		}
		byName[g.Name] = append(byName[g.Name], i)
	}
	for _, name := range names {
		idx := byName[name]
		if len(idx) < 2 {
			continue
		}
		cfgs := make([]json.RawMessage, len(idx))
		for j, i := range idx {
			cfgs[j] = out[i].Runs[0].Meta.Config
		}
		labels, err := derived.Labels(cfgs)
		for j, i := range idx {
			out[i].Name = fmt.Sprintf("%s-%d", name, j+1)
			if err == nil {
				out[i].Label = labels[j]
			}
		}
	}
	for i, g := range out {
		names := make([]string, len(g.Runs))
		for j, r := range g.Runs {
			names[j] = r.Labels.Name
		}
		if n := derived.CommonName(names); n != "" {
			out[i].Label = n
		}
	}
	return out
}

// seedsLabel describes a group's seeds for a title: "seed 3", "3 seeds" (what tells its
// configuration apart is in heading).
func seedsLabel(g Group) string {
	if len(g.Runs) == 1 {
		return fmt.Sprintf("seed %d", g.Runs[0].Config.Seed)
	}
	return fmt.Sprintf("%d seeds", len(g.Runs))
}

// figure is one plot, or several panels, ready to write.
type figure struct {
	name  string // base name without extension
	title string
	plot  *plot.Plot
	// panels, when set, are drawn instead of plot, each in its part of the figure; short,
	// when set, instead of them on a page too low for them (shortBody).
	panels, short []panel
}

// Render writes every figure the runs have data for into dir (created if needed) and
// returns them in order: per configuration its errors, entropy and lengths figures and,
// from the first seed's newest snapshot, its keys, manifold, ablation, frame and qk figures
// (each only where the snapshot holds its data) and the user's own metrics (where any were
// recorded), then the architecture table over all runs,
// the precision frontier and, for each pair of configurations that differ only in the value
// LR multiplier, Paper II's two arms (timescalesFigures).
func Render(runs []Run, dir string, opt Options) ([]File, error) {
	opt, err := opt.normalised()
	if err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("figures: render: no runs")
	}
	return writeFigures(figuresOf(runs), dir, opt)
}

// normalised is opt with its defaults filled in (png, the default size), or an error for an
// unknown format.
func (opt Options) normalised() (Options, error) {
	if opt.Format == "" {
		opt.Format = "png"
	}
	if !ValidFormat(opt.Format) {
		return opt, fmt.Errorf("figures: format %q: want one of %s", opt.Format, strings.Join(Formats(), ", "))
	}
	if opt.Width <= 0 || opt.Height <= 0 {
		opt.Width, opt.Height = DefaultWidth, DefaultHeight
	}
	return opt, nil
}

// writeFigures saves figs into dir (created if needed), each as NAME.FORMAT, and returns them.
func writeFigures(figs []figure, dir string, opt Options) ([]File, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("figures: render: %w", err)
	}
	var files []File
	for _, f := range figs {
		name := f.name + "." + opt.Format
		path := filepath.Join(dir, name)
		if err := save(f, path, opt); err != nil {
			return files, err
		}
		files = append(files, File{Name: name, Path: path, Title: oneLine(f.title)})
	}
	return files, nil
}

// figuresOf builds every figure the runs have data for, in Render's order.
func figuresOf(runs []Run) []figure {
	var figs []figure
	for _, g := range Groups(runs) {
		for _, build := range []func(Group) (figure, bool){errorsFigure, entropyFigure, lengthsFigure,
			keysFigure, manifoldFigure, simplexFigure, ablationFigure, frameFigure, jlensFigure, qkFigure} {
			if f, ok := build(g); ok {
				figs = append(figs, f)
			}
		}
		figs = append(figs, userMetricsFigures(g)...)
	}
	if f, ok := tableFigure(runs); ok {
		figs = append(figs, f)
	}
	if f, ok := frontierFigure(runs); ok {
		figs = append(figs, f)
	}
	return append(figs, timescalesFigures(runs)...)
}

// save writes f to path at the options' size and format: a PNG is drawn at pageDPI on
// its page (crisp text at any size), a vector format at its size, scaled (drawSized).
func save(f figure, path string, opt Options) error {
	var c vg.CanvasWriterTo
	var err error
	switch opt.Format {
	case "png":
		W, H := pageSize(opt.Width, opt.Height)
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(W, H), vgimg.UseDPI(pageDPI(opt.Width, opt.Height)))}
		drawFigure(draw.New(c), f)
	default:
		c, err = draw.NewFormattedCanvas(vg.Length(opt.Width)*vg.Inch/dpi, vg.Length(opt.Height)*vg.Inch/dpi, opt.Format)
		if err == nil {
			drawSized(c, f, opt.Width, opt.Height)
		}
	}
	if err == nil { // whole or not at all, never through a link (sessions.WriteOutputFunc)
		err = sessions.WriteOutputFunc(path, 0o644, func(w io.Writer) error { _, err := c.WriteTo(w); return err })
	}
	if err != nil {
		return fmt.Errorf("figures: save %s: %w", path, err)
	}
	return nil
}

// floorBits is the smallest value a log axis shows; smaller (and zero) values are drawn there.
const floorBits = 1e-4

// logFloor clamps v to the log axis' floor (NaN stays NaN).
func logFloor(v float64) float64 {
	if math.IsNaN(v) {
		return v
	}
	return math.Max(v, floorBits)
}

// oneLine is a title of several lines as one: its lines, trimmed, joined by "; ".
func oneLine(title string) string {
	var parts []string
	for _, l := range strings.FieldsFunc(title, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, "; ")
}
