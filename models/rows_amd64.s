#include "textflag.h"

// Row kernels with AVX2 and FMA for RMSNorm and bias gradients: sums of squares, scaled
// products and the RMSNorm backward pass, eight lanes at a time, tails by masked loads and
// stores.

// 16 all-ones lanes then 16 zero lanes: the mask of the first r lanes starts at lane 16−r.
DATA rowMask<>+0(SB)/8, $0xffffffffffffffff
DATA rowMask<>+8(SB)/8, $0xffffffffffffffff
DATA rowMask<>+16(SB)/8, $0xffffffffffffffff
DATA rowMask<>+24(SB)/8, $0xffffffffffffffff
DATA rowMask<>+32(SB)/8, $0xffffffffffffffff
DATA rowMask<>+40(SB)/8, $0xffffffffffffffff
DATA rowMask<>+48(SB)/8, $0xffffffffffffffff
DATA rowMask<>+56(SB)/8, $0xffffffffffffffff
DATA rowMask<>+64(SB)/8, $0
DATA rowMask<>+72(SB)/8, $0
DATA rowMask<>+80(SB)/8, $0
DATA rowMask<>+88(SB)/8, $0
DATA rowMask<>+96(SB)/8, $0
DATA rowMask<>+104(SB)/8, $0
DATA rowMask<>+112(SB)/8, $0
DATA rowMask<>+120(SB)/8, $0
GLOBL rowMask<>(SB), RODATA|NOPTR, $128

// TAILMASK(M): M = mask of the first CX (1..7) lanes; BX, R14 clobbered.
#define TAILMASK(M) \
	LEAQ rowMask<>(SB), BX; MOVQ $16, R14; SUBQ CX, R14; VMOVDQU (BX)(R14*4), M

// HSUM(Y, X, T): X's lane 0 = the sum of Y's eight lanes (X is Y's low half); T clobbered.
#define HSUM(Y, X, T) \
	VEXTRACTF128 $1, Y, T; VADDPS T, X, X; VHADDPS X, X, X; VHADDPS X, X, X

// func sumSq(x *float32, n int) float32
TEXT ·sumSq(SB), NOSPLIT, $0-20
	MOVQ   x+0(FP), SI
	MOVQ   n+8(FP), CX
	VXORPS Y9, Y9, Y9
	VXORPS Y8, Y8, Y8

qloop:
	CMPQ        CX, $16
	JLT         qone
	VMOVUPS     (SI), Y0
	VMOVUPS     32(SI), Y1
	VFMADD231PS Y0, Y0, Y9
	VFMADD231PS Y1, Y1, Y8
	ADDQ        $64, SI
	SUBQ        $16, CX
	JMP         qloop

qone:
	CMPQ        CX, $8
	JLT         qtail
	VMOVUPS     (SI), Y0
	VFMADD231PS Y0, Y0, Y9
	ADDQ        $32, SI
	SUBQ        $8, CX

qtail:
	TESTQ       CX, CX
	JE          qdone
	TAILMASK(Y10)
	VMASKMOVPS  (SI), Y10, Y0
	VFMADD231PS Y0, Y0, Y9

qdone:
	VADDPS Y8, Y9, Y9
	HSUM(Y9, X9, X1)
	VZEROUPPER
	MOVSS  X9, ret+16(FP)
	RET

// func scaleMul(y, x, gamma *float32, n int, s float32)
//
// y[i] = x[i]·s·gamma[i] for i < n (multiplied in that order, as the scalar loop does).
TEXT ·scaleMul(SB), NOSPLIT, $0-36
	MOVQ         y+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         gamma+16(FP), R8
	MOVQ         n+24(FP), CX
	VBROADCASTSS s+32(FP), Y8

mloop:
	CMPQ    CX, $8
	JLT     mtail
	VMULPS  (SI), Y8, Y0
	VMULPS  (R8), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, DI
	ADDQ    $32, SI
	ADDQ    $32, R8
	SUBQ    $8, CX
	JMP     mloop

