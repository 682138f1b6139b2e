package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"windtunnel/sessions/runconfig"
)

// configJSON is the configuration as a session stores it, for comparing two.
func configJSON(t *testing.T, c runconfig.Config) string {
	t.Helper()
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// writeFile writes text to name in a new temporary folder and returns its path.
func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// infoConfig runs `info --config` on a session and writes what it prints to a file.
func infoConfig(t *testing.T, session, format string) string {
	t.Helper()
	code, out, errs := runCLI("info", session, "--config", "--format", format)
	if code != 0 {
		t.Fatalf("info --config --format %s: exit %d: %s", format, code, errs)
	}
	return writeFile(t, "c."+format, out)
}

// TestConfigRoundTrip: a recorded configuration, printed by info --config as TOML or YAML,
// reads back through run --config to the same configuration, zeros and empty lists
// included; flags given replace the file's values and nothing else; --like starts from
// the recorded configuration the same way.
func TestConfigRoundTrip(t *testing.T) {
	for _, args := range [][]string{
		{"--task", "hmm", "--k", "8", "--eval-k", "8,16", "--steps", "40", "--seed", "7", "--probe-every", "0", "--target", "sampled",
			"--layers", "1", "--heads", "2", "--width", "16", "--probe", "32"},
		{"--task", "recall", "--model", "lstm", "--steps", "30", "--lr", "0.0025", "--layers", "2", "--width", "24", "--precision", "float64"},
		{"--task", "bijection", "--model", "mlp-prefix", "--mlp-input", "token", "--v", "5", "--steps", "12", "--eval-every", "5"},
	} {
		t.Run(strings.Join(args[:4], " "), func(t *testing.T) {
			cfg, err := parseRun(t, args...)
			if err != nil {
				t.Fatal(err)
			}
			want := configJSON(t, cfg)
			session := recordedSession(t, cfg)
			for _, format := range []string{"toml", "yaml"} {
				file := infoConfig(t, session, format)
				got, err := parseRun(t, "--config", file)
				if err != nil {
					t.Fatalf("%s: %v", format, err)
				}
				if g := configJSON(t, got); g != want {
					t.Errorf("%s read back:\n got %s\nwant %s", format, g, want)
				}
				over, err := parseRun(t, "--config", file, "--steps", "99", "--seed", "3", "--workers", "2")
				if err != nil {
					t.Fatal(err)
				}
				exp := cfg
				exp.Steps, exp.Seed, exp.Workers = 99, 3, 2
				if g, w := configJSON(t, over), configJSON(t, exp); g != w {
					t.Errorf("%s with flags:\n got %s\nwant %s", format, g, w)
				}
			}
			like, err := parseRun(t, "--like", session)
			if err != nil {
				t.Fatal(err)
			}
			if g := configJSON(t, like); g != want {
				t.Errorf("--like:\n got %s\nwant %s", g, want)
			}
			like, err = parseRun(t, "--like", session, "--batch", "16")
			exp := cfg
			exp.Batch = 16
			if err != nil || configJSON(t, like) != configJSON(t, exp) {
				t.Errorf("--like --batch 16: %v\n got %s\nwant %s", err, configJSON(t, like), configJSON(t, exp))
			}
		})
	}
}

// TestConfigRunRoundTrip: config file → run → info --config prints the file again (its
// first line names the session), and a flag given to the run is what the session records.
func TestConfigRunRoundTrip(t *testing.T) {
	cfg := tinyConfig(t, 4)
	file := infoConfig(t, recordedSession(t, cfg), "toml")
	in, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "again.wtlab")
	if code, _, errs := runCLI("run", "--headless", "--config", file, "--out", out); code != 0 {
		t.Fatalf("run --config: exit %d: %s", code, errs)
	}
	again := infoConfig(t, out, "toml")
	got, err := os.ReadFile(again)
	if err != nil {
		t.Fatal(err)
	}
	body := func(b []byte) string { _, rest, _ := strings.Cut(string(b), "\n"); return rest }
	if body(got) != body(in) {
		t.Errorf("the run's configuration is not the file's:\n%s\nvs\n%s", got, in)
	}
	out2 := filepath.Join(t.TempDir(), "seed.wtlab")
	if code, _, errs := runCLI("run", "--headless", "--config", file, "--seed", "5", "--out", out2); code != 0 {
		t.Fatalf("run --config --seed 5: exit %d: %s", code, errs)
	}
	seeded := infoConfig(t, out2, "toml")
	b, _ := os.ReadFile(seeded)
	if !strings.Contains(string(b), "\nseed = 5\n") || strings.Replace(body(b), "seed = 5", "seed = 1", 1) != body(in) {
		t.Errorf("--seed 5 over the file:\n%s", b)
	}
}

