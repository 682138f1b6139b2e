package sweep

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"windtunnel/backends/untrusted"
	"windtunnel/sessions"
	"windtunnel/sessions/runconfig"
)

// Names of what a sweep keeps in its folder beside the sessions.
const (
	// ManifestName is the sweep's description: its axes, points and Slurm jobs.
	ManifestName = "sweep.json"
	// ScriptName is the sbatch script of a Slurm sweep.
	ScriptName = "sweep.sbatch"
	// LogDir holds each point's output (local: <point>.log; Slurm: slurm-<job>_<index>.out).
	LogDir = "logs"
)

// format marks a manifest as a windtunnel sweep's.
const format = "windtunnel-sweep/1"

// maxManifestBytes bounds what is read of a manifest (it may come from someone else).
const maxManifestBytes = 16 << 20

// ErrOtherSweep is returned (wrapped) when a folder holds a sweep of another grid, or files
// that are not a sweep's.
var ErrOtherSweep = errors.New("holds another sweep")

// Job is one Slurm job array submitted for the sweep.
type Job struct {
	ID        string    `json:"id"`
	Indices   []int     `json:"indices"`
	Array     string    `json:"array"`
	Submitted time.Time `json:"submitted"`
}

// Manifest is a sweep folder's sweep.json.
type Manifest struct {
	Format  string    `json:"format"`
	Created time.Time `json:"created"`
	Grid    Grid      `json:"grid"`
	Points  []Point   `json:"points"`
	Jobs    []Job     `json:"slurm_jobs,omitempty"`

	dir   string
	added int // points Prepare added to the folder's sweep (Extend)
}

// Added is the number of points Prepare added to the sweep the folder held (a grid that
// extends it, such as more seeds); 0 for a new sweep or the same one.
func (m *Manifest) Added() int { return m.added }

// Dir is the sweep's folder.
func (m *Manifest) Dir() string { return m.dir }

// manifestPath is the sweep's manifest, sweep.json.
func (m *Manifest) manifestPath() string { return filepath.Join(m.dir, ManifestName) }

// EnginePid is the pid of the local engine training the sweep on this machine (it holds
// the manifest's lock: Here), or 0.
func (m *Manifest) EnginePid() int { return sessions.WriterPid(m.manifestPath()) }

// LogPath is the log of point p's local runs: logs/<point>.log.
func (m *Manifest) LogPath(p Point) string { return filepath.Join(m.dir, LogDir, p.Name+".log") }

// SessionPath is the session file of point p.
func (m *Manifest) SessionPath(p Point) string { return filepath.Join(m.dir, p.Session()) }

// Read reads the manifest of the sweep in dir, checking what it names (points, indices,
// names that stay inside the folder) before anything uses it.
func Read(dir string) (*Manifest, error) {
	path := filepath.Join(dir, ManifestName)
	data, err := runconfig.ReadUserFile(path, maxManifestBytes) // a FIFO refused, not waited on
	if err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	var m Manifest
	if err := untrusted.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("sweep: %s: not a sweep's: %w", path, err)
	}
	if m.Format != format {
		return nil, fmt.Errorf("sweep: %s: format %q, want %q", path, sessions.SafeText(m.Format), format)
	}
	if len(m.Points) == 0 || len(m.Points) > MaxPoints {
		return nil, fmt.Errorf("sweep: %s: %d points, want 1..%d", path, len(m.Points), MaxPoints)
	}
	seen := map[string]bool{}
	for i, p := range m.Points {
		if p.Index != i || !validName(p.Name) || seen[p.Name] || len(p.Args) > 256 {
			return nil, fmt.Errorf("sweep: %s: point %d (%q) is not one a sweep writes", path, i, sessions.SafeText(p.Name))
		}
		for _, a := range p.Args { // the flags a sweep sets itself (--out, --resume) are its own
			if err := checkArg(a); err != nil {
				return nil, fmt.Errorf("sweep: %s: point %d (%s) is not one a sweep writes: %v", path, i, p.Name, sessions.SafeText(err.Error()))
			}
		}
		seen[p.Name] = true
	}
	for _, j := range m.Jobs {
		for _, ix := range j.Indices {
			if ix < 0 || ix >= len(m.Points) {
				return nil, fmt.Errorf("sweep: %s: job %s names point %d of %d", path, sessions.SafeText(j.ID), ix, len(m.Points))
			}
		}
	}
	m.dir = dir
	return &m, nil
}

// Prepare checks that dir can hold the sweep of grid g and its points, without writing
// anything: a folder that does not exist yet or is empty holds a new sweep (the manifest
// returned is not yet written: Save does it), one holding this sweep's manifest (the same
// points) continues it, with the jobs it records, and one holding a sweep whose every point
// this grid has (more seeds, more values of an axis whose points are already named by it)
// is extended: its points keep their indices, the new ones follow (Added). A folder holding
// another sweep, or files that are not a sweep's, is an error wrapping ErrOtherSweep.
func Prepare(dir string, g Grid, points []Point) (*Manifest, error) {
	old, err := Read(dir)
	switch {
	case err == nil:
		if samePoints(old.Points, points) {
			for i := range old.Points { // the steps of this build's configurations
				old.Points[i].Steps = points[i].Steps
			}
			return old, nil
		}
		if ext, ok := extend(old.Points, points); ok {
			old.added = len(ext) - len(old.Points)
			old.Points, old.Grid = ext, g
			return old, nil
		}
		return nil, fmt.Errorf("sweep: %s %w (%d points, the first %s), not this grid (%d points, the first %s), nor one that only adds to it: choose another --out, or give no grid to continue it",
			dir, ErrOtherSweep, len(old.Points), old.Points[0].Name, len(points), points[0].Name)
	case !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("%w (%w)", err, ErrOtherSweep)
	}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	if len(entries) > 0 {
		return nil, fmt.Errorf("sweep: %s %w: it holds %s and no %s; choose an empty or new --out", dir, ErrOtherSweep, entries[0].Name(), ManifestName)
	}
	return &Manifest{Format: format, Created: time.Now().UTC().Truncate(time.Second), Grid: g, Points: points, dir: dir}, nil
}

