//go:build unix

package llm

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"windtunnel/models/hf"
)

// TestWeightsTruncatedUnderARun truncates the weights of a loaded model, float32 (used in
// place from the mapping) and float16 (converted from it): the next pass is an error
// naming the file, not SIGBUS.
func TestWeightsTruncatedUnderARun(t *testing.T) {
	for _, dt := range []hf.DType{hf.F32, hf.F16} {
		t.Run(string(dt), func(t *testing.T) {
			dir := writeTiny(t, "llama", dt, 1, false)
			m, err := Load(dir, Options{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			seqs := [][]int{{1, 2, 3, 4}}
			if _, err := m.Forward(context.Background(), Request{Seqs: seqs}); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, "model.safetensors")
			if err := os.Truncate(p, 1024); err != nil {
				t.Fatal(err)
			}
			_, err = m.Forward(context.Background(), Request{Seqs: seqs})
			if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "changed under the run") {
				t.Errorf("error %v, want one naming %s", err, p)
			}
		})
	}
}

// TestTokenizerAndConfigFIFOs puts a FIFO in place of config.json and of tokenizer.json:
// Load refuses each at once.
func TestTokenizerAndConfigFIFOs(t *testing.T) {
	for _, name := range []string{"config.json", "tokenizer.json"} {
		t.Run(name, func(t *testing.T) {
			dir := writeTiny(t, "neox", hf.F32, 2, false)
			p := filepath.Join(dir, name)
			os.Remove(p)
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Skipf("no FIFO: %v", err)
			}
			done := make(chan error, 1)
			go func() {
				m, err := Load(dir, Options{})
				if err == nil {
					m.Close()
				}
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "not a regular file") && !strings.Contains(err.Error(), "is a FIFO") {
					t.Errorf("error %v, want a refusal of the FIFO", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("Load waited on the FIFO %s", name)
			}
		})
	}
}
