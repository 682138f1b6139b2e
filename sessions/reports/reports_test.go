package reports

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"windtunnel/models/arch"
	"windtunnel/sessions/derived"
	"windtunnel/sessions/runconfig"

	"windtunnel/sessions"
)

// fixture is one fake session's recorded values.
type fixture struct {
	task, model string
	seed        uint64
	bitA, bitB  float64
	acc         float64
	keyOrth     []float64 // layer 0 per head; nil: no snapshot
	keyInit     []float64
	rhoOne, rho float64
	frame, bits int // settle steps
	lengths     map[int]float64
	steps       int // 0: the preset's
	// early is bit error (a) and (b) at the first evaluation, step 100 (0: 3 bits, a model
	// that has not learnt); earlyRho |ρ| at the first snapshot there (0: 0.1).
	early, earlyRho float64
}

func (f fixture) file() string {
	if f.steps > 0 {
		return fmt.Sprintf("%s-%s-%d-s%d.wtlab", f.task, f.model, f.steps, f.seed)
	}
	return fmt.Sprintf("%s-%s-s%d.wtlab", f.task, f.model, f.seed)
}

// writeFixture creates a finished quick-preset session holding f's final evaluation.
func writeFixture(t *testing.T, dir string, f fixture) {
	t.Helper()
	cfg, err := runconfig.Preset(runconfig.PresetQuick, f.task)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Model, cfg.Seed = f.model, f.seed
	if f.steps > 0 {
		cfg.Steps = f.steps
	}
	raw, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	meta := sessions.Meta{Task: f.task, Model: f.model, Params: 203456, Steps: cfg.Steps, Layers: 4, Heads: 4, Config: raw}
	w, err := sessions.Create(filepath.Join(dir, f.file()), meta, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	early, earlyRho := f.early, f.earlyRho
	if early == 0 {
		early = 3
	}
	if earlyRho == 0 {
		earlyRho = 0.1
	}
	first := &sessions.Eval{BitErrorPosition: early, BitErrorSample: early, KLBits: early / 2, Accuracy: 0.05}
	for k := range f.lengths {
		first.Lengths = append(first.Lengths, sessions.LengthScore{K: k, Train: k == 20, BitErrorPosition: sessions.Num(2 * early)})
	}
	rec0 := sessions.Record{Step: 100, WallS: 1, State: sessions.Training, Eval: first}
	if f.keyOrth != nil {
		rec0.Snapshot = &sessions.Snapshot{KeyOrthogonalityEmbed: [][]float64{f.keyInit}, KeyOrthogonalityEmbedInit: [][]float64{f.keyInit},
			ManifoldOne: &sessions.Manifold{Spearman: sessions.Num(earlyRho)}, Manifold: &sessions.Manifold{Spearman: sessions.Num(earlyRho)}}
	}
	w.Record(rec0)
	ev := &sessions.Eval{BitErrorPosition: f.bitA, BitErrorSample: f.bitB, KLBits: f.bitA / 2, Accuracy: f.acc}
	for k, v := range f.lengths {
		ev.Lengths = append(ev.Lengths, sessions.LengthScore{K: k, Train: k == 20, BitErrorPosition: sessions.Num(v)})
	}
	rec := sessions.Record{Step: cfg.Steps, WallS: 10, State: sessions.Done, Eval: ev}
	if f.keyOrth != nil {
		rec.Snapshot = &sessions.Snapshot{
			KeyOrthogonalityEmbed: [][]float64{f.keyOrth}, KeyOrthogonalityEmbedInit: [][]float64{f.keyInit},
			ManifoldOne: &sessions.Manifold{Spearman: sessions.Num(-f.rhoOne)}, Manifold: &sessions.Manifold{Spearman: sessions.Num(f.rho)},
			Frame: &sessions.Frame{Settle: &sessions.Settle{Band: 0.1, Frame: f.frame, BitError: f.bits}},
		}
	}
	w.Record(rec)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// Fixtures are seeds 1–3 of the transformer and the MLP on bijection, and of the
// transformer on hmm (with K=20/30/50).
func Fixtures() []fixture {
	return []fixture{
		{task: "bijection", model: "transformer", seed: 1, bitA: 0.05, bitB: 0.051, acc: 1, keyOrth: []float64{0.40, 0.50}, keyInit: []float64{0.13, 0.15}, rhoOne: 0.9, rho: 0.8, frame: 500, bits: 2500},
		{task: "bijection", model: "transformer", seed: 2, bitA: 0.07, bitB: 0.072, acc: 1, keyOrth: []float64{0.44, 0.46}, keyInit: []float64{0.14, 0.16}, rhoOne: 0.95, rho: 0.85, frame: 750, bits: 2750},
		{task: "bijection", model: "transformer", seed: 3, bitA: 0.2, bitB: 0.21, acc: 1, keyOrth: []float64{0.43, 0.47}, keyInit: []float64{0.13, 0.14}, rhoOne: 0.85, rho: 0.6, frame: -1, bits: 2000},
		{task: "bijection", model: "mlp", seed: 1, bitA: 1.1073, bitB: 1.1073, acc: 0.55, early: 1.1075},
		{task: "bijection", model: "mlp", seed: 2, bitA: 1.1072, bitB: 1.1074, acc: 0.54, early: 1.1075},
		{task: "bijection", model: "mlp", seed: 3, bitA: 1.1074, bitB: 1.1071, acc: 0.56, early: 1.1075},
		{task: "hmm", model: "transformer", seed: 1, bitA: 0.05, bitB: 0.1, acc: 0.8, lengths: map[int]float64{20: 0.05, 30: 0.06, 50: 0.09}},
		{task: "hmm", model: "transformer", seed: 2, bitA: 0.18, bitB: 0.2, acc: 0.6, lengths: map[int]float64{20: 0.18, 30: 0.19, 50: 0.21}},
		{task: "hmm", model: "transformer", seed: 3, bitA: 0.04, bitB: 0.1, acc: 0.8, lengths: map[int]float64{20: 0.04, 30: 0.05, 50: 0.2}},
	}
}

// truth is what a row's value for a session must be, from the fixture alone.
func truth(claim string, f fixture) (float64, bool) {
	switch {
	case strings.HasPrefix(claim, "per-position MLP"):
		return f.bitB, true
	case strings.Contains(claim, "at K=30"):
		return f.lengths[30], true
	case strings.Contains(claim, "at K=50"):
		return f.lengths[50], true
	case strings.Contains(claim, "keys become orthogonal"):
		return (f.keyOrth[0] + f.keyOrth[1]) / 2, true
	case strings.Contains(claim, "one sequence"):
		return f.rhoOne, true
	case strings.Contains(claim, "many sequences"):
		return f.rho, true
	case strings.Contains(claim, "frame settles"):
		return float64(f.frame), true
	case strings.Contains(claim, "(recall)"):
		return f.acc, true
	case strings.Contains(claim, "(bijection)"), strings.Contains(claim, "(hmm)"):
		return f.bitA, true
	}
	return 0, false
}

var statRE = regexp.MustCompile(`(-?[0-9.]+)(?: ± ([0-9.]+))? \(n=(\d+)\)`)

func TestReportTraceable(t *testing.T) {
	dir := t.TempDir()
	byFile := map[string]fixture{}
	for _, f := range Fixtures() {
		writeFixture(t, dir, f)
		byFile[f.file()] = f
	}
	out := filepath.Join(t.TempDir(), "rep")
	figs := func(d string, _ []string) ([]Figure, error) {
		return []Figure{{Path: filepath.Join(d, "fig", "manifold.png"), Caption: "value manifold"}, {Path: filepath.Join(d, "keys.svg"), Caption: "keys"}}, nil
	}
	rep, path, err := Write([]string{dir}, out, Options{Figures: figs})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	rows := 0
	verdicts := map[string]string{}
	for _, line := range strings.Split(md, "\n") {
		if !regexp.MustCompile(`^\| \d+ \|`).MatchString(line) {
			continue
		}
		cols := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cols) != 9 {
			t.Fatalf("row with %d columns: %s", len(cols), line)
		}
		rows++
		claim, measured, files, verdict := cols[1], cols[4], cols[5], cols[7]
		verdicts[claim] = verdict
		if verdict == NotMeasured {
			if measured != "—" || files != "—" {
				t.Errorf("%s: not measured but %q from %q", claim, measured, files)
			}
			continue
		}
		var xs []float64
		for _, fn := range strings.Split(files, ", ") {
			f, ok := byFile[fn]
			if !ok {
				t.Fatalf("%s: session %q is not a fixture", claim, fn)
			}
			v, ok := truth(claim, f)
			if !ok {
				t.Fatalf("no truth for claim %q", claim)
			}
			xs = append(xs, v)
		}
		m := statRE.FindStringSubmatch(measured)
		if m == nil {
			t.Fatalf("%s: no statistic in %q", claim, measured)
		}
		s := derived.StatOf(xs)
		got, _ := strconv.ParseFloat(m[1], 64)
		n, _ := strconv.Atoi(m[3])
		prec := len(m[1]) - strings.Index(m[1], ".") - 1
		if !strings.Contains(m[1], ".") {
			prec = 0
		}
		if n != len(xs) || math.Abs(got-s.Mean) > 0.5*math.Pow10(-prec)+1e-12 {
			t.Errorf("%s: measured %q, fixtures give %g (n=%d)", claim, measured, s.Mean, len(xs))
		}
		if m[2] != "" {
			sd, _ := strconv.ParseFloat(m[2], 64)
			if math.Abs(sd-s.SD) > 0.5*math.Pow10(-prec)+1e-12 {
				t.Errorf("%s: sd %q, fixtures give %g", claim, m[2], s.SD)
			}
		}
	}
	if rows != len(rep.Rows) || rows < 12 {
		t.Errorf("%d table rows parsed, report has %d", rows, len(rep.Rows))
	}
	want := map[string]string{
		"transformer learns belief accumulation (bijection)":                                Reproduced,
		"mlp does not learn belief accumulation (bijection)":                                Consistent, // its first evaluation fails too
		"transformer learns belief transport (hmm)":                                         Reproduced, // mean 0.09
		"mamba learns belief transport (hmm)":                                               NotMeasured,
		"transformer learns random-access binding (recall)":                                 NotMeasured,
		"per-position MLP on bijection V=20 sits at the context-free guess":                 Consistent,    // so does its first evaluation
		"transformer trained at K=20 tracks HMM beliefs at K=30":                            Reproduced,    // 0.1
		"transformer trained at K=20 tracks HMM beliefs at K=50":                            NotReproduced, // 0.1667
		"mamba trained at K=20 tracks HMM beliefs at K=30":                                  NotMeasured,
		"transformer value keys become orthogonal (layer 0, authors' statistic, bijection)": NotReproduced,
		"value manifold: PC1 tracks posterior entropy, \\|ρ\\| (one sequence, bijection)":   Reproduced,
		"value manifold: PC1 tracks posterior entropy, \\|ρ\\| (many sequences, bijection)": Reproduced, // 0.75
	}
	for claim, v := range want {
		if verdicts[claim] != v {
			t.Errorf("verdict of %q = %q, want %q", claim, verdicts[claim], v)
		}
	}
	for _, s := range []string{
		"windtunnel compare --preset quick --tasks bijection --models transformer,mlp --seeds 3 --out " + dir,
		// The hmm fixtures evaluate every 250 steps where a quick hmm run evaluates every 125.
		"windtunnel run --headless --preset quick --task hmm --model transformer --seed 3 --eval-every=250 --out " + filepath.Join(dir, "hmm-transformer-s3.wtlab"),
		"windtunnel compare --from " + dir,
		"windtunnel probe " + filepath.Join(dir, "bijection-transformer-s1.wtlab"),
		"0.42–0.48 per head vs 0.14–0.15 at init", "0.0067 bits (b)", "1.1073 bits (b)", "1.85 bits",
		"![value manifold](fig/manifold.png)", "![keys](keys.svg)",
		DepartureSizes, DepartureRecall, DepartureBitError, DepartureMLP,
		"- row 1: bijection-transformer-s1.wtlab 0.05; bijection-transformer-s2.wtlab 0.07; bijection-transformer-s3.wtlab 0.2",
	} {
		if !strings.Contains(md, s) {
			t.Errorf("report lacks %q:\n%s", s, md)
		}
	}
	// A reader's words, not the code's: no Go field path, no topic said twice (issue 44 item 16).
	for _, s := range []string{"Eval.", "Lengths)"} {
		if strings.Contains(md, s) {
			t.Errorf("report has %q:\n%s", s, md)
		}
	}
	for _, d := range Departures() {
		if strings.HasPrefix(strings.ToLower(d.Text), strings.ToLower(d.Topic)) {
			t.Errorf("departure %q repeats its topic: %q", d.Topic, d.Text)
		}
	}
	if strings.Contains(md, "windtunnel probe "+filepath.Join(dir, "bijection-mlp-s1.wtlab")) {
		t.Error("probe command for a session without a snapshot")
	}
	if os.Getenv("REPORT_SAMPLE") != "" {
		fmt.Println(md)
	}
}

func TestReportNoFigures(t *testing.T) {
	dir := t.TempDir()
	writeFixture(t, dir, Fixtures()[3])
	_, path, err := Write([]string{filepath.Join(dir, Fixtures()[3].file())}, t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if strings.Contains(string(b), "## Figures") || strings.Contains(string(b), "![") {
		t.Errorf("figures section without figures:\n%s", b)
	}
	if _, _, err := Write([]string{filepath.Join(dir, "missing.wtlab")}, t.TempDir(), Options{}); err == nil || strings.Count(err.Error(), "missing.wtlab") != 1 {
		t.Errorf("missing path: %v", err)
	}
}

// TestPresetOf: a run is named by the preset it was built from — a baseline's own
// initialisation and GELU left aside, quick and laptop told apart by the steps, both named
// when the steps are neither's — and a changed model is custom ("").
func TestPresetOf(t *testing.T) {
	preset := func(name, task, model string, steps int, change func(*runconfig.Config)) runconfig.Config {
		c, err := runconfig.Preset(name, task)
		if err != nil {
			t.Fatal(err)
		}
		c.Model, c.Seed = model, 3
		if steps > 0 {
			c.Steps = steps
		}
		if change != nil {
			change(&c)
		}
		return c
	}
	normal := func(c *runconfig.Config) { c.Init = arch.InitNormal }
	for _, c := range []struct {
		name string
		cfg  runconfig.Config
		want string
	}{
		{"mid lstm, other steps", preset(runconfig.PresetMid, "hmm", "lstm", 100, normal), runconfig.PresetMid},
		{"laptop transformer", preset(runconfig.PresetLaptop, "bijection", "transformer", 0, nil), runconfig.PresetLaptop},
		{"quick transformer", preset(runconfig.PresetQuick, "bijection", "transformer", 0, nil), runconfig.PresetQuick},
		{"laptop mamba, its own init", preset(runconfig.PresetLaptop, "hmm", "mamba", 0, normal), runconfig.PresetLaptop},
		{"quick or laptop: neither's steps", preset(runconfig.PresetLaptop, "recall", "lstm", 50000, normal), runconfig.PresetQuick + "/" + runconfig.PresetLaptop},
		{"a transformer's init is its own choice", preset(runconfig.PresetLaptop, "bijection", "transformer", 0, normal), ""},
		{"custom width", preset(runconfig.PresetMid, "hmm", "lstm", 100, func(c *runconfig.Config) { c.Transformer.Width = 80 }), ""},
	} {
		if got := presetOf(c.cfg); got != c.want {
			t.Errorf("%s: presetOf = %q, want %q", c.name, got, c.want)
		}
	}
}
