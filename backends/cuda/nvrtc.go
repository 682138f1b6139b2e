package cuda

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"unsafe"

	"github.com/ebitengine/purego"

	"windtunnel/backends/gemm"
)

// EnvLibNVRTC names the environment variable holding an NVRTC library path that is tried
// before the default candidates.
const EnvLibNVRTC = "WINDTUNNEL_LIBNVRTC"

// ErrNoNVRTC is wrapped by the error of OpenResident when no NVRTC library could be loaded.
var ErrNoNVRTC = errors.New("no NVRTC library (CUDA's run-time compiler)")

var nvrtcSonames = []string{"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"}

// NVRTCCandidates returns, in search order, the library names and paths tried for NVRTC:
// the environment override, the names the dynamic loader resolves, the CUDA toolkit
// directories and the NVIDIA wheels of Python environments (nvidia/cu13/lib, nvidia/cuda_nvrtc/lib).
func NVRTCCandidates() []string {
	return toolkitCandidates(EnvLibNVRTC, nvrtcSonames, "libnvrtc.so.*", "nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib")
}

// pythonSitePackages returns the site-packages folders of the Python environments a user has:
// the usual system ones, $VIRTUAL_ENV and $CONDA_PREFIX, ~/.local, and the environment of each
// python3 or python on PATH (a venv's interpreter sits in ROOT/bin; relative PATH entries are
// never used). Patterns may hold globs.
func pythonSitePackages() []string {
	roots := []string{
		"/usr/local/lib/python3*/dist-packages",
		"/usr/lib/python3*/dist-packages",
		"/usr/local/lib/python3*/site-packages",
		"/usr/lib/python3*/site-packages",
		"/usr/local/lib64/python3*/site-packages",
		"/usr/lib64/python3*/site-packages",
		"/opt/conda/lib/python3*/site-packages",
	}
	var envs []string
	for _, env := range []string{"VIRTUAL_ENV", "CONDA_PREFIX"} {
		if p := os.Getenv(env); filepath.IsAbs(p) {
			envs = append(envs, p)
		}
	}
	for _, py := range []string{"python3", "python"} {
		if p, err := exec.LookPath(py); err == nil && filepath.IsAbs(p) {
			envs = append(envs, filepath.Dir(filepath.Dir(p)))
		}
	}
	for _, e := range envs {
		roots = append(roots, filepath.Join(e, "lib", "python3*", "site-packages"))
	}
	if home, err := os.UserHomeDir(); err == nil {
		roots = append(roots, filepath.Join(home, ".local", "lib", "python3*", "site-packages"))
	}
	return roots
}

// wheelLibs returns the files matching pattern in the given folders of every Python
// environment's site-packages, newest version first within a folder.
func wheelLibs(pattern string, subs ...string) []string {
	var found []string
	for _, root := range pythonSitePackages() {
		for _, sub := range subs {
			m, _ := filepath.Glob(filepath.Join(root, sub, pattern))
			slices.Sort(m)
			slices.Reverse(m)
			for _, p := range m {
				if !slices.Contains(found, p) {
					found = append(found, p)
				}
			}
		}
	}
	return found
}

// nvrtcLib holds NVRTC's entry points.
type nvrtcLib struct {
	path                                  string
	version, create, compile, destroy     uintptr
	logSize, log, ptxSize, ptx, errString uintptr
}

