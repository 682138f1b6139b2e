package models

import "golang.org/x/sys/cpu"

// haveAVX2 reports whether the AVX2/FMA kernels (smm_amd64.s, vmath_amd64.s) can run; set
// once at start-up.
var haveAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// haveAVX512 reports whether the AVX-512 versions of the vector kernels can run (x/sys/cpu
// sets the AVX-512 flags only where the OS saves the zmm state).
var haveAVX512 = haveAVX2 && cpu.X86.HasAVX512F

// smm4x16 computes 4 rows × nc (1..16) columns of C = alpha·A·B: A element (r, p) at
// a[r·ars + p·aps], B row p at b[p·ldb], C row r at c[r·ldc].
//
//go:noescape
func smm4x16(k int, a *float32, ars, aps int, b *float32, ldb int, c *float32, ldc int, nc int, alpha float32)

// transpose8x8 writes the 8×8 block at src (rows lds elements apart) transposed to dst
// (rows ldd apart).
//
//go:noescape
func transpose8x8(dst *float32, ldd int, src *float32, lds int)

// smm1x16 is smm4x16 for one row.
//
//go:noescape
func smm1x16(k int, a *float32, aps int, b *float32, ldb int, c *float32, nc int, alpha float32)
