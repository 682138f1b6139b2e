package sweep

import (
	"fmt"
	"strings"
	"testing"

	"windtunnel/sessions/index"
)

// settingsFixture is a sweep of lr × model with four points: three done with a KL, one
// missing.
func settingsFixture() (*Manifest, []PointStatus) {
	g := Grid{Axes: []Axis{{Flag: "task", Values: []string{"bijection"}}, {Flag: "lr", Values: []string{"1e-3", "3e-4"}},
		{Flag: "model", Values: []string{"transformer", "mlp"}}}, Metric: &Metric{Name: "kl_bits", Goal: "minimize"}}
	pts, err := g.Points()
	if err != nil {
		panic(err)
	}
	m := &Manifest{Grid: g, Points: pts}
	kl := []float64{0.5, 0.125, 2}
	var sts []PointStatus
	for i, p := range pts {
		st := PointStatus{Point: p, State: Missing}
		if i < len(kl) {
			k, be := kl[i], kl[i]/2
			st.State, st.Metrics = Done, &index.Metrics{KLBits: &k, BitErrorPosition: &be, BitErrorSample: &be}
		}
		sts = append(sts, st)
	}
	return m, sts
}

// names is the points' lr and model, in order.
func names(sts []PointStatus) string {
	var out []string
	for _, s := range sts {
		out = append(out, s.Setting("lr")+"/"+s.Setting("model"))
	}
	return strings.Join(out, " ")
}

// TestSortPoints: by the metric (best first; reverse: worst first), a swept flag as numbers,
// the points without a value last either way; an unknown key names the keys.
func TestSortPoints(t *testing.T) {
	m, sts := settingsFixture()
	if got := fmt.Sprint(m.Grid.Swept()); got != "[lr model]" {
		t.Fatalf("swept %s", got)
	}
	for _, c := range []struct {
		key     string
		reverse bool
		want    string
	}{
		{"kl_bits", false, "1e-3/mlp 1e-3/transformer 3e-4/transformer 3e-4/mlp"},
		{"kl_bits", true, "3e-4/transformer 1e-3/transformer 1e-3/mlp 3e-4/mlp"},
		{"lr", false, "3e-4/transformer 3e-4/mlp 1e-3/transformer 1e-3/mlp"},
		{"model", true, "1e-3/transformer 3e-4/transformer 1e-3/mlp 3e-4/mlp"},
		{"index", true, "3e-4/mlp 3e-4/transformer 1e-3/mlp 1e-3/transformer"},
	} {
		_, sts := settingsFixture()
		if err := m.SortPoints(sts, c.key, c.reverse); err != nil || names(sts) != c.want {
			t.Errorf("sort %s reverse %v: %s %v, want %s", c.key, c.reverse, names(sts), err, c.want)
		}
	}
	if err := m.SortPoints(sts, "width", false); err == nil || !strings.Contains(err.Error(), "index, state, name, lr, model, bit_error") {
		t.Errorf("unknown key: %v", err)
	}
}

// TestSettingsText: a row per point with its swept values and scores, the metric's column,
// the names after the columns and the best point.
func TestSettingsText(t *testing.T) {
	m, sts := settingsFixture()
	got := m.SettingsText(sts)
	want := []string{
		"point    state    lr        model     (a)     (b)  kl_bits  name",
		"    1     done  1e-3          mlp  0.0625  0.0625   0.1250  bijection-lr=1e-3-mlp",
		"    3  missing  3e-4          mlp       -       -        -  bijection-lr=3e-4-mlp",
		"best kl_bits (minimize) of the points done: bijection-lr=1e-3-mlp, 0.1250",
	}
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("settings table lacks %q:\n%s", w, got)
		}
	}
	axes, rows, goal := m.Coordinates(sts)
	if fmt.Sprint(axes) != "[lr model kl_bits]" || len(rows) != 3 || fmt.Sprint(rows[1]) != "[1e-3 mlp 0.125]" || goal.Goal != "minimize" {
		t.Errorf("coordinates %v %v %v", axes, rows, goal)
	}
}

// TestManifestSettings: the run picker's settings are the swept flags and each point's
// values, by the absolute path of its session.
func TestManifestSettings(t *testing.T) {
	m, _ := settingsFixture()
	m.dir = t.TempDir()
	s := m.Settings()
	if fmt.Sprint(s.Flags) != "[lr model]" || len(s.Values) != len(m.Points) {
		t.Fatalf("settings %v, %d sessions", s.Flags, len(s.Values))
	}
	for _, p := range m.Points {
		r := index.Run{Path: m.SessionPath(p)}
		if s.Of(r, "lr") != p.Setting("lr") || s.Of(r, "model") != p.Setting("model") || s.Of(r, "task") != "" {
			t.Errorf("%s: lr %q model %q task %q", p.Name, s.Of(r, "lr"), s.Of(r, "model"), s.Of(r, "task"))
		}
	}
}
