package accel

import "fmt"

// Ptr addresses 4-byte elements (float32 or int32) in device memory: element Off of the
// allocation Base. The zero Ptr is the null pointer.
type Ptr struct {
	Base uint64 // the allocation: a device address (CUDA) or a buffer number (Host)
	Off  int    // element offset into it
}

// Add returns the pointer n elements further on.
func (p Ptr) Add(n int) Ptr { return Ptr{Base: p.Base, Off: p.Off + n} }

// IsNil reports whether p is the null pointer.
func (p Ptr) IsNil() bool { return p.Base == 0 }

// Grid is a one-dimensional launch shape.
type Grid struct {
	Blocks, Threads int
}

// Device is one accelerator as a training step uses it. Every method but Do, Name and Close
// must be called from inside a function run by Do (the goroutine that owns the device's
// context); work is queued in order on one stream, so a Read sees every earlier launch.
type Device interface {
	// Name describes the device and the libraries driving it, on one line.
	Name() string
	// Do runs fn on the goroutine that owns the device and returns its error.
	Do(fn func() error) error
	// Alloc reserves n 4-byte elements, zeroed.
	Alloc(n int) (Ptr, error)
	// Free releases an allocation made by Alloc.
	Free(p Ptr) error
	// Write copies src to the device at dst.
	Write(dst Ptr, src []float32) error
	// WriteInts copies src to the device at dst.
	WriteInts(dst Ptr, src []int32) error
	// Read copies len(dst) elements from src, waiting for the work queued before it.
	Read(dst []float32, src Ptr) error
	// Launch queues kernel name with the arguments (Ptr, int32 or float32 each, as the
	// catalogue says) over grid g.
	Launch(name string, g Grid, args ...any) error
	// Gemm queues the row-major product C = α·op(A)·op(B) + β·C, op(A) m×k, op(B) k×n.
	Gemm(tA, tB bool, m, n, k int, alpha float32, a Ptr, lda int, b Ptr, ldb int, beta float32, c Ptr, ldc int) error
	// Sync waits for all queued work.
	Sync() error
	// Close releases the device; allocations are invalid afterwards.
	Close() error
}

// Kind is the type of one kernel argument.
type Kind string

// The argument kinds a kernel may take.
const (
	FloatPtr Kind = "float*"
	IntPtr   Kind = "int*"
	Int      Kind = "int"
	Float    Kind = "float"
)

// CheckArgs reports whether args fit kernel name's catalogue entry.
func CheckArgs(name string, args []any) error {
	spec, ok := Catalogue()[name]
	if !ok {
		return fmt.Errorf("accel: no kernel %q in the catalogue", name)
	}
	return checkKinds(name, spec, args)
}

// checkKinds reports whether args fit the argument kinds spec of kernel name.
func checkKinds(name string, spec []Kind, args []any) error {
	if len(args) != len(spec) {
		return fmt.Errorf("accel: %s takes %d arguments, launched with %d", name, len(spec), len(args))
	}
	for i, a := range args {
		var got Kind
		switch a.(type) {
		case Ptr:
			if spec[i] == FloatPtr || spec[i] == IntPtr {
				continue
			}
			got = "pointer"
		case int32:
			got = Int
		case float32:
			got = Float
		default:
			got = Kind(fmt.Sprintf("%T", a))
		}
		if got != spec[i] {
			return fmt.Errorf("accel: %s argument %d is %s, launched with %s", name, i, spec[i], got)
		}
	}
	return nil
}
