package cuda

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestInitDriverSkipsStub: a libcuda that loads but fails cuInit (a stub, a driver without a
// device) does not end the search; the next candidate is used, and when none initialises the
// error names each and wraps ErrNoDevice.
func TestInitDriverSkipsStub(t *testing.T) {
	load := func(p string) (*driver, error) {
		if p == "missing" {
			return nil, errors.New("cannot open")
		}
		return &driver{path: p}, nil
	}
	init := func(d *driver) error {
		if d.path == "stub" {
			return &Error{Op: "cuInit", Code: 100, Msg: "CUDA_ERROR_NO_DEVICE"}
		}
		return nil
	}
	d, err := initDriver([]string{"missing", "stub", "real"}, load, init)
	if err != nil || d.path != "real" {
		t.Fatalf("got %v, %v; want the real driver", d, err)
	}
	_, err = initDriver([]string{"missing", "stub"}, load, init)
	if !errors.Is(err, ErrNoDevice) || !strings.Contains(err.Error(), "stub") || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("err = %v, want ErrNoDevice naming both candidates", err)
	}
	_, err = initDriver([]string{"missing"}, load, init)
	if !errors.Is(err, ErrNoDriver) {
		t.Fatalf("err = %v, want ErrNoDriver", err)
	}
}

// TestWheelLibsFromPythonOnPath: the NVIDIA wheels of the environment whose python3 is on PATH
// (a venv outside the usual folders, as PyTorch's on GPU boxes) are searched for NVRTC and
// cuBLAS, and a relative PATH entry is never used.
func TestWheelLibsFromPythonOnPath(t *testing.T) {
	env := t.TempDir()
	bin := filepath.Join(env, "bin")
	lib := filepath.Join(env, "lib", "python3.12", "site-packages", "nvidia", "cu13", "lib")
	for _, d := range []string{bin, lib} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(bin, "python3"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"libnvrtc.so.13", "libcublas.so.13"} {
		if err := os.WriteFile(filepath.Join(lib, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("VIRTUAL_ENV", "")
	t.Setenv("PATH", bin)
	if !slices.Contains(NVRTCCandidates(), filepath.Join(lib, "libnvrtc.so.13")) {
		t.Errorf("NVRTC candidates lack the wheel in %s: %v", lib, NVRTCCandidates())
	}
	if !slices.Contains(CUBLASCandidates(), filepath.Join(lib, "libcublas.so.13")) {
		t.Errorf("cuBLAS candidates lack the wheel in %s", lib)
	}
	t.Chdir(env)
	t.Setenv("PATH", "bin")
	for _, p := range NVRTCCandidates() {
		if strings.HasPrefix(p, env) {
			t.Errorf("a relative PATH entry was searched: %s", p)
		}
	}
}

// TestRelativeLibraryPathRefused: a relative path with a slash in WINDTUNNEL_LIBCUDA,
// WINDTUNNEL_LIBCUBLAS or WINDTUNNEL_LIBNVRTC is never opened (it would resolve against the
// current directory); the error says so.
func TestRelativeLibraryPathRefused(t *testing.T) {
	for _, p := range []string{"./libcuda.so.1", "lib/libnvrtc.so.13", "../libcublas.so.13"} {
		if _, err := dlopen(p, 0); err == nil || !strings.Contains(err.Error(), "relative") {
			t.Errorf("dlopen(%q) = %v, want a refusal naming a relative path", p, err)
		}
	}
	t.Setenv(EnvLibNVRTC, "./libnvrtc.so.13")
	if _, _, err := ProbeNVRTC(); err == nil || !strings.Contains(err.Error(), "relative") {
		t.Errorf("ProbeNVRTC with a relative override: %v", err)
	}
}
