package lab

import (
	"context"
	"reflect"
	"testing"
	"windtunnel/diagnostics"
	"windtunnel/sessions/runconfig"

	"windtunnel/sessions"
)

// TestInitialParamsMatchStepZero checks that the parameters rebuilt from the configuration's
// seed are exactly the model's at step 0, at both precisions.
func TestInitialParamsMatchStepZero(t *testing.T) {
	for _, prec := range []string{"", "float64"} {
		c := tiny("transformer")
		c.Precision = prec
		tr, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		init, err := tr.initialParams()
		if err != nil {
			t.Fatal(err)
		}
		ps := tr.Model().Params()
		if len(init) != len(ps) {
			t.Fatalf("%q: %d rebuilt parameters, the model has %d", prec, len(init), len(ps))
		}
		for i, p := range ps {
			if init[i].Name != p.Name || !reflect.DeepEqual(init[i].Value.Data(), p.Value.Data()) {
				t.Errorf("%q: parameter %s differs from its rebuilt value", prec, p.Name)
			}
		}
		tr.Close()
	}
}

// TestGeometryFidelity checks the statistics recorded side by side: the authors' key
// orthogonality (now and at initialisation, layer × head, over the V value tokens; the
// initial one identical in every snapshot and equal to the statistic of the step-0
// parameters) and the value manifold over one sequence (its P scored positions) beside the
// one over many. A trainer resumed from the run's last checkpoint records the same initial
// statistic.
func TestGeometryFidelity(t *testing.T) {
	t.Parallel()
	c := tiny("transformer")
	c.Steps, c.ProbeEvery, c.GeometryN, c.CheckpointEvery = 400, 200, 16, 0
	tr, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	ps0, err := tr.initialParams()
	if err != nil {
		t.Fatal(err)
	}
	step0, err := embedKeyOrthogonality(tr.Model().Params(), valueTokens(tr.Tunnel(), nil), 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	if rebuilt, _ := embedKeyOrthogonality(ps0, valueTokens(tr.Tunnel(), nil), 2, 2); !reflect.DeepEqual(rebuilt, step0) {
		t.Fatalf("rebuilt initial statistic %v, step 0 %v", rebuilt, step0)
	}
	col := &collector{}
	tr.Attach(col)
	if _, err := tr.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	var snaps []*sessions.Snapshot
	for _, r := range col.records {
		if r.Snapshot != nil && r.Snapshot.ProbeN > 0 {
			snaps = append(snaps, r.Snapshot)
		}
	}
	if len(snaps) != 2 {
		t.Fatalf("%d geometry snapshots, want 2", len(snaps))
	}
	const P = 7 // bijection V=8: 7 scored positions
	for i, sn := range snaps {
		for name, m := range map[string][][]float64{"now": sn.KeyOrthogonalityEmbed, "init": sn.KeyOrthogonalityEmbedInit} {
			if len(m) != 2 || len(m[0]) != 2 || len(m[1]) != 2 {
				t.Fatalf("snapshot %d: %s statistic shape %v, want 2 layers × 2 heads", i, name, m)
			}
			for _, row := range m {
				for _, v := range row {
					if !(v >= 0 && v <= 1) {
						t.Errorf("snapshot %d: %s statistic %g outside [0, 1]", i, name, v)
					}
				}
			}
		}
		if sn.KeyOrthogonalityEmbedTokens != 8 {
			t.Errorf("snapshot %d: over %d tokens, want the 8 values", i, sn.KeyOrthogonalityEmbedTokens)
		}
		if !reflect.DeepEqual(sn.KeyOrthogonalityEmbedInit, step0) {
			t.Errorf("snapshot %d: initial statistic %v, step 0 gives %v", i, sn.KeyOrthogonalityEmbedInit, step0)
		}
		if reflect.DeepEqual(sn.KeyOrthogonalityEmbed, sn.KeyOrthogonalityEmbedInit) {
			t.Errorf("snapshot %d: the statistic did not move from initialisation: %v", i, sn.KeyOrthogonalityEmbed)
		}
		m1, m := sn.ManifoldOne, sn.Manifold
		if m1 == nil || m == nil {
			t.Fatalf("snapshot %d: manifolds %v %v", i, m, m1)
		}
		if len(m1.Points) != P || len(m1.Entropy) != P || m1.Sequences != 1 || m1.N != P || len(m1.Share) != 3 {
			t.Errorf("snapshot %d: one-sequence manifold %d points, %d entropies, %d sequences, n %d, shares %v",
				i, len(m1.Points), len(m1.Entropy), m1.Sequences, m1.N, m1.Share)
		}
		if m.Sequences != 16 || m.N != 16*P {
			t.Errorf("snapshot %d: many-sequence manifold over %d sequences, %d points", i, m.Sequences, m.N)
		}
		for p, h := range m1.Entropy {
			if h != tr.geometryBatch().EntropyBits[p] {
				t.Errorf("one-sequence point %d has entropy %g, want the first sequence's %g", p, h, tr.geometryBatch().EntropyBits[p])
			}
		}
	}
	if !reflect.DeepEqual(snaps[0].KeyOrthogonalityEmbedInit, snaps[1].KeyOrthogonalityEmbedInit) {
		t.Errorf("initial statistic changed between snapshots: %v, %v", snaps[0].KeyOrthogonalityEmbedInit, snaps[1].KeyOrthogonalityEmbedInit)
	}
	t.Logf("authors' key orthogonality now %v, init %v; manifold PC1 %.2f (many) vs %.2f (one), |ρ| %.3f vs %.3f",
		snaps[1].KeyOrthogonalityEmbed, snaps[1].KeyOrthogonalityEmbedInit, snaps[1].Manifold.Share[0], snaps[1].ManifoldOne.Share[0],
		abs(float64(snaps[1].Manifold.Spearman)), abs(float64(snaps[1].ManifoldOne.Spearman)))

	// Resumed from the last checkpoint: the initial statistic is rebuilt, the current one
	// matches the run's last snapshot.
	if len(col.checkpoints) == 0 {
		t.Fatal("no checkpoint")
	}
	tr2, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	defer tr2.Close()
	if err := tr2.LoadParams(col.checkpoints[len(col.checkpoints)-1]); err != nil {
		t.Fatal(err)
	}
	sn := &sessions.Snapshot{}
	if err := tr2.Geometry(sn, diagnostics.Scores{}, false); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sn.KeyOrthogonalityEmbedInit, step0) || !reflect.DeepEqual(sn.KeyOrthogonalityEmbed, snaps[1].KeyOrthogonalityEmbed) {
		t.Errorf("resumed: now %v init %v, the run recorded now %v init %v", sn.KeyOrthogonalityEmbed, sn.KeyOrthogonalityEmbedInit,
			snaps[1].KeyOrthogonalityEmbed, step0)
	}
}

