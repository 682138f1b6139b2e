package accel

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// signatures parses every `extern "C" __global__ void name(args)` in src into argument kinds.
func signatures(t *testing.T, src string) map[string][]Kind {
	t.Helper()
	re := regexp.MustCompile(`extern "C" __global__ void (\w+)\(([^)]*)\)`)
	out := map[string][]Kind{}
	for _, m := range re.FindAllStringSubmatch(src, -1) {
		var kinds []Kind
		for _, a := range strings.Split(m[2], ",") {
			f := strings.Fields(strings.ReplaceAll(a, "*", " * "))
			if len(f) < 2 {
				t.Fatalf("%s: cannot parse argument %q", m[1], a)
			}
			f = slices.DeleteFunc(f[:len(f)-1], func(s string) bool { return s == "const" })
			switch strings.Join(f, " ") {
			case "float *":
				kinds = append(kinds, FloatPtr)
			case "int *":
				kinds = append(kinds, IntPtr)
			case "int":
				kinds = append(kinds, Int)
			case "float":
				kinds = append(kinds, Float)
			default:
				t.Fatalf("%s: argument %q has a type Go cannot launch with", m[1], a)
			}
		}
		out[m[1]] = kinds
	}
	return out
}

// TestContract holds the catalogue Go launches with equal to the kernels' signatures in the
// CUDA source, and every kernel to a Go version on the host device.
func TestContract(t *testing.T) {
	src := signatures(t, Source)
	cat := Catalogue()
	var names []string
	for n := range src {
		names = append(names, n)
	}
	for n := range cat {
		if _, ok := src[n]; !ok {
			t.Errorf("catalogue kernel %s is not in kernels.cu", n)
		}
	}
	sort.Strings(names)
	h := NewHost(nil)
	for _, n := range names {
		if !slices.Equal(src[n], cat[n]) {
			t.Errorf("%s: kernels.cu takes %v, Go launches with %v", n, src[n], cat[n])
		}
		if _, ok := h.kernels[n]; !ok {
			t.Errorf("%s has no Go version on the host device", n)
		}
	}
	if len(names) < 18 {
		t.Errorf("parsed %d kernels from kernels.cu, want every one of the catalogue's %d", len(names), len(cat))
	}
}

// TestCheckArgs: a launch whose arguments do not fit the catalogue is an error, not a crash.
func TestCheckArgs(t *testing.T) {
	h := NewHost(nil)
	y, _ := h.Alloc(4)
	for _, c := range []struct {
		name string
		args []any
	}{
		{"wt_fill", []any{y, float32(1)}},
		{"wt_fill", []any{y, 1.0, int32(4)}},
		{"wt_fill", []any{int32(0), float32(1), int32(4)}},
		{"wt_nope", nil},
	} {
		if err := h.Launch(c.name, Grid{1, 32}, c.args...); err == nil {
			t.Errorf("%s%v: launched", c.name, c.args)
		}
	}
	if err := h.Launch("wt_fill", Grid{1, 32}, y, float32(1), int32(5)); err == nil {
		t.Error("fill past the allocation: no error")
	}
}

// TestCompileWithClang compiles kernels.cu to PTX with clang's CUDA device-only mode where
// clang is installed (CI installs it): the source NVRTC compiles on a GPU box is valid CUDA.
func TestCompileWithClang(t *testing.T) {
	clang := findClang(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "kernels.cu")
	if err := os.WriteFile(src, []byte(Source), 0o600); err != nil {
		t.Fatal(err)
	}
	ptx := filepath.Join(dir, "kernels.ptx")
	cmd := exec.Command(clang, "-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib",
		"--cuda-gpu-arch=sm_90", "-O2", "-Wall", "-Werror", "-S", "-o", ptx, src)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, out)
	}
	b, err := os.ReadFile(ptx)
	if err != nil {
		t.Fatal(err)
	}
	for n := range Catalogue() {
		if !strings.Contains(string(b), ".entry "+n+"(") {
			t.Errorf("PTX has no entry %s", n)
		}
	}
}

// findClang returns a clang on PATH; without one it skips t, or fails it when
// WINDTUNNEL_REQUIRE_CLANG=1 (CI).
func findClang(t *testing.T) string {
	t.Helper()
	for _, c := range []string{"clang-19", "clang-18", "clang-17", "clang-16", "clang"} {
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
	}
	if os.Getenv("WINDTUNNEL_REQUIRE_CLANG") == "1" {
		t.Fatal("no clang on PATH and WINDTUNNEL_REQUIRE_CLANG=1")
	}
	t.Skip("no clang on PATH: compiling the CUDA source needs it (CI installs clang-19)")
	return ""
}
