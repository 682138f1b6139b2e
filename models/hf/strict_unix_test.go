//go:build unix

package hf

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFIFOsRefusedAtOnce puts a FIFO where each file of a folder is read (config.json,
// the index, a shard it names, model.safetensors, a globbed *.safetensors): Open refuses
// it at once, naming it, instead of waiting for a writer.
func TestFIFOsRefusedAtOnce(t *testing.T) {
	for _, name := range []string{"config.json", "model.safetensors.index.json", "s2.safetensors", "model.safetensors", "extra.safetensors"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			ts := someTensors(rand.New(rand.NewPCG(7, 8)))
			switch name {
			case "model.safetensors.index.json", "s2.safetensors":
				dir = shardedDir(t, func(map[string]string) {})
			case "extra.safetensors":
				writeTemp(t, dir, "a.safetensors", ts, F32)
			default:
				writeTemp(t, dir, "model.safetensors", ts, F32)
			}
			os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{}`), 0o644)
			p := filepath.Join(dir, name)
			os.Remove(p)
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Skipf("no FIFO: %v", err)
			}
			done := make(chan error, 1)
			go func() {
				f, err := Open(dir)
				if err == nil {
					f.Close()
				}
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), p+" is a FIFO") {
					t.Errorf("error %v, want one saying %s is a FIFO", err, p)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("Open waited on the FIFO %s", name)
			}
		})
	}
}

// TestTruncatedUnderTheMapping truncates a mapped weights file: Check names the file, and
// reading a tensor past the new end is an error naming it, not SIGBUS.
func TestTruncatedUnderTheMapping(t *testing.T) {
	dir := t.TempDir()
	big := Named{Name: "big", Shape: []int{64, 1024}, Values: make([]float32, 64*1024)}
	p := writeTemp(t, dir, "model.safetensors", []Named{big}, F16)
	os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{}`), 0o644)
	f, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Check(); err != nil {
		t.Fatalf("before: %v", err)
	}
	if err := os.Truncate(p, 4096); err != nil {
		t.Fatal(err)
	}
	if err := f.Check(); err == nil || !strings.Contains(err.Error(), p+" changed under the run") {
		t.Errorf("Check: %v", err)
	}
	_, err = f.Tensor("big").Rows(60, 64, make([]float32, 4*1024))
	if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "changed under the run") {
		t.Errorf("Rows past the end: %v", err)
	}
}
