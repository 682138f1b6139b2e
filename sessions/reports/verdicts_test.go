package reports

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"windtunnel/sessions/derived"
	"windtunnel/sessions/llmrun"
)

// copyDir copies the files of src into a new folder dst, byte for byte.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	es, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		in, err := os.Open(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(filepath.Join(dst, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, in); err != nil {
			t.Fatal(err)
		}
		in.Close()
		if err := out.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// rowOf returns the first row whose claim starts with prefix.
func rowOf(t *testing.T, rows []Row, prefix string) Row {
	t.Helper()
	for _, r := range rows {
		if strings.HasPrefix(r.Claim, prefix) {
			return r
		}
	}
	t.Fatalf("no row %q", prefix)
	return Row{}
}

// TestReportCountsReplicateOnce (issue 49): a folder and its bit-identical copy are the same
// two experiments, not four: n is the number of distinct seeds, the pass count is over them,
// and each seed is listed once with where its copies are. Copies whose results differ are
// said to disagree.
func TestReportCountsReplicateOnce(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "A"), filepath.Join(root, "B")
	if err := os.MkdirAll(a, 0o755); err != nil {
		t.Fatal(err)
	}
	fs := []fixture{
		{task: "bijection", model: "transformer", seed: 1, bitA: 1.08, bitB: 1.08, acc: 0.5, steps: 300},
		{task: "bijection", model: "transformer", seed: 2, bitA: 1.07, bitB: 1.07, acc: 0.5, steps: 300},
	}
	for _, f := range fs {
		writeFixture(t, a, f)
	}
	copyDir(t, a, b)
	_, path, err := Write([]string{a, b}, filepath.Join(root, "R"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var line string
	for _, l := range strings.Split(string(md), "\n") {
		if strings.Contains(l, "| transformer learns belief accumulation (bijection) |") {
			line = l
		}
	}
	f1 := fs[0].file()
	want := "seed 1 (2 copies: " + filepath.Join(a, f1) + ", " + filepath.Join(b, f1) + ")"
	for _, s := range []string{"(n=2)", "0/2 seeds pass", want} {
		if !strings.Contains(line, s) {
			t.Errorf("architecture row lacks %q:\n%s", s, line)
		}
	}
	if n := strings.Count(line, f1); n != 2 { // once per copy, inside the one entry
		t.Errorf("the seed-1 file is named %d times in its row, want 2 (its two copies):\n%s", n, line)
	}
	// The copies of seed 2 made to differ: still counted once, and said to disagree.
	c := filepath.Join(root, "C")
	writeFixture(t, c, fixture{task: "bijection", model: "transformer", seed: 2, bitA: 1.2, bitB: 1.2, acc: 0.5, steps: 300})
	runs, _, err := Load([]string{a, c})
	if err != nil {
		t.Fatal(err)
	}
	r := rowOf(t, Build(runs, nil).Rows, "transformer learns belief accumulation (bijection)")
	if !strings.Contains(r.Measured, "(n=2)") || !strings.Contains(r.Reason, "the copies of seed 2 disagree") || !strings.Contains(r.Reason, "bit error (a) 1.07 vs 1.2") {
		t.Errorf("disagreeing copies: measured %q, reason %q", r.Measured, r.Reason)
	}
}

// TestGeometryNeedsTheTaskLearnt (issue 49): a run that fails its task (1.08 bits against
// the pass line 0.15) has its geometry rows not measured, saying so, however its snapshots
// read; a run that learnt it is judged as before.
func TestGeometryNeedsTheTaskLearnt(t *testing.T) {
	dir := t.TempDir()
	for _, seed := range []uint64{1, 2, 3} {
		writeFixture(t, dir, fixture{task: "bijection", model: "transformer", seed: seed, bitA: 1.08, bitB: 1.08, acc: 0.5,
			keyOrth: []float64{0.01, 0.02}, keyInit: []float64{0.13, 0.15}, rhoOne: 0.9, rho: 0.9})
	}
	runs, _, err := Load([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	rows := Build(runs, nil).Rows
	for _, claim := range []string{"transformer value keys become orthogonal", "value manifold: PC1 tracks posterior entropy, |ρ| (one sequence",
		"value manifold: PC1 tracks posterior entropy, |ρ| (many sequences"} {
		r := rowOf(t, rows, claim)
		if r.Verdict != NotMeasured || !strings.HasPrefix(r.Reason, "the model did not learn the task (bit error (a) 1.0800 > pass 0.15") || r.Measured != "" {
			t.Errorf("%s: verdict %q, measured %q, reason %q", claim, r.Verdict, r.Measured, r.Reason)
		}
	}
	// The frame rows too: the 300-step case of the issue, a frame "formed" on a model at 1.08 bits.
	mk := func(seed uint64, bitA float64) Run {
		r := runOf(t, 1, seed, 1, 0.5, 0.2)
		r.Score.Scores.BitErrorPosition = bitA
		fr := &derived.FrameRatios{Sites: []int{-1}, Null: 0.2, Max: 5, Seqs: 8}
		fr.Threshold, fr.Scaled = derived.FrameThreshold(fr.Max)
		for i, v := range []float64{1, 3, 3} {
			fr.Points = append(fr.Points, derived.FramePoint{Step: 100 * (i + 1), Final: []float64{v}, MeanFinal: v})
		}
		r.FrameRatio = fr
		d := fr.Dissociation(func(int) float64 { return 1 })
		r.Dissociation = &d
		return r
	}
	for _, r := range frameRows([]Run{mk(1, 1.08), mk(2, 1.08), mk(3, 1.08)}) {
		if r.Verdict != NotMeasured || !strings.HasPrefix(r.Reason, "the model did not learn the task (bit error (a) 1.0800 > pass 0.15 in 3/3 seeds)") {
			t.Errorf("frame row of runs that failed the task: %q, %q", r.Verdict, r.Reason)
		}
	}
	// One seed that learnt it: judged on it alone, the others named as left out.
	r := frameRows([]Run{mk(1, 0.05), mk(2, 1.08), mk(3, 1.08)})[0]
	if r.Verdict == NotMeasured || len(r.Values) != 1 || !strings.Contains(r.Reason, "judged on the 1 of 3 seeds that learnt the task") {
		t.Errorf("frame row, one seed learnt: %q, %d values, %q", r.Verdict, len(r.Values), r.Reason)
	}
}

// TestVerdictsAgainstNull (issue 49): three outcomes. A row the null meets too is
// "consistent, not diagnostic"; one whose null does not meet it is reproduced; one the
// bench does not meet is not reproduced. The null of a trained run is its first evaluation
// or earliest snapshot; of Paper II's speed-up, the spread of the baseline's seeds.
func TestVerdictsAgainstNull(t *testing.T) {
	const consistent = "consistent, not diagnostic"
	// Architecture and manifold rows: the first evaluation already passes the task and the
	// earliest snapshot's |ρ| already meets 0.7 (null meets) vs a first evaluation at 3 bits
	// and |ρ| 0.1 (null does not).
	for _, c := range []struct {
		name            string
		early, earlyRho float64
		bitA            float64
		arch, manifold  string
	}{
		{"null meets", 0.1, 0.9, 0.05, consistent, consistent},
		{"null does not meet", 3, 0.1, 0.05, Reproduced, Reproduced},
	} {
		dir := t.TempDir()
		for _, seed := range []uint64{1, 2} {
			writeFixture(t, dir, fixture{task: "bijection", model: "transformer", seed: seed, bitA: c.bitA, bitB: c.bitA, acc: 1,
				keyOrth: []float64{0.4, 0.5}, keyInit: []float64{0.13, 0.15}, rhoOne: 0.9, rho: 0.9, early: c.early, earlyRho: c.earlyRho})
		}
		runs, _, err := Load([]string{dir})
		if err != nil {
			t.Fatal(err)
		}
		rows := Build(runs, nil).Rows
		if r := rowOf(t, rows, "transformer learns belief accumulation (bijection)"); r.Verdict != c.arch || !strings.Contains(r.Reason, "null: the first evaluation (step 100") {
			t.Errorf("%s: architecture row %q, %q", c.name, r.Verdict, r.Reason)
		}
		if r := rowOf(t, rows, "value manifold: PC1 tracks posterior entropy, |ρ| (many"); r.Verdict != c.manifold || !strings.Contains(r.Reason, fmt.Sprintf("null: the earliest snapshot (step 100, bit error (a) %.4f there", c.early)) {
			t.Errorf("%s: manifold row %q, %q", c.name, r.Verdict, r.Reason)
		}
	}
	// Paper II on the tunnels: three SGD seeds of each arm, the baseline's KL reaching its
	// mean final 0.15 at 300, 400 and 400 steps.
	sgd := "sgd"
	base := []Run{
		pairRun(t, sgd, 1, 1, []float64{1, 0.5, 0.15, 0.15}, []float64{1, 0.5, 0.3, 0.2}),
		pairRun(t, sgd, 1, 2, []float64{1, 0.5, 0.2, 0.15}, []float64{1, 0.5, 0.3, 0.2}),
		pairRun(t, sgd, 1, 3, []float64{1, 0.5, 0.2, 0.15}, []float64{1, 0.5, 0.3, 0.2}),
	}
	arm := func(kl ...[]float64) []Run {
		out := append([]Run(nil), base...)
		for i, c := range kl {
			out = append(out, pairRun(t, sgd, 10, uint64(i+1), c, []float64{1, 0.5, 0.3, 0.2}))
		}
		return out
	}
	for _, c := range []struct {
		name string
		runs []Run
		want string
	}{
		// 100, 100, 200 against 300, 400, 400: 233 fewer steps, beyond 2 standard errors (≈ 107).
		{"well sooner", arm([]float64{0.1, 0.1, 0.1, 0.1}, []float64{0.1, 0.1, 0.1, 0.1}, []float64{0.2, 0.1, 0.1, 0.1}), Reproduced},
		// 300, 300, 400: 33 fewer, within the baseline seeds' own spread: the null meets it.
		{"within the seeds' spread", arm([]float64{1, 0.5, 0.1, 0.1}, []float64{1, 0.5, 0.1, 0.1}, []float64{1, 0.5, 0.2, 0.1}), consistent},
		// Never reaching it: not reproduced.
		{"never", arm([]float64{1, 0.9, 0.8, 0.7}, []float64{1, 0.9, 0.8, 0.7}, []float64{1, 0.9, 0.8, 0.7}), NotReproduced},
	} {
		rows := speedupRows(c.runs, "")
		if len(rows) != 1 || rows[0].Verdict != c.want {
			t.Errorf("%s: %+v, want %q", c.name, rows, c.want)
			continue
		}
		if c.want != NotReproduced && !strings.Contains(rows[0].Reason, "the spread of the steps across seeds") {
			t.Errorf("%s: reason %q does not name the null", c.name, rows[0].Reason)
		}
	}
}

// TestFigureLinksFromReportFolder (issue 49): with a relative --out given from another
// working folder (and with "." and an absolute one), every image link in report.md resolves
// from the report's own folder, for `report` and for `llm`'s writer alike.
func TestFigureLinksFromReportFolder(t *testing.T) {
	sessDir := t.TempDir()
	writeFixture(t, sessDir, Fixtures()[0])
	work := t.TempDir()
	t.Chdir(work)
	figs := func(d string, _ []string) ([]Figure, error) { // as the plot command draws them: into d/fig
		var out []Figure
		for _, name := range []string{"a.png", "b.png"} {
			p := filepath.Join(d, "fig", name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return nil, err
			}
			if err := os.WriteFile(p, []byte("png"), 0o644); err != nil {
				return nil, err
			}
			out = append(out, Figure{Path: p, Caption: name})
		}
		return out, nil
	}
	link := regexp.MustCompile(`!\[[^\]]*\]\(([^)]+)\)`)
	check := func(what, report string) {
		t.Helper()
		md, err := os.ReadFile(report)
		if err != nil {
			t.Fatal(err)
		}
		ls := link.FindAllStringSubmatch(string(md), -1)
		if len(ls) != 2 {
			t.Fatalf("%s: %d image links, want 2:\n%s", what, len(ls), md)
		}
		for _, l := range ls {
			if _, err := os.Stat(filepath.Join(filepath.Dir(report), filepath.FromSlash(l[1]))); err != nil {
				t.Errorf("%s: link %q does not resolve from the report's folder: %v", what, l[1], err)
			}
		}
	}
	for _, out := range []string{filepath.Join("out", "rep"), ".", filepath.Join(work, "abs")} {
		_, path, err := Write([]string{sessDir}, out, Options{Figures: figs})
		if err != nil {
			t.Fatal(err)
		}
		check("report --out "+out, path)
		llmDir := filepath.Join(out, "llm")
		fs, err := figs(llmDir, nil)
		if err != nil {
			t.Fatal(err)
		}
		path, err = WriteLLM(&llmrun.Result{}, filepath.Join(llmDir, "results.json"), llmDir, fs)
		if err != nil {
			t.Fatal(err)
		}
		check("llm --out "+llmDir, path)
	}
}