mtail:
	TESTQ      CX, CX
	JE         mdone
	TAILMASK(Y10)
	VMASKMOVPS (SI), Y10, Y0
	VMASKMOVPS (R8), Y10, Y1
	VMULPS     Y0, Y8, Y0
	VMULPS     Y1, Y0, Y0
	VMASKMOVPS Y0, Y10, (DI)

mdone:
	VZEROUPPER
	RET

// func rmsBackDot(x, dy, gamma, acc *float32, n int, inv float32) float32
//
// acc[i] += dy[i]·x[i]·inv for i < n; returns Σ gamma[i]·dy[i]·x[i].
TEXT ·rmsBackDot(SB), NOSPLIT, $0-52
	MOVQ         x+0(FP), SI
	MOVQ         dy+8(FP), DX
	MOVQ         gamma+16(FP), R8
	MOVQ         acc+24(FP), DI
	MOVQ         n+32(FP), CX
	VBROADCASTSS inv+40(FP), Y8
	VXORPS       Y9, Y9, Y9

rdloop:
	CMPQ        CX, $8
	JLT         rdtail
	VMOVUPS     (DX), Y1
	VMULPS      (SI), Y1, Y1
	VMOVUPS     (R8), Y2
	VFMADD231PS Y1, Y2, Y9
	VMULPS      Y8, Y1, Y1
	VADDPS      (DI), Y1, Y1
	VMOVUPS     Y1, (DI)
	ADDQ        $32, SI
	ADDQ        $32, DX
	ADDQ        $32, R8
	ADDQ        $32, DI
	SUBQ        $8, CX
	JMP         rdloop

rdtail:
	TESTQ       CX, CX
	JE          rddone
	TAILMASK(Y10)
	VMASKMOVPS  (DX), Y10, Y1
	VMASKMOVPS  (SI), Y10, Y0
	VMULPS      Y0, Y1, Y1
	VMASKMOVPS  (R8), Y10, Y2
	VFMADD231PS Y1, Y2, Y9
	VMULPS      Y8, Y1, Y1
	VMASKMOVPS  (DI), Y10, Y3
	VADDPS      Y3, Y1, Y1
	VMASKMOVPS  Y1, Y10, (DI)

rddone:
	HSUM(Y9, X9, X1)
	VZEROUPPER
	MOVSS X9, ret+48(FP)
	RET

// func rmsBackDx(dx, x, dy, gamma *float32, n int, inv, c float32)
//
// dx[i] = inv·gamma[i]·dy[i] − c·x[i] for i < n.
TEXT ·rmsBackDx(SB), NOSPLIT, $0-48
	MOVQ         dx+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         dy+16(FP), DX
	MOVQ         gamma+24(FP), R8
	MOVQ         n+32(FP), CX
	VBROADCASTSS inv+40(FP), Y8
	VBROADCASTSS c+44(FP), Y7

rxloop:
	CMPQ         CX, $8
	JLT          rxtail
	VMULPS       (R8), Y8, Y1
	VMULPS       (DX), Y1, Y1
	VMULPS       (SI), Y7, Y2
	VSUBPS       Y2, Y1, Y1
	VMOVUPS      Y1, (DI)
	ADDQ         $32, SI
	ADDQ         $32, DX
	ADDQ         $32, R8
	ADDQ         $32, DI
	SUBQ         $8, CX
	JMP          rxloop

rxtail:
	TESTQ      CX, CX
	JE         rxdone
	TAILMASK(Y10)
	VMASKMOVPS (R8), Y10, Y1
	VMASKMOVPS (DX), Y10, Y3
	VMASKMOVPS (SI), Y10, Y4
	VMULPS     Y1, Y8, Y1
	VMULPS     Y3, Y1, Y1
	VMULPS     Y4, Y7, Y2
	VSUBPS     Y2, Y1, Y1
	VMASKMOVPS Y1, Y10, (DI)

rxdone:
	VZEROUPPER
	RET

