// Package libc holds what windtunnel asks of the C library its threads run on. Built without
// cgo, the binary still runs every thread as a C thread (purego's fakecgo starts them with
// pthread_create, for OpenBLAS and CUDA), and glibc gives each thread that calls malloc an
// arena of its own, reserving 64 MiB of address space for each (up to eight per core): that
// is most of what an address-space limit (ulimit -v, RLIMIT_AS) meets once the Go runtime's
// own reservations are made. CapArenas limits them.
package libc
