package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"windtunnel/lab"
)

// TestRunRefusesOverAddressLimit: under an address-space limit (ulimit -v 4 GiB) a run whose
// estimate fits the machine's free memory but not the limit is refused at start, naming the
// limit, instead of dying of "out of memory" while it builds the model.
func TestRunRefusesOverAddressLimit(t *testing.T) {
	const limit = 4 << 30
	if free := lab.AvailableMemory(); free > 0 && free < 8<<30 {
		t.Skipf("%d MiB available here: the machine's memory, not the limit, would refuse the run", free>>20)
	}
	out := filepath.Join(t.TempDir(), "big.wtlab")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// About 450M parameters: 7 GiB of weights, gradients and moments.
	cmd := exec.CommandContext(ctx, os.Args[0], "run", "--headless", "--task", "bijection", "--layers", "12", "--width", "1024",
		"--heads", "8", "--mlp-hidden", "16384", "--steps", "10", "--out", out)
	cmd.Env = append(os.Environ(), childEnv+"=1", asEnv+"="+strconv.Itoa(limit))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	code := cmd.ProcessState.ExitCode()
	if ctx.Err() != nil {
		t.Fatalf("the run did not end within 60 s: %s", stderr.String())
	}
	msg := stderr.String()
	if err == nil || code != 1 || !strings.Contains(msg, "the run needs about") || !strings.Contains(msg, "RLIMIT_AS") {
		t.Fatalf("exit %d, stderr (last 600 bytes) %q: want a refusal at start naming RLIMIT_AS", code, msg[max(len(msg)-600, 0):])
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a session was created for a refused run (%v)", err)
	}
}
