package sweep

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// sbatchOptions are --sbatch-option values: accepted ones, and refused ones with what the
// refusal says (issue 44 item 7: sbatch reads abbreviations, short options and several
// options on one #SBATCH line).
var sbatchOptions = []struct {
	opt  string
	want string // "" accepted, else part of the refusal
}{
	{"--account=lab", ""},
	{"--qos=low", ""},
	{"--comment='a b'", ""},
	{`--comment="x#y"`, ""},
	{"--exclusive", ""},
	{"--time-min=10", ""},
	{"--array=0-9", "the sweep sets --array itself"},
	{"--arr=0-9", "sbatch reads --arr as --array"},
	{"--outp=/tmp/x", "sbatch reads --outp as --output"},
	{"--output=/tmp/x", "the sweep sets --output itself"},
	{"--err=/tmp/x", "--error"},
	{"--open=truncate", "--open-mode"},
	{"--pars", "--parsable"},
	{"--wr=true", "--wrap"},
	{"--part=gpu", "give sweep's own --partition"},
	{"--time=1:00:00", "give sweep's own --time"},
	{"--o=x", "--output"},
	{"-ofile", "long form"},
	{"-A lab", "sbatch reads 2 words"},
	{"--account=lab --output=/tmp/x", "give each option its own --sbatch-option"},
	{"--comment=a#b", "starts a comment"},
	{"--qos=low\n#SBATCH --output=x", "line break"},
	{"", "want one option"},
	{"--Account=lab", "not an option's name"},
}

// TestCheckOption: each extra sbatch option accepted or refused, saying why.
func TestCheckOption(t *testing.T) {
	for _, c := range sbatchOptions {
		err := CheckOption(c.opt)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q refused: %v", c.opt, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: %v, want a refusal saying %q", c.opt, err, c.want)
		}
	}
}

// TestCheckOptionAsSbatchReads holds CheckOption to Slurm's own sbatch (no controller needed:
// it reads the script's options before it would submit): every option accepted is read by
// sbatch as valid, and the refused abbreviations and short options are valid to sbatch too —
// they would have set what the sweep sets.
func TestCheckOptionAsSbatchReads(t *testing.T) {
	sbatch, err := exec.LookPath("sbatch")
	if err != nil {
		if os.Getenv("WINDTUNNEL_REQUIRE_SLURM") == "1" {
			t.Fatal("no sbatch (and WINDTUNNEL_REQUIRE_SLURM=1)")
		}
		t.Skip("no sbatch")
	}
	dir := t.TempDir()
	host, _ := os.Hostname()
	host, _, _ = strings.Cut(host, ".")
	conf := filepath.Join(dir, "slurm.conf")
	os.WriteFile(conf, []byte("ClusterName=wt\nSlurmctldHost="+host+"(127.0.0.1)\nSlurmctldPort=1\nAuthType=auth/munge\n"+
		"NodeName="+host+" NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN\nPartitionName=debug Nodes="+host+" Default=YES State=UP\n"), 0o644)
	// reads reports whether sbatch reads the #SBATCH line as valid options: the marker on
	// the next line is then what it stops at.
	reads := func(line string) (bool, string) {
		script := filepath.Join(dir, "t.sh")
		os.WriteFile(script, []byte("#!/bin/bash\n#SBATCH "+line+"\n#SBATCH --wt-marker\ntrue\n"), 0o600)
		cmd := exec.Command(sbatch, script)
		cmd.Env = append(os.Environ(), "SLURM_CONF="+conf)
		out, _ := cmd.CombinedOutput()
		return strings.Contains(string(out), "unrecognized option '--wt-marker'"), string(out)
	}
	if ok, out := reads("--account=lab"); !ok {
		t.Skipf("this sbatch does not say which option it stops at: %s", out)
	}
	for _, c := range sbatchOptions {
		if c.want == "" {
			if ok, out := reads(c.opt); !ok {
				t.Errorf("%q accepted, but sbatch does not read it: %s", c.opt, out)
			}
		}
	}
	for _, opt := range []string{"--arr=0-9", "--outp=/tmp/x", "--err=/tmp/x", "--part=gpu", "-ofile", "-A lab", "--account=lab --output=/tmp/x"} {
		if ok, out := reads(opt); !ok {
			t.Errorf("%q: sbatch does not read it as options (%s), so refusing it would not matter", opt, out)
		}
	}
}
