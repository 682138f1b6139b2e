package bench

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"windtunnel/models/arch"
	"windtunnel/sessions/runconfig"
)

// TorchScriptName is the file name of the project's PyTorch reference (scripts/ in the
// repository; gpu-check.sh packs it next to the binary).
const TorchScriptName = "torch_reference.py"

// torchInstallHint is what bench tells a user whose machine has no PyTorch.
const torchInstallHint = "apt install python3-torch, or name a Python with --python"

// Torch is where bench found the PyTorch reference and a Python that imports torch; a
// missing half leaves its field empty and says why in Why.
type Torch struct {
	Script, Python string
	Why            string // short, for a table cell; empty when both were found
}

// FindTorch locates the reference script (see torchScriptPlaces) and a Python with torch
// (see pythonCandidates), writing what it tried to log when either is missing. An explicit
// script (--torch-script, which must exist) or python (--python) that does not work is an
// error, not a fallback.
func FindTorch(ctx context.Context, script, python string, log func(string)) (Torch, error) {
	var r Torch
	if script != "" {
		r.Script = script
	} else if env := os.Getenv("TORCH_REFERENCE"); env != "" {
		if _, err := os.Stat(env); err != nil {
			return r, fmt.Errorf("bench: $TORCH_REFERENCE %s: %w", env, err)
		}
		r.Script = env
	} else {
		exe, _ := os.Executable()
		cwd, _ := os.Getwd()
		_, src, _, _ := runtime.Caller(0)
		places := torchScriptPlaces(exe, cwd, src)
		r.Script = firstFile(places)
		if r.Script == "" {
			r.Why = TorchScriptName + " not found (use --torch-script)"
			log(fmt.Sprintf("bench: the PyTorch reference %s was not found; looked at:\n  %s\n", TorchScriptName, strings.Join(places, "\n  ")))
			return r, nil
		}
	}
	if abs, err := filepath.Abs(r.Script); err == nil {
		r.Script = abs
	}
	cands := pythonCandidates(python, os.Getenv("PYTHON"), exec.LookPath)
	py, tried := firstWithTorch(ctx, cands)
	if py == "" {
		if python != "" {
			return r, fmt.Errorf("bench: --python %s: %s", python, strings.Join(tried, "; "))
		}
		r.Why = "no Python with PyTorch (" + torchInstallHint + ")"
		log(fmt.Sprintf("bench: no Python that imports torch: %s\n  install PyTorch (%s)\n", strings.Join(tried, "; "), torchInstallHint))
		return r, nil
	}
	r.Python = py
	return r, nil
}

// torchScriptPlaces lists, in order, where bench looks for the reference without a flag:
// next to the executable (gpu-check.sh's gpu/) and in its scripts/ (a binary built at the
// repository root); in scripts/ of the current folder or the nearest folder above it that
// holds windtunnel's go.mod (go run, go test); and in the repository the binary was built
// from, found from this source file's path (absent in a -trimpath build).
func torchScriptPlaces(exe, cwd, src string) []string {
	var out []string
	add := func(p string) {
		for _, q := range out {
			if q == p {
				return
			}
		}
		out = append(out, p)
	}
	if exe != "" {
		dir := filepath.Dir(exe)
		add(filepath.Join(dir, TorchScriptName))
		add(filepath.Join(dir, "scripts", TorchScriptName))
	}
	if cwd != "" {
		add(filepath.Join(cwd, "scripts", TorchScriptName))
		if root := moduleRoot(cwd); root != "" {
			add(filepath.Join(root, "scripts", TorchScriptName))
		}
	}
	if filepath.IsAbs(src) {
		if root := moduleRoot(filepath.Dir(src)); root != "" {
			add(filepath.Join(root, "scripts", TorchScriptName))
		}
	}
	return out
}

// moduleRoot is the nearest folder at or above dir whose go.mod declares module windtunnel,
// or "".
func moduleRoot(dir string) string {
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			if first, _, _ := strings.Cut(string(b), "\n"); strings.TrimSpace(first) == "module windtunnel" {
				return dir
			}
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}