// TestGeometryFidelityWithoutAttention checks that an MLP records no authors' key
// orthogonality but both value-manifold samplings.
func TestGeometryFidelityWithoutAttention(t *testing.T) {
	c := tiny("mlp")
	c.Steps, c.ProbeEvery, c.GeometryN = 100, 100, 16
	snaps, _ := runSnapshots(t, c)
	if len(snaps) != 1 {
		t.Fatalf("%d snapshots, want 1", len(snaps))
	}
	sn := snaps[0].Snapshot
	if sn.KeyOrthogonalityEmbed != nil || sn.KeyOrthogonalityEmbedInit != nil || sn.KeyOrthogonalityEmbedTokens != 0 {
		t.Errorf("an MLP snapshot has the authors' key orthogonality: %v %v", sn.KeyOrthogonalityEmbed, sn.KeyOrthogonalityEmbedInit)
	}
	if sn.ManifoldOne == nil || len(sn.ManifoldOne.Points) != 7 {
		t.Errorf("an MLP snapshot lacks the one-sequence manifold: %+v", sn.ManifoldOne)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestGeometryFidelityTasks takes a geometry snapshot of the quick preset's transformer on
// the HMM and recall tunnels: the authors' statistic over the HMM's evidence symbols and the
// recall values (the class tokens), both manifolds where there are 3 or more scored
// positions.
func TestGeometryFidelityTasks(t *testing.T) {
	if testing.Short() {
		t.Skip("trains the quick preset's transformer on two tunnels with snapshots")
	}
	t.Parallel()
	for _, task := range []string{"hmm", "recall"} {
		t.Run(task, func(t *testing.T) {
			c, err := runconfig.Preset(runconfig.PresetQuick, task)
			if err != nil {
				t.Fatal(err)
			}
			c.Steps, c.Batch, c.EvalEvery, c.ProbeSize, c.GeometryN, c.ProbeEvery = 2, 8, 2, 32, 8, 2
			snaps, _ := runSnapshots(t, c)
			if len(snaps) == 0 {
				t.Fatal("no geometry snapshot")
			}
			sn := snaps[len(snaps)-1].Snapshot
			L, H := c.Transformer.Layers, c.Transformer.Heads
			if len(sn.KeyOrthogonalityEmbed) != L || len(sn.KeyOrthogonalityEmbed[0]) != H || len(sn.KeyOrthogonalityEmbedInit) != L {
				t.Fatalf("authors' statistic shape %d×? (init %d), want %d×%d", len(sn.KeyOrthogonalityEmbed), len(sn.KeyOrthogonalityEmbedInit), L, H)
			}
			if sn.KeyOrthogonalityEmbedTokens < 2 {
				t.Errorf("over %d tokens", sn.KeyOrthogonalityEmbedTokens)
			}
			p := len(sn.QKPositions)
			if (p >= 3) != (sn.ManifoldOne != nil) {
				t.Errorf("%d scored positions, one-sequence manifold %v", p, sn.ManifoldOne)
			}
			t.Logf("%s: %d tokens, now %v, init %v; %d positions", task, sn.KeyOrthogonalityEmbedTokens,
				sn.KeyOrthogonalityEmbed[0], sn.KeyOrthogonalityEmbedInit[0], p)
		})
	}
}
