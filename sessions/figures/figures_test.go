package figures

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"windtunnel/sessions"
)

const fixture = "../../tui/testdata/fixture.wtlab"

// writeHMM writes a tiny hmm session with length-generalisation scores for seed.
func writeHMM(t *testing.T, dir string, seed int) string {
	t.Helper()
	return writeHMMRun(t, filepath.Join(dir, fmt.Sprintf("hmm-transformer-%d.wtlab", seed)), seed, 300, 2)
}

// writeHMMRun writes a tiny finished hmm session of seed trained for steps on workers.
func writeHMMRun(t *testing.T, path string, seed, steps, workers int) string {
	t.Helper()
	cfg, _ := json.Marshal(map[string]any{"task": "hmm", "model": "transformer", "seed": seed, "steps": steps,
		"workers": workers, "tunnel": map[string]any{"K": 20}})
	w, err := sessions.Create(path, sessions.Meta{Task: "hmm", Model: "transformer", Steps: steps, Config: cfg}, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for step := 100; step <= steps; step += 100 {
		f := float64(seed) / float64(step)
		e := &sessions.Eval{BitErrorPosition: 10 * f, BitErrorSample: 12 * f, KLBits: 5 * f, Accuracy: 0.5,
			ModelEntropy: []float64{2, 1.5, 1.2, 1}, BayesEntropy: []float64{2, 1.4, 1.1, 0.9}}
		for _, k := range []int{4, 6} {
			ls := sessions.LengthScore{K: k, Train: k == 4}
			for j := range k {
				ls.KLByPosition = append(ls.KLByPosition, sessions.Num(f*float64(j+1)))
			}
			e.Lengths = append(e.Lengths, ls)
		}
		state := sessions.Training
		if step == steps {
			state = sessions.Done // a finished run: folders are drawn from finished runs only
		}
		w.Record(sessions.Record{Step: step, State: state, Eval: e})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// pngOK checks a PNG's size and that its plot area is not blank.
func pngOK(t *testing.T, path string, w, h int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Fatalf("%s: size %dx%d, want %dx%d", path, b.Dx(), b.Dy(), w, h)
	}
	// The plot area: the middle of the image, away from the title and axis labels.
	bg := img.At(0, 0)
	r0, g0, b0, _ := bg.RGBA()
	n := 0
	for y := h / 5; y < 4*h/5; y++ {
		for x := w / 5; x < 4*w/5; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if r != r0 || g != g0 || b != b0 {
				n++
			}
		}
	}
	if n < 50 {
		t.Fatalf("%s: plot area blank (%d non-background pixels)", path, n)
	}
}

func names(files []File) string {
	var s []string
	for _, f := range files {
		s = append(s, f.Name)
	}
	return strings.Join(s, " ")
}

func TestRenderFixturePNG(t *testing.T) {
	runs, _, err := LoadPaths([]string{fixture})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files, err := Render(runs, dir, Options{Format: "png", Width: 640, Height: 400})
	if err != nil {
		t.Fatal(err)
	}
	task := runs[0].Config.Task + "-" + runs[0].Config.Model
	for _, want := range []string{task + "-errors.png", task + "-entropy.png", "table.png"} {
		if !strings.Contains(names(files), want) {
			t.Errorf("files %q: no %s", names(files), want)
		}
	}
	for _, f := range files {
		if f.Title == "" || f.Path != filepath.Join(dir, f.Name) {
			t.Errorf("file %+v", f)
		}
		pngOK(t, f.Path, 640, 400)
	}
}

func TestRenderSeedsLengthsSVG(t *testing.T) {
	src := t.TempDir()
	writeHMM(t, src, 1)
	writeHMM(t, src, 2)
	runs, _, err := LoadPaths([]string{src})
	if err != nil {
		t.Fatal(err)
	}
	if g := Groups(runs); len(g) != 1 || len(g[0].Runs) != 2 || g[0].Name != "hmm-transformer" {
		t.Fatalf("groups %+v", g)
	}
	dir := t.TempDir()
	files, err := Render(runs, dir, Options{Format: "svg"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"hmm-transformer-errors.svg":  {"bit error and KL vs step (2 seeds)", "step", "bits (log)", "mean ± sd", "pass 0.15"},
		"hmm-transformer-entropy.svg": {"entropy calibration at step 300", "scored position", "entropy (bits)", "Bayes"},
		"hmm-transformer-lengths.svg": {"KL per position by length K", "position", "KL (bits, log)", "K=4 (trained)", "K=6"},
		"table.svg":                   {"Architecture table", "model", "hmm", "(belief transport)", "transformer", "pass 2/2 seeds"},
	}
	if len(files) != len(want) {
		t.Fatalf("files %q, want %d", names(files), len(want))
	}
	for _, f := range files {
		b, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range want[f.Name] {
			if !bytes.Contains(b, []byte(s)) && !bytes.Contains(b, []byte(xmlEscape(s))) {
				t.Errorf("%s: no %q", f.Name, s)
			}
		}
	}
}

func xmlEscape(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

func TestRenderPDFAndBadFormat(t *testing.T) {
	runs, _, err := LoadPaths([]string{fixture})
	if err != nil {
		t.Fatal(err)
	}
	files, err := Render(runs, t.TempDir(), Options{Format: "pdf"})
	if err != nil || len(files) == 0 {
		t.Fatalf("pdf: %v %v", files, err)
	}
	b, _ := os.ReadFile(files[0].Path)
	if !bytes.HasPrefix(b, []byte("%PDF")) {
		t.Fatalf("%s is not a PDF", files[0].Path)
	}
	if _, err := Render(runs, t.TempDir(), Options{Format: "gif"}); err == nil {
		t.Fatal("gif accepted")
	}
	if _, _, err := LoadPaths([]string{"nope.wtlab"}); err == nil || !strings.Contains(err.Error(), "nope.wtlab") {
		t.Fatalf("missing file: %v", err)
	}
}