// TestConfigPrecedence: preset < file < flags; keys the file leaves out keep the preset's,
// and the preset's cadences are fitted to the file's steps unless the file gives them.
func TestConfigPrecedence(t *testing.T) {
	partial := writeFile(t, "p.toml", "task = \"hmm\"\nsteps = 120\nlr = 0.002\n[transformer]\nlayers = 3\n")
	yamlFile := writeFile(t, "p.yaml", "steps: 120\neval_every: 7\ntunnel:\n  v: 6\n")
	for _, c := range []struct {
		name  string
		args  []string
		check func(runconfig.Config) bool
	}{
		{"file over preset", []string{"--config", partial}, func(c runconfig.Config) bool {
			return c.Task == "hmm" && c.Steps == 120 && c.LR == 0.002 && c.Transformer.Layers == 3 && c.Transformer.Width == 64 &&
				c.Batch == 64 && c.EvalEvery == 10 && c.CheckpointEvery == 40 && c.Tunnel.K == 20 && len(c.EvalK) == 3
		}},
		{"flags over file", []string{"--config", partial, "--lr", "0.005", "--layers", "2", "--k", "9", "--eval-k", "9"}, func(c runconfig.Config) bool {
			return c.LR == 0.005 && c.Transformer.Layers == 2 && c.Steps == 120 && c.Tunnel.K == 9 && len(c.EvalK) == 1
		}},
		{"flag steps refit", []string{"--config", partial, "--steps", "24"}, func(c runconfig.Config) bool { return c.Steps == 24 && c.EvalEvery == 2 }},
		{"file cadence kept", []string{"--config", yamlFile}, func(c runconfig.Config) bool {
			return c.Task == "bijection" && c.Tunnel.V == 6 && c.EvalEvery == 7 && c.ProbeEvery == 20
		}},
		{"preset under file", []string{"--config", yamlFile, "--preset", "mid"}, func(c runconfig.Config) bool {
			return c.Transformer.Width == 96 && c.Steps == 120 && c.EvalEvery == 7
		}},
		{"task flag over file", []string{"--config", partial, "--task", "bijection"}, func(c runconfig.Config) bool {
			return c.Task == "bijection" && c.Tunnel.V == 0 && c.LR == 0.002 && c.EvalK == nil
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := parseRun(t, c.args...)
			if err != nil {
				t.Fatal(err)
			}
			if !c.check(cfg) {
				t.Errorf("%s", configJSON(t, cfg))
			}
		})
	}
}

// TestConfigErrors: a bad file or a bad combination is a usage error naming the file and
// the key (with the closest known one), never the flag the file did not use.
func TestConfigErrors(t *testing.T) {
	session := recordedSession(t, tinyConfig(t, 60))
	for _, c := range []struct {
		name, file, text string
		extra            []string
		want             string
	}{
		{"unknown key", "a.toml", "stesp = 3\n", nil, `unknown key "stesp" (did you mean "steps"?)`},
		{"unknown nested key", "a.yaml", "transformer:\n  layres: 3\n", nil, `unknown key "transformer.layres" (did you mean "transformer.Layers"?)`},
		{"value for a table", "a.toml", "transformer = 3\n", nil, `key "transformer": a number, want a table`},
		{"table for a value", "a.toml", "[steps]\nx = 1\n", nil, `key "steps": a table, want a value`},
		{"wrong type", "a.toml", "steps = \"many\"\n", nil, `key "steps": a string, want a whole number`},
		{"fraction", "a.yaml", "steps: 2.5\n", nil, `key "steps": a number 2.5, want a whole number`},
		{"out of range", "a.toml", "steps = 0\n", nil, "steps 0: want 1..100000000"},
		{"a size names the key it depends on", "a.toml", "[transformer]\nwidth = 65\nheads = 4\n", nil, "transformer.heads 4: want a divisor of transformer.width (65)"},
		{"tunnel size", "a.toml", "[tunnel]\nV = 2\n", nil, "tunnel.V 2: bijection v must be in 3..64"},
		{"bad toml", "a.toml", "steps = = 3\n", nil, "not valid TOML"},
		{"bad yaml", "a.yaml", "steps: [\n", nil, "not valid YAML"},
		{"extension", "a.ini", "steps=3\n", nil, `want a .toml, .yaml, .yml or .json file, not ".ini"`},
		{"both", "a.toml", "steps = 3\n", []string{"--like", session}, "--config and --like: give one"},
		{"nested deep", "a.toml", "steps = " + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "\n", nil, "nested 100000 deep: not a configuration (at most 32)"},
		{"quotes closing a multi-line string", "a.toml", "target = \"\"\"x\"\"\"\"\nsteps = " + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "\nx = \"\n", nil,
			"nested 100000 deep: not a configuration (at most 32)"},
		{"dotted keys", "a.toml", strings.Repeat("a.", 5000) + "a = 1\n", nil, "nested 10000 deep: not a configuration"},
		{"brackets in text", "a.toml", "# " + strings.Repeat("[", 40) + "\ntarget = '''" + strings.Repeat("{", 40) + "'''\n", nil, `target "` + strings.Repeat("{", 40) + `": want`},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := writeFile(t, c.file, c.text)
			args := append([]string{"run", "--headless", "--config", file}, c.extra...)
			code, _, errs := runCLI(args...)
			// Nested keys are compared ignoring case: the sizes' JSON names may be spelt either way.
			if code != 2 || !strings.Contains(strings.ToLower(errs), strings.ToLower(c.want)) || (c.name != "both" && !strings.Contains(errs, "--config "+file)) {
				t.Errorf("exit %d, %q; want exit 2 with %q", code, errs, c.want)
			}
		})
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--like", session, "--task", "hmm"}, "--task hmm with --like " + session + ": that run's task is bijection"},
		{[]string{"run", "--like", session, "--preset", "paper"}, "--preset with --like"},
		{[]string{"run", "--like", filepath.Join(t.TempDir(), "none.wtlab")}, "--like"},
		{[]string{"run", "--config", filepath.Join(t.TempDir(), "none.toml")}, "no such file"},
		{[]string{"info", session, "--config", "--format", "ini"}, `--format "ini": want toml or yaml`},
		{[]string{"info", session, "--config", "--json"}, "--config and --json: give one"},
		{[]string{"info", session, "--format", "yaml"}, "--format applies to --config only"},
	} {
		code, _, errs := runCLI(c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 with %q", c.args, code, errs, c.want)
		}
	}
}
