package figures

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"windtunnel/diagnostics"

	"windtunnel/sessions"
)

// geometry are the suffixes of the figures drawn from a snapshot.
var geometry = []string{"keys", "manifold", "ablation", "frame", "qk"}

func TestSnapshotFiguresPNG(t *testing.T) {
	runs, _, err := LoadPaths([]string{fixture})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files, err := Render(runs, dir, Options{Format: "png", Width: 800, Height: 500})
	if err != nil {
		t.Fatal(err)
	}
	g := Groups(runs)[0].Name
	byName := map[string]File{}
	for _, f := range files {
		byName[f.Name] = f
	}
	for _, kind := range geometry {
		f, ok := byName[g+"-"+kind+".png"]
		if !ok {
			t.Errorf("files %q: no %s figure", names(files), kind)
			continue
		}
		if !strings.Contains(f.Title, fmt.Sprintf("seed %d", runs[0].Config.Seed)) {
			t.Errorf("%s: title %q names no seed", f.Name, f.Title)
		}
		pngOK(t, f.Path, 800, 500)
	}
}

func TestSnapshotFiguresSVG(t *testing.T) {
	runs, _, err := LoadPaths([]string{fixture})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := Render(runs, dir, Options{Format: "svg"}); err != nil {
		t.Fatal(err)
	}
	g := Groups(runs)[0].Name
	want := map[string][]string{
		"keys": {"key orthogonality per head at step 600 (seed 0)", "authors' statistic", "at initialisation",
			"bench's statistic", "random vectors 0.082", "layer × head", "mean |off-diagonal cosine|", "L1H2"},
		"manifold": {"value manifold, PC1 vs PC2 by posterior entropy", "many sequences", "one sequence",
			"|ρ(PC1, H)| = 0.97 (Spearman)", "PC1 (64% of variance)", "PC2 (13%)", "posterior entropy (bits)"},
		"ablation": {"ablation, Δ bit error (a) when zeroed", "costliest L1H2 (+0.444)", "layer × head", "head",
			"layer", "Δ bits"},
		"frame": {"frame-precision dissociation", "step", "scaled to [0, 1] (others min–max)", "precision: log2 bit error (b)",
			"attention frame: distance to the latest pattern", "1 − |ρ(PC1, entropy)|",
			"J-lens frame: overlap ÷ null, 1 to its ceiling 3.2 (authors') (● t_form 50, t_plateau 100)", "rule holds: θ 1.51",
			"bit error (b) ×25.5 at t_form, ×16.5 at t_plateau of its final"},
		"qk": {"QK alignment", "layer 0", "layer 3", "key position", "query position", "cosine"},
	}
	for kind, ss := range want {
		b, err := os.ReadFile(filepath.Join(dir, g+"-"+kind+".svg"))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range ss {
			if !bytes.Contains(b, []byte(s)) && !bytes.Contains(b, []byte(xmlEscape(s))) {
				t.Errorf("%s: no %q", kind, s)
			}
		}
	}
}

// writeSnap writes a finished bijection session for seed whose one snapshot is snap.
func writeSnap(t *testing.T, dir string, seed int, snap *sessions.Snapshot) string {
	t.Helper()
	path := filepath.Join(dir, fmt.Sprintf("bijection-lstm-%d.wtlab", seed))
	cfg, _ := json.Marshal(map[string]any{"task": "bijection", "model": "lstm", "seed": seed, "steps": 200})
	w, err := sessions.Create(path, sessions.Meta{Task: "bijection", Model: "lstm", Steps: 200, Config: cfg}, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e := &sessions.Eval{BitErrorPosition: 0.5, BitErrorSample: 0.6, KLBits: 0.4, Accuracy: 0.5,
		ModelEntropy: []float64{2, 1}, BayesEntropy: []float64{2, 1}}
	w.Record(sessions.Record{Step: 200, State: sessions.Done, Eval: e, Snapshot: snap})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// geometryFiles are the names among files that are drawn from a snapshot.
func geometryFiles(files []File) []string {
	var out []string
	for _, f := range files {
		for _, k := range geometry {
			if strings.HasSuffix(strings.TrimSuffix(f.Name, filepath.Ext(f.Name)), "-"+k) {
				out = append(out, f.Name)
			}
		}
	}
	return out
}

func TestNoSnapshotNoGeometry(t *testing.T) {
	src := t.TempDir()
	runs, _, err := LoadPaths([]string{writeHMM(t, src, 1)})
	if err != nil {
		t.Fatal(err)
	}
	files, err := Render(runs, t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g := geometryFiles(files); len(g) != 0 || len(files) == 0 {
		t.Fatalf("files %q: geometry %q from a run without snapshots", names(files), g)
	}
}

func TestNoAttentionSeeds(t *testing.T) {
	// A recurrent model: a manifold, a frame and layer ablations, no heads, keys or QK.
	snap := &sessions.Snapshot{
		Manifold: &sessions.Manifold{Share: []float64{0.5, 0.2, 0.1}, Pearson: -0.9, Spearman: -0.8,
			Points: [][]float64{{0, 1, 0}, {1, 0, 0}, {2, 2, 1}}, Entropy: []float64{1, 2, 3}},
		Frame: &sessions.Frame{Points: []sessions.FramePoint{
			{Step: 100, BitError: 1, PC1Abs: 0.5}, {Step: 200, BitError: 0.5, PC1Abs: 0.8}}},
		Ablation: []diagnostics.Effect{{Unit: "layer", Layer: 0, Head: -1, DeltaBits: 0.3}, {Unit: "layer", Layer: 1, Head: -1, DeltaBits: 0.1}},
	}
	snap.Costliest = &snap.Ablation[0]
	src := t.TempDir()
	writeSnap(t, src, 4, snap)
	writeSnap(t, src, 5, snap)
	runs, _, err := LoadPaths([]string{src})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files, err := Render(runs, dir, Options{Format: "svg"})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(geometryFiles(files), " ")
	if got != "bijection-lstm-manifold.svg bijection-lstm-ablation.svg" {
		t.Fatalf("geometry files %q (all %q)", got, names(files))
	}
	b, err := os.ReadFile(filepath.Join(dir, "bijection-lstm-ablation.svg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"(seed 4, first of 2 seeds)", "per unit", "costliest L0 (+0.300)"} {
		if !bytes.Contains(b, []byte(s)) {
			t.Errorf("ablation: no %q", s)
		}
	}
}

// TestAblationNoneCostly: when every unit's Δ < 0 the ablation figure marks and names no
// "costliest" unit (it named the least negative one) and its title says none costs bits.
func TestAblationNoneCostly(t *testing.T) {
	snap := &sessions.Snapshot{
		Ablation: []diagnostics.Effect{{Unit: "layer", Layer: 0, Head: -1, DeltaBits: -0.3}, {Unit: "layer", Layer: 1, Head: -1, DeltaBits: -0.05}},
	}
	w, _ := diagnostics.Worst(snap.Ablation)
	snap.Costliest = &w // as the lab records it: the largest Δ, here the least negative
	src := t.TempDir()
	writeSnap(t, src, 4, snap)
	runs, _, err := LoadPaths([]string{src})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := Render(runs, dir, Options{Format: "svg"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "bijection-lstm-ablation.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("costliest")) {
		t.Error("ablation: a costliest unit where every Δ < 0")
	}
	if !bytes.Contains(b, []byte("none costs bits")) {
		t.Error("ablation: no word that no unit costs bits")
	}
}
