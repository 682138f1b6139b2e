package lab

import (
	"context"
	"math"
	"testing"

	"windtunnel/sessions"
)

// runSnapshots trains c and returns every snapshot that carries geometry.
func runSnapshots(t *testing.T, c Config) ([]sessions.Record, Result) {
	t.Helper()
	tr, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	var snaps []sessions.Record
	done := make(chan struct{})
	go func() {
		for r := range tr.Records() {
			if r.Snapshot != nil && r.Snapshot.ProbeN > 0 {
				snaps = append(snaps, r)
			}
		}
		close(done)
	}()
	res, err := tr.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	<-done
	return snaps, res
}

func TestGeometrySnapshots(t *testing.T) {
	c := tiny("transformer")
	c.Steps, c.ProbeEvery, c.GeometryN = 600, 200, 32
	snaps, res := runSnapshots(t, c)
	if len(snaps) != 3 {
		t.Fatalf("%d geometry snapshots, want 3 (steps 200, 400, 600)", len(snaps))
	}
	for i, r := range snaps {
		sn := r.Snapshot
		if r.Step != 200*(i+1) || sn.ProbeN != 32 {
			t.Fatalf("snapshot %d at step %d on %d sequences", i, r.Step, sn.ProbeN)
		}
		if len(sn.KeyOrthogonality) != 2 || len(sn.KeyOrthogonality[0]) != 2 || len(sn.AttentionMass) != 2 || len(sn.QKAlignment) != 2 {
			t.Fatalf("snapshot %d: layer × head shapes %v %v", i, sn.KeyOrthogonality, sn.AttentionMass)
		}
		for _, row := range sn.KeyOrthogonality {
			for _, v := range row {
				if !(v >= 0 && v <= 1) {
					t.Errorf("key orthogonality %g outside [0, 1]", v)
				}
			}
		}
		if !(sn.KeyOrthogonalityRandom > 0 && sn.KeyOrthogonalityRandom < 1) {
			t.Errorf("random baseline %g", sn.KeyOrthogonalityRandom)
		}
		m := sn.Manifold
		if m == nil || len(m.Share) != 3 || m.Share[0] < m.Share[1] || m.Share[0]+m.Share[1]+m.Share[2] > 1+1e-9 {
			t.Fatalf("snapshot %d: manifold %+v", i, m)
		}
		if len(m.Points) != len(m.Entropy) || len(m.Points) == 0 {
			t.Errorf("manifold has %d points and %d entropies", len(m.Points), len(m.Entropy))
		}
		if len(sn.Ablation) != 2*2+4 {
			t.Errorf("ablation table has %d rows, want 8 (4 heads, 2 attention, 2 MLP)", len(sn.Ablation))
		}
		f := sn.Frame
		if f == nil || len(f.Points) != i+1 {
			t.Fatalf("snapshot %d: frame %+v", i, f)
		}
		last := f.Points[i]
		for l, d := range last.ToLatest {
			if math.Abs(float64(d)) > 1e-6 {
				t.Errorf("snapshot %d: the latest frame's distance to itself is %g at layer %d", i, d, l)
			}
		}
		if i == 0 && !math.IsNaN(float64(last.Drift[0])) {
			t.Errorf("first snapshot has a drift %g", last.Drift[0])
		} else if i > 0 && !(last.Drift[0] >= 0 && last.Drift[0] <= 2) {
			t.Errorf("snapshot %d drift %g outside [0, 2]", i, last.Drift[0])
		}
		if i > 0 && float64(f.Points[0].ToLatest[0]) <= 0 {
			t.Errorf("snapshot %d: the first frame is at distance %g from the latest", i, f.Points[0].ToLatest[0])
		}
	}
	if res.GeometryS <= 0 {
		t.Errorf("geometry time %g", res.GeometryS)
	}
	t.Logf("geometry %.2f s, eval %.2f s of %.2f s", res.GeometryS, res.EvalS, res.WallS)
}

func TestGeometryWithoutAttention(t *testing.T) {
	c := tiny("mlp")
	c.Steps, c.ProbeEvery, c.GeometryN = 200, 100, 16
	snaps, _ := runSnapshots(t, c)
	if len(snaps) != 2 {
		t.Fatalf("%d snapshots, want 2", len(snaps))
	}
	sn := snaps[1].Snapshot
	if sn.KeyOrthogonality != nil || sn.AttentionMass != nil || sn.QKAlignment != nil {
		t.Errorf("an MLP snapshot has attention diagnostics: %+v", sn)
	}
	if sn.Manifold == nil || len(sn.Ablation) == 0 {
		t.Errorf("an MLP snapshot lacks the manifold or the ablation table: %+v", sn)
	}
	for _, e := range sn.Ablation {
		if e.Unit != "layer" || e.Head != -1 {
			t.Errorf("MLP ablation row %+v", e)
		}
	}
}
