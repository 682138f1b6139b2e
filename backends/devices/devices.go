package devices

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"unicode/utf8"

	"windtunnel/backends/cuda"
	"windtunnel/backends/gemm"
)

// Report is what `windtunnel device` prints: where runs compute.
type Report struct {
	// BLAS is the CPU backend --blas auto picks: "go" (the project's own GEMM) or "openblas".
	BLAS string `json:"blas"`
	// Kernel is the micro-kernel the go backend chose for this CPU, e.g. "avx2+fma 6×16".
	Kernel  string        `json:"kernel"`
	Library *gemm.Library `json:"library,omitempty"`
	// BLASNote says that OpenBLAS did not load, and how to point at it.
	BLASNote string `json:"blas_note,omitempty"`
	// Workers is the default kernel goroutine count (--workers 0: all cores).
	Workers int  `json:"workers"`
	CUDA    CUDA `json:"cuda"`
}

// CUDA says whether --device cuda would find a GPU, and why not.
type CUDA struct {
	Found       bool   `json:"found"`
	Name        string `json:"name,omitempty"`
	MemoryBytes int64  `json:"memory_bytes,omitempty"`
	Driver      string `json:"driver,omitempty"`
	DriverLib   string `json:"driver_library,omitempty"`
	CUBLAS      string `json:"cublas,omitempty"`
	CUBLASLib   string `json:"cublas_library,omitempty"`
	// Reason is why no GPU is usable, in a few words; Error the full error; Searched the
	// library paths tried for what was missing and Env the variable that adds one.
	Reason   string   `json:"reason,omitempty"`
	Error    string   `json:"error,omitempty"`
	Searched []string `json:"searched,omitempty"`
	Env      string   `json:"env,omitempty"`
	// NVRTC is the run-time compiler the resident step compiles its kernels with (found
	// without a GPU), NVRTCLib its file, NVRTCError why none loaded.
	NVRTC      string `json:"nvrtc,omitempty"`
	NVRTCLib   string `json:"nvrtc_library,omitempty"`
	NVRTCError string `json:"nvrtc_error,omitempty"`
}

// Probe finds the CPU backend and the GPU.
func Probe() Report {
	r := Report{BLAS: "go", Workers: runtime.GOMAXPROCS(0)}
	r.Kernel, _ = gemm.KernelOf(gemm.Go())
	if lib, ok := gemm.LibraryOf(gemm.Auto()); ok {
		r.BLAS = lib.Name
	}
	if b, err := gemm.Open("openblas"); err == nil {
		if lib, ok := gemm.LibraryOf(b); ok {
			r.Library = &lib
		}
	} else {
		r.BLASNote = fmt.Sprintf("OpenBLAS not found (for --blas openblas: install libopenblas0-pthread, or set %s to its path)", gemm.EnvOpenBLAS)
	}
	in, err := cuda.Probe()
	r.CUDA = CUDA{Name: in.Name, MemoryBytes: in.MemoryBytes, Driver: in.Driver, DriverLib: in.DriverLib,
		CUBLAS: in.CUBLAS, CUBLASLib: in.CUBLASLib}
	if lib, v, nerr := cuda.ProbeNVRTC(); nerr == nil {
		r.CUDA.NVRTC, r.CUDA.NVRTCLib = v, lib
	} else {
		r.CUDA.NVRTCError = nerr.Error()
	}
	if err == nil {
		r.CUDA.Found = true
		return r
	}
	r.CUDA.Error = err.Error()
	r.CUDA.Reason = err.Error()
	if why, ok := Reason(err); ok {
		r.CUDA.Reason = why
	}
	switch {
	case errors.Is(err, cuda.ErrNoDriver):
		r.CUDA.Searched, r.CUDA.Env = cuda.DriverCandidates(), cuda.EnvLibCUDA
	case errors.Is(err, cuda.ErrNoCUBLAS):
		r.CUDA.Searched, r.CUDA.Env = cuda.CUBLASCandidates(), cuda.EnvLibCUBLAS
	case errors.Is(err, cuda.ErrNoDevice):
		r.CUDA.Reason += ": " + err.Error()
	}
	return r
}

