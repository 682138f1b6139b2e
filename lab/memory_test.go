package lab

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"windtunnel/models/arch"
	"windtunnel/sessions/derived"
	"windtunnel/sessions/runconfig"

	"windtunnel/backends/bytesize"
	"windtunnel/sessions"
)

// TestMemoryEstimate: the presets fit in a few GiB; sizes each within its flag's range but
// together beyond the machine are refused by New's check, naming the estimate and what is
// available; an unknown amount of memory refuses nothing.
func TestMemoryEstimate(t *testing.T) {
	quick, err := runconfig.Preset(runconfig.PresetQuick, "bijection")
	if err != nil {
		t.Fatal(err)
	}
	paper, err := runconfig.Preset(runconfig.PresetPaper, "hmm")
	if err != nil {
		t.Fatal(err)
	}
	huge := quick
	huge.Transformer = arch.TransformerConfig{Layers: 64, Heads: 64, Width: 4096, MLP: 65536}
	wideBatch := quick
	wideBatch.Batch = 65536
	f64 := quick
	f64.Precision = "float64"
	cases := []struct {
		name      string
		cfg       runconfig.Config
		available int64
		refused   bool
	}{
		{"quick in 1 GiB", quick, 1 << 30, false},
		{"paper hmm in 8 GiB", paper, 8 << 30, false},
		{"quick in 1 MiB", quick, 1 << 20, true},
		{"64×4096 transformer in 64 GiB", huge, 64 << 30, true},
		{"64×4096 transformer, memory unknown", huge, 0, false},
		{"batch 65536 in 4 GiB", wideBatch, 4 << 30, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckMemory(c.cfg, c.available)
			var me *MemoryError
			if got := errors.As(err, &me); got != c.refused {
				t.Fatalf("refused = %v (%v), want %v", got, err, c.refused)
			}
			if me != nil && (!strings.Contains(err.Error(), bytesize.String(c.available)+" is available") || me.Need.Total <= c.available) {
				t.Errorf("message %q", err)
			}
		})
	}
	m32, _ := MemoryEstimate(quick)
	m64, _ := MemoryEstimate(f64)
	if m64.Weights != 2*m32.Weights || m32.Params <= 0 {
		t.Errorf("float64 weights %d, float32 %d", m64.Weights, m32.Weights)
	}
}

func TestMemAvailable(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"MemTotal:       16000000 kB\nMemFree: 1 kB\nMemAvailable:    8000000 kB\n", 8000000 << 10},
		{"MemTotal: 1 kB\n", 0},
		{"MemAvailable: x kB\n", 0},
		{"", 0},
	} {
		if got := memAvailable(strings.NewReader(c.in)); got != c.want {
			t.Errorf("%q: %d, want %d", c.in, got, c.want)
		}
	}
}

// TestSessionConfig: a stored configuration naming a size out of range (a 10^9-wide model,
// a huge batch, an unknown task) or not JSON is "not a session", before any model is built.
func TestSessionConfig(t *testing.T) {
	quick, err := runconfig.Preset(runconfig.PresetQuick, "bijection")
	if err != nil {
		t.Fatal(err)
	}
	good, _ := json.Marshal(quick)
	for _, c := range []struct {
		name, config string
		field        string // "" for a decoding error; "-" for none
	}{
		{"quick", string(good), "-"},
		{"10^9 wide", strings.Replace(string(good), `"width":64`, `"width":1000000000`, 1), "Transformer.Width"},
		{"batch 10^9", strings.Replace(string(good), `"batch":64`, `"batch":1000000000`, 1), "Batch"},
		{"unknown task", strings.Replace(string(good), `"task":"bijection"`, `"task":"nope"`, 1), "Tunnel"},
		{"not JSON", `{"task":`, ""},
		{"width not a number", `{"transformer":{"Width":"x"}}`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := derived.SessionConfig(sessions.Meta{Path: "x.wtlab", Config: json.RawMessage(c.config)})
			if c.field == "-" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, sessions.ErrNotSession) {
				t.Fatalf("err = %v, want ErrNotSession", err)
			}
			var fe *arch.FieldError
			if c.field != "" && (!errors.As(err, &fe) || fe.Field != c.field) {
				t.Errorf("err = %v, want a field error on %s", err, c.field)
			}
		})
	}
}

// FuzzSessionConfig: the probe and resume path's decoding of a stored configuration (decode,
// bound, estimate) never panics, and a configuration it accepts has a finite estimate.
func FuzzSessionConfig(f *testing.F) {
	for _, task := range []string{"bijection", "hmm", "recall"} {
		c, err := runconfig.Preset(runconfig.PresetQuick, task)
		if err != nil {
			f.Fatal(err)
		}
		b, _ := json.Marshal(c)
		f.Add(b)
	}
	f.Add([]byte(`{"task":"bijection","model":"transformer","transformer":{"Layers":1,"Heads":1,"Width":1000000000}}`))
	f.Add([]byte(`{"task":"hmm","model":"mamba","steps":1,"batch":1,"probe_size":1,"eval_k":[512,512],"mamba":{"Layers":64,"Width":4096,"State":256,"Expand":16}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := derived.SessionConfig(sessions.Meta{Config: b})
		if err != nil {
			if !errors.Is(err, sessions.ErrNotSession) {
				t.Fatalf("error %v is not ErrNotSession", err)
			}
			return
		}
		m, err := MemoryEstimate(c)
		if err != nil {
			t.Fatalf("accepted config has no estimate: %v", err)
		}
		if m.Total <= 0 || m.Params <= 0 {
			t.Fatalf("estimate %+v", m)
		}
	})
}
