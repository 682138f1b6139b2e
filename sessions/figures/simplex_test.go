package figures

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"windtunnel/sessions"
	"windtunnel/sessions/runconfig"
)

// TestSimplexFigure: a snapshot with the belief-simplex measurement draws PC1 vs PC2 by
// argmax state with the numbers in the title; one without it draws none; an hmm run's figure
// has the exact posterior's own picture and numbers beside the model's.
func TestSimplexFigure(t *testing.T) {
	snap := &sessions.Snapshot{Simplex: &sessions.Simplex{States: 3, Purity: 0.9, R2: 0.75, MeanCornerDist: 0.2,
		CornerDist: []sessions.Num{0.1, 0.2, 0.3}, N: 40,
		Points: [][2]float64{{0, 1}, {1, 0}, {2, 2}, {-1, -1}}, Argmax: []int{0, 1, 2, 2}}}
	src := t.TempDir()
	writeSnap(t, src, 1, snap)
	writeSnap(t, filepath.Join(src, "none"), 2, &sessions.Snapshot{ProbeN: 4})
	runs, _, err := LoadPaths([]string{src})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := Render(runs, dir, Options{Format: "svg"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "bijection-lstm-simplex.svg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"belief simplex", "4 of 40 points", "trained: purity 0.90, R² 0.75, corner 0.20", "state 0", "state 2"} {
		if !bytes.Contains(b, []byte(s)) && !bytes.Contains(b, []byte(xmlEscape(s))) {
			t.Errorf("no %q", s)
		}
	}
	// A measurement with the clusters' purity against the observed symbol names it too.
	snap.Simplex.SymbolPurity = 0.5
	src2, dir2 := t.TempDir(), t.TempDir()
	writeSnap(t, src2, 1, snap)
	if runs, _, err = LoadPaths([]string{src2}); err != nil {
		t.Fatal(err)
	}
	if _, err := Render(runs, dir2, Options{Format: "svg"}); err != nil {
		t.Fatal(err)
	}
	if b, err = os.ReadFile(filepath.Join(dir2, "bijection-lstm-simplex.svg")); err != nil {
		t.Fatal(err)
	}
	if s := "trained: purity 0.90 (symbol 0.50), R² 0.75"; !bytes.Contains(b, []byte(s)) && !bytes.Contains(b, []byte(xmlEscape(s))) {
		t.Errorf("no %q", s)
	}
	if bytes.Contains(b, []byte("exact posterior")) {
		t.Errorf("a bijection run has no hidden states, yet an exact posterior's picture")
	}

	// An hmm run (the quick preset's configuration, seed 1): the exact posterior beside it,
	// measured on the run's own sequences (purity 0.94, 0.61 from the corners).
	cfg, err := runconfig.Preset(runconfig.PresetQuick, "hmm")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Model, cfg.Seed = "mamba", 1
	raw, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	src3, dir3 := t.TempDir(), t.TempDir()
	w, err := sessions.Create(filepath.Join(src3, "hmm-mamba-1.wtlab"), sessions.Meta{Task: "hmm", Model: "mamba", Steps: cfg.Steps, Config: raw}, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	snap.Simplex.States, snap.Simplex.Argmax = 5, []int{0, 1, 3, 4}
	w.Record(sessions.Record{Step: cfg.Steps, State: sessions.Done, Snapshot: snap,
		Eval: &sessions.Eval{BitErrorPosition: 0.05, BitErrorSample: 0.06, KLBits: 0.04, Accuracy: 0.8, ModelEntropy: []float64{2, 1}, BayesEntropy: []float64{2, 1}}})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if runs, _, err = LoadPaths([]string{src3}); err != nil {
		t.Fatal(err)
	}
	if _, err := Render(runs, dir3, Options{Format: "svg"}); err != nil {
		t.Fatal(err)
	}
	if b, err = os.ReadFile(filepath.Join(dir3, "hmm-mamba-simplex.svg")); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"trained: purity 0.90 (symbol 0.50)", "exact posterior: purity 0.94, corner 0.61", "state 2"} {
		if !bytes.Contains(b, []byte(s)) && !bytes.Contains(b, []byte(xmlEscape(s))) {
			t.Errorf("hmm: no %q", s)
		}
	}
}
