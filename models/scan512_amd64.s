#include "textflag.h"

// The AVX-512 twins of scan_amd64.s's channel kernels for a state of 16 (the quick Mamba's),
// which fits one register: the state, its gradient and dL/dA stay in registers across the
// tokens, so that a token waits on one multiply-add of the last (not on a store and a reload).
// The same operations in the same order on each lane, so their states, decays and gradient
// terms equal the AVX2 kernels' bit for bit; only the horizontal sums add their lanes in
// another order.

// scan_amd64.s's constants (scanc), one copy each, broadcast.
DATA scanz<>+0(SB)/4, $0xc2f80000  // lo
DATA scanz<>+4(SB)/4, $0x4b400000  // magic
DATA scanz<>+8(SB)/4, $0x39218489  // c6
DATA scanz<>+12(SB)/4, $0x3aaec3ff // c5
DATA scanz<>+16(SB)/4, $0x3c1d955b // c4
DATA scanz<>+20(SB)/4, $0x3d635847 // c3
DATA scanz<>+24(SB)/4, $0x3e75fdf0 // c2
DATA scanz<>+28(SB)/4, $0x3f317218 // c1
DATA scanz<>+32(SB)/4, $0x3f800000 // one
GLOBL scanz<>(SB), RODATA|NOPTR, $36

// HSUM512(Z, Y, X, TY, TX): X's lane 0 = the sum of Z's sixteen lanes (Y and X its low
// halves); TY, TX clobbered.
#define HSUM512(Z, Y, X, TY, TX) \
	VEXTRACTF64X4 $1, Z, TY; VADDPS TY, Y, Y; VEXTRACTF128 $1, Y, TX; VADDPS TX, X, X; \
	VMOVHLPS X, X, TX; VADDPS TX, X, X; VMOVSHDUP X, TX; VADDSS TX, X, X

// func scanFwd16(h, h0, ev *float32, hs int, ae, b, c, dl, dlu, y *float32, l, st int)
//
// scanFwdChan for s = 16, the state in Z16; no readout where y is nil.
TEXT ·scanFwd16(SB), NOSPLIT, $0-96
	MOVQ h+0(FP), DI
	MOVQ h0+8(FP), SI
	MOVQ ev+16(FP), R8
	MOVQ hs+24(FP), BX
	SHLQ $2, BX
	MOVQ ae+32(FP), R9
	MOVQ b+40(FP), R10
	MOVQ c+48(FP), R11
	MOVQ dl+56(FP), R12
	MOVQ dlu+64(FP), R13
	MOVQ y+72(FP), R14
	MOVQ l+80(FP), CX
	MOVQ st+88(FP), DX
	SHLQ $2, DX
	TESTQ CX, CX
	JE    f16done
	VBROADCASTSS scanz<>+0(SB), Z5
	VBROADCASTSS scanz<>+4(SB), Z6
	VBROADCASTSS scanz<>+8(SB), Z7
	VBROADCASTSS scanz<>+12(SB), Z8
	VBROADCASTSS scanz<>+16(SB), Z9
	VBROADCASTSS scanz<>+20(SB), Z10
	VBROADCASTSS scanz<>+24(SB), Z11
	VBROADCASTSS scanz<>+28(SB), Z12
	VBROADCASTSS scanz<>+32(SB), Z17
	VMOVUPS      (R9), Z18
	VMOVUPS      (SI), Z16

f16tok:
	VBROADCASTSS (R12), Z15
	VBROADCASTSS (R13), Z14
	VMULPS       Z18, Z15, Z0
	VMAXPS       Z5, Z0, Z0
	VADDPS       Z6, Z0, Z1
	VSUBPS       Z6, Z1, Z2
	VSUBPS       Z2, Z0, Z0
	VMOVAPS      Z7, Z3
	VFMADD213PS  Z8, Z0, Z3
	VFMADD213PS  Z9, Z0, Z3
	VFMADD213PS  Z10, Z0, Z3
	VFMADD213PS  Z11, Z0, Z3
	VFMADD213PS  Z12, Z0, Z3
	VFMADD213PS  Z17, Z0, Z3
	VPSUBD       Z6, Z1, Z1
	VPSLLD       $23, Z1, Z1
	VPADDD       Z1, Z3, Z3
	VMOVUPS      Z3, (R8)
	VMULPS       (R10), Z14, Z4
	VFMADD213PS  Z4, Z3, Z16
	VMOVUPS      Z16, (DI)
	TESTQ        R14, R14
	JE           f16next
	VMULPS       (R11), Z16, Z13
	HSUM512(Z13, Y13, X13, Y0, X0)
	VMOVSS       X13, (R14)
	ADDQ         DX, R14

