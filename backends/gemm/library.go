package gemm

// Library describes the BLAS library a backend loaded at run time.
type Library struct {
	// Name is the library, "openblas".
	Name string
	// Version is its version and kernel set, e.g. "0.3.21 Cooperlake".
	Version string
	// Path is the file loaded, e.g. "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0".
	Path string
	// Threads is the library's own thread count (1: products are split by Parallel instead).
	Threads int
}

// LibraryOf returns the library under b (looking through Parallel and FullBLAS); ok is false
// for the pure-Go backend, which loads none.
func LibraryOf(b Backend) (lib Library, ok bool) {
	if o, ok := unwrap(b).(*openBLAS); ok {
		return o.lib, true
	}
	return Library{}, false
}