func loadNVRTC(paths []string) (*nvrtcLib, error) {
	var tried []string
	for _, path := range paths {
		if err := gemm.CheckLibraryPath(path); err != nil {
			tried = append(tried, err.Error())
			continue
		}
		if strings.Contains(path, "/") {
			if _, err := os.Stat(path); err != nil {
				tried = append(tried, triedMsg(path, err))
				continue
			}
		}
		h, err := dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
		if err != nil {
			tried = append(tried, triedMsg(path, err))
			continue
		}
		l := &nvrtcLib{path: path}
		err = bindSymbols(h, []struct {
			name string
			fn   *uintptr
		}{
			{"nvrtcVersion", &l.version}, {"nvrtcCreateProgram", &l.create},
			{"nvrtcCompileProgram", &l.compile}, {"nvrtcDestroyProgram", &l.destroy},
			{"nvrtcGetProgramLogSize", &l.logSize}, {"nvrtcGetProgramLog", &l.log},
			{"nvrtcGetPTXSize", &l.ptxSize}, {"nvrtcGetPTX", &l.ptx}, {"nvrtcGetErrorString", &l.errString},
		})
		if err != nil {
			tried = append(tried, triedMsg(path, err))
			continue
		}
		return l, nil
	}
	return nil, fmt.Errorf("cuda: load NVRTC: tried %s (set %s to add a path): %w",
		strings.Join(tried, "; "), EnvLibNVRTC, ErrNoNVRTC)
}

func (l *nvrtcLib) check(op string, r uintptr) error {
	code := int(int32(uint32(r)))
	if code == 0 {
		return nil
	}
	p, _, _ := purego.SyscallN(l.errString, r)
	return &Error{Op: op, Code: code, Msg: cString(*(**byte)(unsafe.Pointer(&p)))}
}

// versionString is NVRTC's "major.minor".
func (l *nvrtcLib) versionString() string {
	var major, minor int32
	r, _, _ := purego.SyscallN(l.version, uintptr(unsafe.Pointer(&major)), uintptr(unsafe.Pointer(&minor)))
	if l.check("nvrtcVersion", r) != nil {
		return "?"
	}
	return fmt.Sprintf("%d.%d", major, minor)
}

// compilePTX compiles CUDA C source for virtual architecture compute_<arch> (e.g. "90") and
// returns the NUL-terminated PTX; a compile error carries NVRTC's log.
func (l *nvrtcLib) compilePTX(src, name, arch string) ([]byte, error) {
	csrc := append([]byte(src), 0)
	cname := append([]byte(name), 0)
	var prog uintptr
	r, _, _ := purego.SyscallN(l.create, uintptr(unsafe.Pointer(&prog)), uintptr(unsafe.Pointer(&csrc[0])), uintptr(unsafe.Pointer(&cname[0])), 0, 0, 0)
	if err := l.check("nvrtcCreateProgram", r); err != nil {
		return nil, err
	}
	defer purego.SyscallN(l.destroy, uintptr(unsafe.Pointer(&prog)))
	// No fast-math: expf, tanhf and division keep their IEEE accuracy.
	opts := [][]byte{[]byte("--gpu-architecture=compute_" + arch + "\x00"), []byte("--std=c++17\x00")}
	ptrs := make([]*byte, len(opts))
	for i, o := range opts {
		ptrs[i] = &o[0]
	}
	r, _, _ = purego.SyscallN(l.compile, prog, uintptr(len(ptrs)), uintptr(unsafe.Pointer(&ptrs[0])))
	if err := l.check("nvrtcCompileProgram", r); err != nil {
		var n uintptr
		purego.SyscallN(l.logSize, prog, uintptr(unsafe.Pointer(&n)))
		log := make([]byte, n+1)
		purego.SyscallN(l.log, prog, uintptr(unsafe.Pointer(&log[0])))
		return nil, fmt.Errorf("%w\n%s", err, strings.TrimRight(string(log), "\x00\n"))
	}
	var n uintptr
	r, _, _ = purego.SyscallN(l.ptxSize, prog, uintptr(unsafe.Pointer(&n)))
	if err := l.check("nvrtcGetPTXSize", r); err != nil {
		return nil, err
	}
	ptx := make([]byte, n+1)
	r, _, _ = purego.SyscallN(l.ptx, prog, uintptr(unsafe.Pointer(&ptx[0])))
	if err := l.check("nvrtcGetPTX", r); err != nil {
		return nil, err
	}
	return ptx, nil
}

// ProbeNVRTC loads NVRTC (no GPU needed) and returns the file loaded and its version.
func ProbeNVRTC() (path, version string, err error) {
	l, err := loadNVRTC(NVRTCCandidates())
	if err != nil {
		return "", "", err
	}
	return l.path, l.versionString(), nil
}
