package bench

import (
	"context"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"windtunnel/sessions/runconfig"
)

// TestPlanCheck: the plans bench times pass; each bad setting is refused naming its flag.
func TestPlanCheck(t *testing.T) {
	ok := Plan{Presets: []string{"quick", "paper"}, Devices: []string{"cpu"}, BLAS: []string{"auto"}, Steps: 40, PaperSteps: 12, Repeat: 1}
	for _, c := range []struct {
		set  func(*Plan)
		want string
	}{
		{func(*Plan) {}, ""},
		{func(p *Plan) { p.Steps = 5; p.PaperSteps = 5; p.Repeat = 100 }, ""},
		{func(p *Plan) { p.Steps = 4 }, "--steps and --paper-steps must be at least 5"},
		{func(p *Plan) { p.PaperSteps = 4 }, "--steps and --paper-steps must be at least 5"},
		{func(p *Plan) { p.Repeat = 0 }, "--repeat must be 1..100, got 0"},
		{func(p *Plan) { p.Repeat = 101 }, "--repeat must be 1..100, got 101"},
		{func(p *Plan) { p.Presets = []string{"quick", "mid"} }, `--presets "mid": want quick and/or paper`},
	} {
		p := ok
		c.set(&p)
		if err := p.Check(); (err == nil) != (c.want == "") || err != nil && err.Error() != c.want {
			t.Errorf("%+v: %v, want %q", p, err, c.want)
		}
	}
}

// TestDashCheck: the default options pass; each bad one is refused naming the flags.
func TestDashCheck(t *testing.T) {
	ok := DashOptions{Windows: 16, Window: 3 * time.Second, Settle: 500 * time.Millisecond, Key: 500 * time.Millisecond}
	win := "--window must be at least 1s, --settle in [0, --window), --key ≥ 0"
	for _, c := range []struct {
		set  func(*DashOptions)
		want string
	}{
		{func(*DashOptions) {}, ""},
		{func(o *DashOptions) { o.Windows = 2; o.Key = 0; o.Settle = 0 }, ""},
		{func(o *DashOptions) { o.Windows = 3 }, "--windows must be an even number ≥ 2, got 3"},
		{func(o *DashOptions) { o.Windows = 0 }, "--windows must be an even number ≥ 2, got 0"},
		{func(o *DashOptions) { o.Window = 999 * time.Millisecond }, win},
		{func(o *DashOptions) { o.Settle = 3 * time.Second }, win},
		{func(o *DashOptions) { o.Settle = -1 }, win},
		{func(o *DashOptions) { o.Key = -1 }, win},
	} {
		o := ok
		c.set(&o)
		if err := o.Check(); (err == nil) != (c.want == "") || err != nil && err.Error() != c.want {
			t.Errorf("%+v: %v, want %q", o, err, c.want)
		}
	}
}

// TestPlanRun: two backends, two repetitions: the configurations are built in alternation
// (go, gonum, go, gonum) from StepArgs, each row is one backend's median over its
// repetitions, and the second backend gets one ratio per repetition against the first.
func TestPlanRun(t *testing.T) {
	if testing.Short() {
		t.Skip("trains 4 short runs")
	}
	var built [][]string
	fixed := map[string]bool{"workers": true, "width": true, "layers": true, "heads": true, "batch": true}
	small := func(args []string) (runconfig.Config, error) {
		built = append(built, args)
		val := map[string]string{}
		for i := 0; i+1 < len(args); i += 2 {
			val[strings.TrimPrefix(args[i], "--")] = args[i+1]
		}
		num := func(k string) int { n, _ := strconv.Atoi(val[k]); return n }
		o := runconfig.DefaultOverrides()
		o.Steps, o.EvalEvery, o.ProbeSize, o.ProbeEvery, o.CheckpointEvery, o.Warmup = num("steps"), num("eval-every"), num("probe"), num("probe-every"), num("checkpoint-every"), num("warmup")
		o.BLAS, o.Device, o.Workers, o.Width, o.Layers, o.Heads, o.Batch = val["blas"], val["device"], 1, 16, 1, 1, 8 // small: seconds
		o.Given = func(flag string) bool { _, ok := val[flag]; return ok || fixed[flag] }
		return runconfig.Build(runconfig.Recipe{Preset: val["preset"], Task: "bijection", Model: "transformer", Flags: o})
	}
	p := Plan{Presets: []string{"quick"}, Devices: []string{"cpu"}, BLAS: []string{"go", "gonum"}, Steps: 5, PaperSteps: 5, Repeat: 2, build: small}
	rows, vs, err := p.Run(context.Background(), Torch{Why: "not in this test"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, a := range built {
		kinds = append(kinds, a[len(a)-3])
	}
	if !reflect.DeepEqual(kinds, []string{"go", "gonum", "go", "gonum"}) || !reflect.DeepEqual(built[0], StepArgs("quick", "cpu", "go", 5)) {
		t.Errorf("built %q, want StepArgs alternating go, gonum", built)
	}
	if len(rows) != 2 || rows[0].BLASKind != "go" || rows[1].BLASKind != "gonum" {
		t.Fatalf("rows %+v, want go then gonum", rows)
	}
	for _, r := range rows {
		if r.Reps != 2 || r.Steps != 5 || r.Preset != "quick" || r.Device != "cpu" || !(r.OursMs > 0) || r.TorchErr != "not in this test" {
			t.Errorf("row %+v: want 2 repetitions of 5 steps, quick on cpu, a step time, the reference's absence", r)
		}
	}
	if len(vs) != 1 || vs[0].Kind != "gonum" || vs[0].Base != "go" || len(vs[0].Ratios) != 2 {
		t.Errorf("ratios %+v, want gonum / go with 2 pairs", vs)
	}
}