// func addVec(dst, src *float32, n int)
//
// dst[i] += src[i] for i < n.
TEXT ·addVec(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX

aloop:
	CMPQ    CX, $16
	JLT     aone
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VADDPS  (SI), Y0, Y0
	VADDPS  32(SI), Y1, Y1
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	ADDQ    $64, DI
	ADDQ    $64, SI
	SUBQ    $16, CX
	JMP     aloop

aone:
	CMPQ    CX, $8
	JLT     atail
	VMOVUPS (DI), Y0
	VADDPS  (SI), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, DI
	ADDQ    $32, SI
	SUBQ    $8, CX

atail:
	TESTQ      CX, CX
	JE         adone
	TAILMASK(Y10)
	VMASKMOVPS (DI), Y10, Y0
	VMASKMOVPS (SI), Y10, Y1
	VADDPS     Y1, Y0, Y0
	VMASKMOVPS Y0, Y10, (DI)

adone:
	VZEROUPPER
	RET

// func mulVec(dst, a, b *float32, n int)
//
// dst[i] = a[i]·b[i] for i < n (dst may be a or b).
TEXT ·mulVec(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX

mloop:
	CMPQ    CX, $8
	JLT     mtail
	VMOVUPS (SI), Y0
	VMULPS  (DX), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, DI
	ADDQ    $32, SI
	ADDQ    $32, DX
	SUBQ    $8, CX
	JMP     mloop

mtail:
	TESTQ      CX, CX
	JE         mdone
	TAILMASK(Y10)
	VMASKMOVPS (SI), Y10, Y0
	VMASKMOVPS (DX), Y10, Y1
	VMULPS     Y1, Y0, Y0
	VMASKMOVPS Y0, Y10, (DI)

mdone:
	VZEROUPPER
	RET

// func mulAddVec(dst, a, b *float32, n int)
//
// dst[i] += a[i]·b[i] for i < n, the product rounded before the sum (as Go computes it).
TEXT ·mulAddVec(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX

maloop:
	CMPQ    CX, $8
	JLT     matail
	VMOVUPS (SI), Y0
	VMULPS  (DX), Y0, Y0
	VADDPS  (DI), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, DI
	ADDQ    $32, SI
	ADDQ    $32, DX
	SUBQ    $8, CX
	JMP     maloop

matail:
	TESTQ      CX, CX
	JE         madone
	TAILMASK(Y10)
	VMASKMOVPS (SI), Y10, Y0
	VMASKMOVPS (DX), Y10, Y1
	VMULPS     Y1, Y0, Y0
	VMASKMOVPS (DI), Y10, Y1
	VADDPS     Y1, Y0, Y0
	VMASKMOVPS Y0, Y10, (DI)

madone:
	VZEROUPPER
	RET

// func siluBackVec(dst, gr, x, s *float32, n int)
//
// dst[i] = gr[i]·s[i]·(1 + x[i]·(1 − s[i])) for i < n, SiLU's gradient with s = σ(x), each
// product rounded before its sum as Go computes it (dst may be gr).
TEXT ·siluBackVec(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ gr+8(FP), SI
	MOVQ x+16(FP), DX
	MOVQ s+24(FP), R8
	MOVQ n+32(FP), CX
	MOVL $0x3f800000, AX
	VMOVD AX, X9
	VBROADCASTSS X9, Y9

sbloop:
	CMPQ    CX, $8
	JLT     sbtail
	VMOVUPS (R8), Y2
	VMULPS  (SI), Y2, Y0
	VSUBPS  Y2, Y9, Y1
	VMULPS  (DX), Y1, Y1
	VADDPS  Y9, Y1, Y1
	VMULPS  Y1, Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, DI
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, R8
	SUBQ    $8, CX
	JMP     sbloop

sbtail:
	TESTQ      CX, CX
	JE         sbdone
	TAILMASK(Y10)
	VMASKMOVPS (R8), Y10, Y2
	VMASKMOVPS (SI), Y10, Y3
	VMULPS     Y3, Y2, Y0
	VSUBPS     Y2, Y9, Y1
	VMASKMOVPS (DX), Y10, Y3
	VMULPS     Y3, Y1, Y1
	VADDPS     Y9, Y1, Y1
	VMULPS     Y1, Y0, Y0
	VMASKMOVPS Y0, Y10, (DI)

sbdone:
	VZEROUPPER
	RET
