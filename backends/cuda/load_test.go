package cuda

import (
	"errors"
	"strings"
	"testing"
)

func TestLoadDriverErrors(t *testing.T) {
	paths := []string{"/nonexistent/libcuda.so.1", "/nonexistent/other/libcuda.so"}
	_, err := loadDriver(paths)
	if !errors.Is(err, ErrNoDriver) {
		t.Fatalf("err = %v, want ErrNoDriver", err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "cuda: load driver: tried ") {
		t.Errorf("message %q", msg)
	}
	for _, p := range paths {
		if strings.Count(msg, p) != 1 {
			t.Errorf("message does not name %s exactly once: %q", p, msg)
		}
	}
	// A library that loads but is not the driver.
	_, err = loadDriver([]string{"libc.so.6"})
	if !errors.Is(err, ErrNoDriver) || !strings.Contains(err.Error(), "cuInit") {
		t.Errorf("libc.so.6 as driver: %v", err)
	}
}

func TestLoadCUBLASErrors(t *testing.T) {
	paths := []string{"/nonexistent/libcublas.so.13", "libcublas-not-there.so.12"}
	_, err := loadCUBLAS(paths)
	if !errors.Is(err, ErrNoCUBLAS) {
		t.Fatalf("err = %v, want ErrNoCUBLAS", err)
	}
	for _, p := range paths {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("message does not name %s: %q", p, err)
		}
	}
	if _, err := loadCUBLAS([]string{"libc.so.6"}); !errors.Is(err, ErrNoCUBLAS) || !strings.Contains(err.Error(), "cublasSgemm_v2") {
		t.Errorf("libc.so.6 as cuBLAS: %v", err)
	}
}

func TestCandidates(t *testing.T) {
	t.Setenv(EnvLibCUDA, "/opt/test/libcuda.so.1")
	t.Setenv(EnvLibCUBLAS, "/opt/test/libcublas.so.13")
	d := DriverCandidates()
	if d[0] != "/opt/test/libcuda.so.1" || !contains(d, "libcuda.so.1") || !contains(d, "/usr/lib/wsl/lib/libcuda.so.1") {
		t.Errorf("DriverCandidates() = %v", d)
	}
	c := CUBLASCandidates()
	if c[0] != "/opt/test/libcublas.so.13" || !contains(c, "libcublas.so.13") || !contains(c, "/usr/local/cuda/lib64/libcublas.so.13") {
		t.Errorf("CUBLASCandidates() = %v", c)
	}
	t.Setenv(EnvLibCUDA, "")
	if d := DriverCandidates(); d[0] != "libcuda.so.1" {
		t.Errorf("without %s: %v", EnvLibCUDA, d)
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// driverLoads reports whether some default driver candidate loads here.
func driverLoads() bool {
	_, err := loadDriver(DriverCandidates())
	return err == nil
}

func TestOpenWithoutGPU(t *testing.T) {
	bogus := "/nonexistent/windtunnel-test/libcuda.so.1"
	t.Setenv(EnvLibCUDA, bogus)
	be, err := Open(Options{})
	if err == nil {
		be.Close()
		t.Skip("a GPU is present: the no-GPU error path cannot be observed here")
	}
	if !errors.Is(err, ErrNoDriver) && !errors.Is(err, ErrNoDevice) && !errors.Is(err, ErrNoCUBLAS) {
		t.Fatalf("Open: %v, want ErrNoDriver, ErrNoDevice or ErrNoCUBLAS", err)
	}
	if driverLoads() {
		t.Skipf("a driver library loads here: Open failed with %v", err)
	}
	if !errors.Is(err, ErrNoDriver) {
		t.Fatalf("Open: %v, want ErrNoDriver", err)
	}
	for _, p := range []string{bogus, "libcuda.so.1", "/usr/lib/wsl/lib/libcuda.so.1"} {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("the error does not name %s: %v", p, err)
		}
	}
	info, err := Probe()
	if !errors.Is(err, ErrNoDriver) || info.Name != "" {
		t.Errorf("Probe() = %+v, %v", info, err)
	}
}
