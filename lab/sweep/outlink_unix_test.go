//go:build unix

package sweep

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"windtunnel/sessions"
)

// TestSweepFilesNotThroughLinks (issue 50 item 6): the sbatch script was written to
// sweep.sbatch.tmp with os.WriteFile, following a link planted there to overwrite its
// target. The manifest and the script now go through sessions.WriteOutput: a link at
// either name is refused and its target left as it was; a link at the old temporary name is
// never touched; a link at logs/ (whose target folder would receive the points' logs) is
// refused too.
func TestSweepFilesNotThroughLinks(t *testing.T) {
	const victimText = "precious\n"
	for _, name := range []string{ManifestName, ScriptName, ScriptName + ".tmp", LogDir} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			g := Grid{Axes: []Axis{{Flag: "task", Values: []string{"bijection"}}}}
			pts, err := g.Points()
			if err != nil {
				t.Fatal(err)
			}
			m, err := Prepare(dir, g, pts)
			if err != nil {
				t.Fatal(err)
			}
			victim := filepath.Join(t.TempDir(), "victim")
			if err := os.WriteFile(victim, []byte(victimText), 0o600); err != nil {
				t.Fatal(err)
			}
			target := victim
			if name == LogDir {
				target = filepath.Dir(victim)
			}
			if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
			err = m.Save()
			if err == nil {
				_, err = Slurm{Exe: "/bin/true", Parallel: 1}.WriteScript(m)
			}
			if name != ScriptName+".tmp" && !errors.Is(err, sessions.ErrOutputLink) {
				t.Errorf("error %v, want a refused link", err)
			}
			if b, rerr := os.ReadFile(victim); rerr != nil || string(b) != victimText {
				t.Errorf("the link's target now holds %.40q (%v)", b, rerr)
			}
		})
	}
}
