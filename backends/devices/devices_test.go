package devices

import (
	"strings"
	"testing"
	"unicode/utf8"

	"windtunnel/backends/gemm"
)

// TestReportText: the report is short lines (CPU backend, library, threads; the GPU or
// why not, and that runs use the CPU).
func TestReportText(t *testing.T) {
	lib := []string{"library   /usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0"}
	gemmLib := gemm.Library{Name: "openblas", Version: "0.3.21 Zen", Path: "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0", Threads: 1}
	for _, c := range []struct {
		name string
		r    Report
		want []string
	}{
		{"no driver", Report{BLAS: "go", Kernel: "avx2+fma 6×16", BLASNote: "OpenBLAS not found", Workers: 2, CUDA: CUDA{
			Reason: "no NVIDIA driver library (libcuda) could be loaded", Env: "WINDTUNNEL_LIBCUDA",
			Searched: []string{"libcuda.so.1", "libcuda.so", "/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/lib64/libcuda.so.1",
				"/usr/local/nvidia/lib64/libcuda.so.1", "/usr/lib/aarch64-linux-gnu/libcuda.so.1", "/usr/lib/wsl/lib/libcuda.so.1"}}},
			[]string{"BLAS      go, the project's own float32 GEMM, avx2+fma 6×16 kernel", "OpenBLAS  OpenBLAS not found", "threads   2", "found     no: no NVIDIA driver library", "libcuda.so.1",
				"WINDTUNNEL_LIBCUDA", "runs      use the CPU"}},
		{"go and openblas", Report{BLAS: "go", Kernel: "avx2+fma 6×16", Workers: 2, Library: &gemmLib},
			append(lib, "BLAS      go, the project's own float32 GEMM, avx2+fma 6×16 kernel (--blas auto)",
				"OpenBLAS  openblas 0.3.21 Zen (--blas openblas)")},
		{"gpu", Report{BLAS: "openblas", Kernel: "generic Go 6×16", Workers: 16, Library: &gemmLib, CUDA: CUDA{Found: true,
			Name: "NVIDIA H100 80GB HBM3", MemoryBytes: 80 << 30, Driver: "13.0", DriverLib: "libcuda.so.1",
			CUBLAS: "13.1.0", CUBLASLib: "libcublas.so.13", NVRTC: "13.0", NVRTCLib: "/opt/venv/lib/python3.12/site-packages/nvidia/cu13/lib/libnvrtc.so.13"}},
			append(lib, "BLAS      openblas 0.3.21 Zen", "GPU       NVIDIA H100 80GB HBM3 (80.0 GiB)",
				"go kernel generic Go 6×16 (--blas go)", "driver    CUDA 13.0 (libcuda.so.1)", "cuBLAS    13.1.0 (libcublas.so.13)", "NVRTC     13.0 (/opt/venv",
				"whole training step on this GPU", "multiply-adds here")},
	} {
		t.Run(c.name, func(t *testing.T) {
			txt := c.r.Text()
			for _, w := range c.want {
				if !strings.Contains(txt, w) {
					t.Errorf("report lacks %q:\n%s", w, txt)
				}
			}
			checkWidth(t, txt, Width)
		})
	}
}

// checkWidth fails when a line of s is wider than w columns.
func checkWidth(t *testing.T, s string, w int) {
	t.Helper()
	for _, l := range strings.Split(s, "\n") {
		if utf8.RuneCountInString(l) > w {
			t.Errorf("line of %d columns (> %d): %q", utf8.RuneCountInString(l), w, l)
		}
	}
}