func firstFile(paths []string) string {
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// pythonCandidates lists the Pythons to try in order: the explicit one alone when given;
// otherwise $PYTHON, python3 on PATH, then Debian's /usr/bin/python3 (where apt's
// python3-torch installs), each once.
func pythonCandidates(explicit, env string, lookPath func(string) (string, error)) []string {
	if explicit != "" {
		return []string{explicit}
	}
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if p == "" {
			return
		}
		key := p
		if r, err := filepath.EvalSymlinks(p); err == nil {
			key = r
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, p)
		}
	}
	add(env)
	if p, err := lookPath("python3"); err == nil {
		add(p)
	}
	add("/usr/bin/python3")
	return out
}

// firstWithTorch returns the first candidate that imports torch, and for each one tried
// before it (or all, when none does) why it was passed over.
func firstWithTorch(ctx context.Context, cands []string) (string, []string) {
	var tried []string
	for _, py := range cands {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		cmd := exec.CommandContext(cctx, py, "-c", "import torch")
		cmd.Env = append(os.Environ(), "OPENBLAS_NUM_THREADS=1")
		var errb bytes.Buffer
		cmd.Stderr = &errb
		err := cmd.Run()
		cancel()
		if err == nil {
			return py, tried
		}
		why := err.Error()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if lines := strings.Split(strings.TrimSpace(errb.String()), "\n"); lines[len(lines)-1] != "" {
				why = lines[len(lines)-1]
			}
		}
		tried = append(tried, py+": "+why)
	}
	return "", tried
}

// TorchArgs are the reference's flags for the bijection transformer of cfg: the same
// symbols, model, batch, AdamW step (learning rate, warm-up, decay, clip), initialisation,
// GELU form and seed, for steps steps on device at threads threads; with eval, an evaluation of cfg's
// probe set every cfg.EvalEvery steps.
func TorchArgs(cfg runconfig.Config, device string, steps, threads int, eval bool) []string {
	tc, itoa := cfg.Transformer, strconv.Itoa
	ftoa := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	args := []string{"--device", device, "--V", itoa(cfg.Tunnel.WithDefaults().V), "--d", itoa(tc.Width), "--layers", itoa(tc.Layers),
		"--heads", itoa(tc.Heads), "--mlp", itoa(tc.MLP), "--batch", itoa(cfg.Batch), "--steps", itoa(steps), "--threads", itoa(threads),
		"--lr", ftoa(cfg.LR), "--warmup", itoa(cfg.Warmup), "--wd", ftoa(cfg.WeightDecay), "--clip", ftoa(cfg.Clip),
		"--init", cmp.Or(cfg.Init, arch.InitNormal), "--gelu", cmp.Or(cfg.GELU, arch.GELUTanh), "--seed", strconv.FormatUint(cfg.Seed, 10)}
	if eval {
		args = append(args, "--eval-every", itoa(cfg.EvalEvery), "--probe", itoa(cfg.ProbeSize))
	}
	return args
}

// torchCommand is the reference run by python with args (TorchArgs), one BLAS thread,
// its output unbuffered.
func torchCommand(ctx context.Context, python, script string, args []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, python, append([]string{script}, args...)...)
	cmd.Env = append(os.Environ(), "OPENBLAS_NUM_THREADS=1", "PYTHONUNBUFFERED=1")
	return cmd
}

// RunTorch runs the reference with args (TorchArgs) and returns its JSON output lines.
func RunTorch(ctx context.Context, python, script string, args []string) ([][]byte, error) {
	cmd := torchCommand(ctx, python, script, args)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v: %s", python, script, err, strings.TrimSpace(errb.String()))
	}
	var lines [][]byte
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if l := bytes.TrimSpace(sc.Bytes()); len(l) > 0 && l[0] == '{' {
			lines = append(lines, append([]byte(nil), l...))
		}
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("%s printed no JSON", script)
	}
	return lines, nil
}