// Reason says in a few words why the GPU cannot be used (a driver, cuBLAS or NVRTC that
// does not load, no usable GPU); false for another error.
func Reason(err error) (string, bool) {
	switch {
	case errors.Is(err, cuda.ErrNoDriver):
		return "no NVIDIA driver library (libcuda) could be loaded", true
	case errors.Is(err, cuda.ErrNoCUBLAS):
		return "the NVIDIA driver loads but no cuBLAS library does", true
	case errors.Is(err, cuda.ErrNoNVRTC):
		return "no NVRTC library (CUDA's run-time compiler) could be loaded", true
	case errors.Is(err, cuda.ErrNoDevice):
		return "the NVIDIA driver loads but finds no usable GPU", true
	}
	return "", false
}

// Width is the column the report is wrapped at.
const Width = 99

// Text renders the report, each line within Width columns.
func (r Report) Text() string {
	var b strings.Builder
	row := func(key, value string) { b.WriteString(wrapRow("  "+key, value, 12, Width)) }
	b.WriteString("CPU (every run: --device cpu, the default)\n")
	lib := r.Library
	if r.BLAS == "go" || lib == nil {
		row("BLAS", fmt.Sprintf("go, the project's own float32 GEMM, %s kernel (--blas auto)", r.Kernel))
		if lib != nil {
			row("OpenBLAS", fmt.Sprintf("%s %s (--blas openblas)", lib.Name, lib.Version))
			row("library", lib.Path)
		} else {
			row("OpenBLAS", r.BLASNote+"; not needed")
		}
		row("threads", fmt.Sprintf("%d (all cores; --workers N to change): kernels and large products are split "+
			"over %d goroutines", r.Workers, r.Workers))
	} else {
		row("BLAS", fmt.Sprintf("%s %s (--blas auto)", lib.Name, lib.Version))
		row("library", lib.Path)
		row("go kernel", fmt.Sprintf("%s (--blas go)", r.Kernel))
		row("threads", fmt.Sprintf("%d (all cores; --workers N to change): kernels and large products are split "+
			"over %d goroutines; %s's own threads: %d", r.Workers, r.Workers, lib.Name, lib.Threads))
	}
	c := r.CUDA
	b.WriteString("CUDA (--device cuda)\n")
	if c.Found {
		row("GPU", fmt.Sprintf("%s (%.1f GiB)", c.Name, float64(c.MemoryBytes)/(1<<30)))
		row("driver", fmt.Sprintf("CUDA %s (%s)", c.Driver, c.DriverLib))
		row("cuBLAS", fmt.Sprintf("%s (%s)", c.CUBLAS, c.CUBLASLib))
		row("NVRTC", c.nvrtcText())
		row("runs", "--device cuda runs a float32 transformer's whole training step on this GPU (kernels "+
			"compiled by NVRTC at start); other models, and --device cuda-gemm, compute products of ≥ ~128³ "+
			"multiply-adds here and the rest on the CPU; without it runs use the CPU only")
		return b.String()
	}
	if c.Name != "" {
		row("GPU", c.Name)
	}
	row("found", "no: "+c.Reason)
	row("NVRTC", c.nvrtcText())
	if c.DriverLib != "" {
		row("driver", c.DriverLib)
	}
	if len(c.Searched) > 0 {
		row("searched", fmt.Sprintf("%s (set %s to add a path)", strings.Join(c.Searched, ", "), c.Env))
	}
	row("runs", "use the CPU: --device cpu (the default) works; --device cuda fails here with this reason "+
		"(`windtunnel device --json` gives the full error)")
	return b.String()
}

// wrapRow writes key padded to indent columns, then value wrapped at spaces to width
// columns, continuation lines indented by indent; a word longer than a line stands alone.
func wrapRow(key, value string, indent, width int) string {
	var b strings.Builder
	line := fmt.Sprintf("%-*s", indent, key)
	n, start := utf8.RuneCountInString(line), true
	if n > indent {
		line += " "
		n++
	}
	for _, w := range strings.Fields(value) {
		wn := utf8.RuneCountInString(w)
		if !start && n+1+wn > width {
			b.WriteString(line + "\n")
			line, n, start = strings.Repeat(" ", indent), indent, true
		}
		if !start {
			line += " "
			n++
		}
		line += w
		n += wn
		start = false
	}
	b.WriteString(line + "\n")
	return b.String()
}

// nvrtcText is the NVRTC line: its version and file, or why none loaded.
func (c CUDA) nvrtcText() string {
	if c.NVRTC != "" {
		return fmt.Sprintf("%s (%s)", c.NVRTC, c.NVRTCLib)
	}
	return fmt.Sprintf("not found: the whole-step path (--device cuda) needs it; set %s to its path", cuda.EnvLibNVRTC)
}