// extend is the points of a sweep that had old and now has points: old's, at their indices,
// then the points not among them (none, for an extended sweep given again), numbered on;
// false unless every old point is one of points (its name and flags).
func extend(old, points []Point) ([]Point, bool) {
	byName := map[string]Point{}
	for _, p := range points {
		byName[p.Name] = p
	}
	out := make([]Point, 0, len(points))
	for _, o := range old {
		p, ok := byName[o.Name]
		if !ok || !slices.Equal(o.Args, p.Args) {
			return nil, false
		}
		o.Steps = p.Steps
		out = append(out, o)
		delete(byName, o.Name)
	}
	if len(out)+len(byName) != len(points) {
		return nil, false // two points of one name: not a grid's
	}
	for _, p := range points {
		if _, ok := byName[p.Name]; ok {
			p.Index = len(out)
			out = append(out, p)
		}
	}
	return out, true
}

// samePoints reports whether two grids have the same points (names and flags, in order).
func samePoints(a, b []Point) bool {
	return slices.EqualFunc(a, b, func(x, y Point) bool {
		return x.Index == y.Index && x.Name == y.Name && slices.Equal(x.Args, y.Args)
	})
}

// Save creates the folder (and its logs folder) if needed and writes the manifest,
// atomically (a temporary file renamed over the old one).
func (m *Manifest) Save() error {
	if err := os.MkdirAll(m.dir, sessions.DirMode); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	// logs/ is ours: a link planted there is refused (the points' logs would go where it points).
	if err := sessions.MakeOutputDir(filepath.Join(m.dir, LogDir), sessions.DirMode); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("sweep: manifest: %w", err)
	}
	if err := sessions.WriteOutput(filepath.Join(m.dir, ManifestName), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	return nil
}

// CopyManifest copies the manifest of the sweep in dir, checked as Read checks it, into the
// folder out, so that out continues the sweep once its sessions are copied there too (slim).
// It never replaces a manifest already in out; copied is false when dir holds no sweep.
func CopyManifest(dir, out string) (copied bool, err error) {
	src := filepath.Join(dir, ManifestName)
	if _, err := os.Lstat(src); errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if _, err := Read(dir); err != nil {
		return false, err
	}
	dst := filepath.Join(out, ManifestName)
	if _, err := os.Lstat(dst); err == nil {
		return false, fmt.Errorf("sweep: %s already exists: a folder holds one sweep, and a copy replaces nothing", dst)
	}
	data, err := runconfig.ReadUserFile(src, maxManifestBytes)
	if err != nil {
		return false, fmt.Errorf("sweep: %w", err)
	}
	if err := sessions.WriteOutput(dst, data, sessions.FileMode); err != nil {
		return false, fmt.Errorf("sweep: %w", err)
	}
	return true, nil
}

// SetAside renames a point's session that cannot be read (a run killed before its first
// commit) to <point>.wtlab.unreadable-<time>, so that the point starts again and the file
// is kept for a look.
func (m *Manifest) SetAside(p Point, now time.Time) (string, error) {
	from := m.SessionPath(p)
	to := sessions.SetAsidePath(from, now)
	if err := os.Rename(from, to); err != nil {
		return "", fmt.Errorf("sweep: %w", err)
	}
	return to, nil
}

// Describe is the grid in one line: "bijection,hmm × transformer × lr 1e-3,3e-4 × seed 1,2";
// a random search's drawn axes are one part, "20 draws (seed 7) of lr ~
// log_uniform_values(0.0001, 0.01), width 64,96". Values are shown as given; print it through
// sessions.SafeText when it comes from a file.
func (g Grid) Describe() string {
	var parts, drawn []string
	at := -1
	for _, a := range g.Axes {
		vals := strings.Join(a.Values, ",")
		if a.Dist != nil {
			vals = "~ " + a.Dist.String()
		}
		switch {
		case a.Flag == "task" || a.Flag == "model":
			parts = append(parts, vals)
		case g.Random != nil && !crossed(a.Flag):
			if at < 0 {
				at = len(parts)
				parts = append(parts, "")
			}
			drawn = append(drawn, a.Flag+" "+vals)
		default:
			parts = append(parts, a.Flag+" "+vals)
		}
	}
	if at >= 0 {
		parts[at] = fmt.Sprintf("%d draws (seed %d) of %s", g.Random.Count, g.Random.Seed, strings.Join(drawn, ", "))
	}
	return strings.Join(parts, " × ")
}