f16next:
	ADDQ         BX, DI
	ADDQ         BX, R8
	ADDQ         $64, R10
	ADDQ         $64, R11
	ADDQ         DX, R12
	ADDQ         DX, R13
	DECQ         CX
	JNZ          f16tok

f16done:
	VZEROUPPER
	RET

// func scanBack16(dh, pa, dc, db, h, h0, ev, a, b, c, dyp, dl, dlu, sb, sa *float32, l, st int)
//
// scanBackChan for s = 16: dh in Z16, pa in Z17 (read at the start, written at the end).
TEXT ·scanBack16(SB), NOSPLIT, $8-136
	MOVQ dh+0(FP), DI
	MOVQ pa+8(FP), SI
	MOVQ dc+16(FP), R14
	MOVQ db+24(FP), BX
	MOVQ h+32(FP), R8
	MOVQ h0+40(FP), AX
	MOVQ AX, z-8(SP)
	MOVQ ev+48(FP), R10
	MOVQ a+56(FP), R11
	MOVQ b+64(FP), R12
	MOVQ c+72(FP), R13
	MOVQ l+120(FP), CX
	MOVQ st+128(FP), AX
	SHLQ $2, AX
	TESTQ CX, CX
	JE    b16done
	VMOVUPS (DI), Z16
	VMOVUPS (SI), Z17
	VMOVUPS (R11), Z18
	MOVQ    AX, R11

	// Start at the last token: rows advance (l−1)·16 floats, the strided arrays (l−1)·st.
	MOVQ  CX, DX
	DECQ  DX
	IMULQ DX, AX
	SHLQ  $6, DX
	ADDQ  DX, R14
	ADDQ  DX, BX
	ADDQ  DX, R8
	ADDQ  DX, R10
	ADDQ  DX, R12
	ADDQ  DX, R13

b16tok:
	LEAQ         -64(R8), R9
	CMPQ         CX, $1
	CMOVQEQ      z-8(SP), R9
	MOVQ         dyp+80(FP), DX
	VBROADCASTSS (DX)(AX*1), Z15
	MOVQ         dl+88(FP), DX
	VBROADCASTSS (DX)(AX*1), Z14
	MOVQ         dlu+96(FP), DX
	VBROADCASTSS (DX)(AX*1), Z13
	VMOVAPS      Z16, Z1
	VFMADD231PS  (R13), Z15, Z1
	VMOVUPS      (R14), Z2
	VFMADD231PS  (R8), Z15, Z2
	VMOVUPS      Z2, (R14)
	VMOVUPS      (BX), Z2
	VFMADD231PS  Z1, Z13, Z2
	VMOVUPS      Z2, (BX)
	VMULPS       (R12), Z1, Z12
	VMOVUPS      (R10), Z3
	VMULPS       (R9), Z1, Z2
	VMULPS       Z3, Z2, Z2
	VMULPS       Z18, Z2, Z11
	VFMADD231PS  Z2, Z14, Z17
	VMULPS       Z3, Z1, Z16
	HSUM512(Z12, Y12, X12, Y0, X0)
	HSUM512(Z11, Y11, X11, Y0, X0)
	MOVQ         sb+104(FP), DX
	VMOVSS       X12, (DX)(AX*1)
	MOVQ         sa+112(FP), DX
	VMOVSS       X11, (DX)(AX*1)
	SUBQ         $64, R14
	SUBQ         $64, BX
	SUBQ         $64, R8
	SUBQ         $64, R10
	SUBQ         $64, R12
	SUBQ         $64, R13
	SUBQ         R11, AX
	DECQ         CX
	JNZ          b16tok

	VMOVUPS Z16, (DI)
	VMOVUPS Z17, (SI)

b16done:
	VZEROUPPER
	RET
