package sweep

import (
	"os"
	"path/filepath"
	"testing"
)

// TestEngineNotesAreNoFailure (issue 50): the lines the local engine writes in a point's log
// (the command it starts; a run its SIGTERM ended as it started) are never read as the
// point's failure: a point whose log holds only those is missing, to be started again, and
// a run's own last line is still its failure.
func TestEngineNotesAreNoFailure(t *testing.T) {
	cases := []struct {
		name, log string
		want      State
		detail    string
	}{
		{"started, then cancelled", "# 2026-01-02T03:04:05Z /bin/windtunnel run --headless --out x.wtlab\n" +
			"# 2026-01-02T03:04:06Z stopped by SIGTERM as it started; the next run of the sweep resumes it\n", Missing, ""},
		{"failed after its start", "# 2026-01-02T03:04:05Z /bin/windtunnel run\nwindtunnel: --lr 0: want > 0\n", Failed, "windtunnel: --lr 0: want > 0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "sw")
			g, pts := testGrid(t, "1e-3")
			m, err := Prepare(dir, g, pts)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Save(); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(m.LogPath(pts[0]), []byte(c.log), 0o600); err != nil {
				t.Fatal(err)
			}
			if st := m.Status(nil)[0]; st.State != c.want || st.Detail != c.detail {
				t.Errorf("%s (%q), want %s (%q)", st.State, st.Detail, c.want, c.detail)
			}
		})
	}
}
