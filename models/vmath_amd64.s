#include "textflag.h"
#include "vmath_amd64.h"

// Vectorised float32 tanh, exp and GELU with AVX2 and FMA: the polynomials of tanhf and
// expf in num.go (Eigen's rational tanh, Cephes' exp), eight lanes at a time, tails by
// masked loads and stores. The polynomials' constants are memory operands of the
// arithmetic (eight-lane copies in vmv), not a broadcast before each use.

// func tanhVec(dst, src *float32, n int)
TEXT ·tanhVec(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX

tloop:
	CMPQ    CX, $8
	JLT     ttail
	VMOVUPS (SI), Y0
	TANH(Y0, Y1, Y2, Y3, Y4)
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	SUBQ    $8, CX
	JMP     tloop

ttail:
	TESTQ      CX, CX
	JE         tdone
	TAILMASK(Y10)
	VMASKMOVPS (SI), Y10, Y0
	TANH(Y0, Y1, Y2, Y3, Y4)
	VMASKMOVPS Y0, Y10, (DI)

tdone:
	VZEROUPPER
	RET

// func expSum(x *float32, n int, shift float32) float32
TEXT ·expSum(SB), NOSPLIT, $0-28
	MOVQ         x+0(FP), DI
	MOVQ         n+8(FP), CX
	VBROADCASTSS shift+16(FP), Y8
	VXORPS       Y9, Y9, Y9

eloop:
	CMPQ    CX, $8
	JLT     etail
	VMOVUPS (DI), Y0
	VSUBPS  Y8, Y0, Y0
	EXP(Y0, Y1, Y2, Y3, Y4, Y5)
	VMOVUPS Y0, (DI)
	VADDPS  Y0, Y9, Y9
	ADDQ    $32, DI
	SUBQ    $8, CX
	JMP     eloop

etail:
	TESTQ      CX, CX
	JE         esum
	TAILMASK(Y10)
	VMASKMOVPS (DI), Y10, Y0
	VSUBPS     Y8, Y0, Y0
	EXP(Y0, Y1, Y2, Y3, Y4, Y5)
	VANDPS     Y10, Y0, Y0
	VMASKMOVPS Y0, Y10, (DI)
	VADDPS     Y0, Y9, Y9

esum:
	VEXTRACTF128 $1, Y9, X1
	VADDPS       X1, X9, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VZEROUPPER
	MOVSS        X0, ret+24(FP)
	RET

// GELUFWD: Y0 = u on entry; Y0 = 0.5u(1+tanh(√(2/π)(u+0.044715u³))) on exit; Y2..Y6 clobbered.
#define GELUFWD() \
	GELUTANH(Y0, Y2); \
	VMULPS       VV_HALF, Y0, Y0; \
	VFMADD213PS  Y0, Y2, Y0

// GELUTANH(U, T): T = tanh(√(2/π)(U+0.044715U³)); Y3..Y6 clobbered.
#define GELUTANH(U, T) \
	VMULPS       U, U, T; \
	VMOVUPS      VV_GELUA, Y3; VFMADD213PS VV_ONE, Y3, T; \
	VMULPS       U, T, T; \
	VMULPS       VV_GELUC, T, T; \
	TANH(T, Y3, Y4, Y5, Y6)

// func geluFwd(y, b, pre *float32, n int, gain float32)
TEXT ·geluFwd(SB), NOSPLIT, $0-36
	MOVQ         y+0(FP), DI
	MOVQ         b+8(FP), SI
	MOVQ         pre+16(FP), R8
	MOVQ         n+24(FP), CX
	VBROADCASTSS gain+32(FP), Y8

gfloop:
	CMPQ        CX, $8
	JLT         gftail
	VMOVUPS     (SI), Y1
	VMOVUPS     (DI), Y0
	VFMADD231PS Y1, Y8, Y0
	VMOVUPS     Y0, (R8)
	GELUFWD()
	VMOVUPS     Y0, (DI)
	ADDQ        $32, DI
	ADDQ        $32, SI
	ADDQ        $32, R8
	SUBQ        $8, CX
	JMP         gfloop

gftail:
	TESTQ       CX, CX
	JE          gfdone
	TAILMASK(Y10)
	VMASKMOVPS  (SI), Y10, Y1
	VMASKMOVPS  (DI), Y10, Y0
	VFMADD231PS Y1, Y8, Y0
	VMASKMOVPS  Y0, Y10, (R8)
	GELUFWD()
	VMASKMOVPS  Y0, Y10, (DI)

gfdone:
	VZEROUPPER
	RET

// GELUBWD: Y0 = u, Y2 = upstream gradient on entry; Y1 = the input gradient on exit.
#define GELUBWD() \
	GELUTANH(Y0, Y1); \
	VMOVUPS      VV_ONE, Y3; VMOVAPS Y3, Y4; VFNMADD231PS Y1, Y1, Y4; \
	VMULPS       Y0, Y0, Y5; VFMADD132PS VV_GELU3A, Y3, Y5; \
	VMULPS       Y4, Y5, Y5; VMULPS Y0, Y5, Y5; \
	VMULPS       VV_GELUC, Y5, Y5; \
	VADDPS       Y3, Y1, Y1; VADDPS Y5, Y1, Y1; \
	VMULPS       VV_HALF, Y1, Y1; \
	VMULPS       Y2, Y1, Y1

// func geluBwd(dp, gout, pre *float32, n int)
TEXT ·geluBwd(SB), NOSPLIT, $0-32
	MOVQ dp+0(FP), DI
	MOVQ gout+8(FP), SI
	MOVQ pre+16(FP), R8
	MOVQ n+24(FP), CX

gbloop:
	CMPQ    CX, $8
	JLT     gbtail
	VMOVUPS (R8), Y0
	VMOVUPS (SI), Y2
	GELUBWD()
	VMOVUPS Y1, (DI)
	ADDQ    $32, DI
	ADDQ    $32, SI
	ADDQ    $32, R8
	SUBQ    $8, CX
	JMP     gbloop

gbtail:
	TESTQ      CX, CX
	JE         gbdone
	TAILMASK(Y10)
	VMASKMOVPS (R8), Y10, Y0
	VMASKMOVPS (SI), Y10, Y2
	GELUBWD()
	VMASKMOVPS Y1, Y10, (DI)

gbdone:
	VZEROUPPER
	RET

// HSUM(Y, X, T): X's lane 0 = the sum of Y's eight lanes (X is Y's low half); T clobbered.
#define HSUM(Y, X, T) \
	VEXTRACTF128 $1, Y, T; VADDPS T, X, X; VHADDPS X, X, X; VHADDPS X, X, X

// func softmaxRow(x *float32, n int) float32
//
// x[:n] = softmax(x[:n]) with one expf per element; returns Σ exp(x−max) (n ≥ 1).
TEXT ·softmaxRow(SB), NOSPLIT, $0-20
	MOVQ         x+0(FP), SI
	MOVQ         n+8(FP), DX

	// Maximum, masked lanes as −Inf.
	MOVQ         SI, DI
	MOVQ         DX, CX
	VBROADCASTSS VM_NEGINF, Y11
	VMOVAPS      Y11, Y9

smax:
	CMPQ    CX, $8
	JLT     smaxtail
	VMAXPS  (DI), Y9, Y9
	ADDQ    $32, DI
	SUBQ    $8, CX
	JMP     smax

smaxtail:
	TESTQ      CX, CX
	JE         smaxred
	TAILMASK(Y10)
	VMASKMOVPS (DI), Y10, Y0
	VBLENDVPS  Y10, Y0, Y11, Y0
	VMAXPS     Y0, Y9, Y9

smaxred:
	VEXTRACTF128 $1, Y9, X1
	VMAXPS       X1, X9, X0
	VPERMILPS    $0x4e, X0, X1
	VMAXPS       X1, X0, X0
	VPERMILPS    $0xb1, X0, X1
	VMAXPS       X1, X0, X0
	VBROADCASTSS X0, Y8

	// exp(x − max) and the sum.
	MOVQ   SI, DI
	MOVQ   DX, CX
	VXORPS Y9, Y9, Y9

sexp:
	CMPQ    CX, $8
	JLT     sexptail
	VMOVUPS (DI), Y0
	VSUBPS  Y8, Y0, Y0
	EXP(Y0, Y1, Y2, Y3, Y4, Y5)
	VMOVUPS Y0, (DI)
	VADDPS  Y0, Y9, Y9
	ADDQ    $32, DI
	SUBQ    $8, CX
	JMP     sexp

sexptail:
	TESTQ      CX, CX
	JE         ssum
	TAILMASK(Y10)
	VMASKMOVPS (DI), Y10, Y0
	VSUBPS     Y8, Y0, Y0
	EXP(Y0, Y1, Y2, Y3, Y4, Y5)
	VANDPS     Y10, Y0, Y0
	VMASKMOVPS Y0, Y10, (DI)
	VADDPS     Y0, Y9, Y9

ssum:
	HSUM(Y9, X9, X1)
	MOVSS        X9, ret+16(FP)
	VBROADCASTSS VM_ONE, Y7
	VBROADCASTSS X9, Y9
	VDIVPS       Y9, Y7, Y7

	// Scale by 1/sum.
	MOVQ SI, DI
	MOVQ DX, CX

sscale:
	CMPQ    CX, $8
	JLT     sscaletail
	VMULPS  (DI), Y7, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, DI
	SUBQ    $8, CX
	JMP     sscale

sscaletail:
	TESTQ      CX, CX
	JE         sdone
	TAILMASK(Y10)
	VMASKMOVPS (DI), Y10, Y0
	VMULPS     Y0, Y7, Y0
	VMASKMOVPS Y0, Y10, (DI)

sdone:
	VZEROUPPER
	RET

// func softmaxBack(p, dp *float32, n int)
//
// dp[:n] = p·(dp − Σ p·dp): the gradient through a softmax row p given dp = ∂L/∂p.
TEXT ·softmaxBack(SB), NOSPLIT, $0-24
	MOVQ   p+0(FP), SI
	MOVQ   dp+8(FP), DI
	MOVQ   n+16(FP), DX
	MOVQ   DX, CX
	XORQ   AX, AX
	VXORPS Y9, Y9, Y9

bdot:
	CMPQ        CX, $8
	JLT         bdottail
	VMOVUPS     (SI)(AX*1), Y0
	VFMADD231PS (DI)(AX*1), Y0, Y9
	ADDQ        $32, AX
	SUBQ        $8, CX
	JMP         bdot

bdottail:
	TESTQ       CX, CX
	JE          bdotred
	TAILMASK(Y10)
	VMASKMOVPS  (SI)(AX*1), Y10, Y0
	VMASKMOVPS  (DI)(AX*1), Y10, Y1
	VFMADD231PS Y1, Y0, Y9

bdotred:
	HSUM(Y9, X9, X1)
	VBROADCASTSS X9, Y8
	MOVQ         DX, CX
	XORQ         AX, AX

bupd:
	CMPQ    CX, $8
	JLT     bupdtail
	VMOVUPS (DI)(AX*1), Y1
	VSUBPS  Y8, Y1, Y1
	VMULPS  (SI)(AX*1), Y1, Y1
	VMOVUPS Y1, (DI)(AX*1)
	ADDQ    $32, AX
	SUBQ    $8, CX
	JMP     bupd

bupdtail:
	TESTQ      CX, CX
	JE         bdone
	TAILMASK(Y10)
	VMASKMOVPS (SI)(AX*1), Y10, Y0
	VMASKMOVPS (DI)(AX*1), Y10, Y1
	VSUBPS     Y8, Y1, Y1
	VMULPS     Y0, Y1, Y1
	VMASKMOVPS Y1, Y10, (DI)(AX*1)

bdone:
	VZEROUPPER
	RET

// The AVX-512 GELU kernels: geluFwd and geluBwd sixteen lanes at a time, the constants as
// broadcast memory operands, tails by mask registers. Every lane runs the operations of
// the eight-lane versions in the same order, so results are the same bit for bit.

// TANH512(X, P, Q, T): X = tanhf(X) lane-wise; P, Q, T clobbered.
#define TANH512(X, P, Q, T) \
	VMINPS.BCST      VM_TANHHI, X, X; \
	VMAXPS.BCST      VM_TANHLO, X, X; \
	VMULPS           X, X, T; \
	VBROADCASTSS     VM_TP0, P; \
	VFMADD213PS.BCST VM_TP1, T, P; \
	VFMADD213PS.BCST VM_TP2, T, P; \
	VFMADD213PS.BCST VM_TP3, T, P; \
	VFMADD213PS.BCST VM_TP4, T, P; \
	VFMADD213PS.BCST VM_TP5, T, P; \
	VFMADD213PS.BCST VM_TP6, T, P; \
	VMULPS           X, P, P; \
	VBROADCASTSS     VM_TQ0, Q; \
	VFMADD213PS.BCST VM_TQ1, T, Q; \
	VFMADD213PS.BCST VM_TQ2, T, Q; \
	VFMADD213PS.BCST VM_TQ3, T, Q; \
	VDIVPS           Q, P, X

// GELUTANH512(U, T): T = tanh(√(2/π)(U+0.044715U³)); Z3..Z5 clobbered.
#define GELUTANH512(U, T) \
	VMULPS           U, U, T; \
	VBROADCASTSS     VM_GELUA, Z3; VFMADD213PS.BCST VM_ONE, Z3, T; \
	VMULPS           U, T, T; \
	VMULPS.BCST      VM_GELUC, T, T; \
	TANH512(T, Z3, Z4, Z5)

// GELUFWD512: Z0 = u on entry, its GELU on exit; Z2..Z5 clobbered.
#define GELUFWD512() \
	GELUTANH512(Z0, Z2); \
	VMULPS.BCST      VM_HALF, Z0, Z0; \
	VFMADD213PS      Z0, Z2, Z0

// GELUBWD512: Z0 = u, Z2 = upstream gradient on entry; Z1 = the input gradient on exit.
#define GELUBWD512() \
	GELUTANH512(Z0, Z1); \
	VBROADCASTSS     VM_ONE, Z3; VMOVAPS Z3, Z4; VFNMADD231PS Z1, Z1, Z4; \
	VMULPS           Z0, Z0, Z5; VFMADD132PS.BCST VM_GELU3A, Z3, Z5; \
	VMULPS           Z4, Z5, Z5; VMULPS Z0, Z5, Z5; \
	VMULPS.BCST      VM_GELUC, Z5, Z5; \
	VADDPS           Z3, Z1, Z1; VADDPS Z5, Z1, Z1; \
	VMULPS.BCST      VM_HALF, Z1, Z1; \
	VMULPS           Z2, Z1, Z1


// func geluFwd512(y, b, pre *float32, n int, gain float32)
TEXT ·geluFwd512(SB), NOSPLIT, $0-36
	MOVQ         y+0(FP), DI
	MOVQ         b+8(FP), SI
	MOVQ         pre+16(FP), R8
	MOVQ         n+24(FP), CX
	VBROADCASTSS gain+32(FP), Z8

zfloop:
	CMPQ        CX, $16
	JLT         zftail
	VMOVUPS     (SI), Z1
	VMOVUPS     (DI), Z0
	VFMADD231PS Z1, Z8, Z0
	VMOVUPS     Z0, (R8)
	GELUFWD512()
	VMOVUPS     Z0, (DI)
	ADDQ        $64, DI
	ADDQ        $64, SI
	ADDQ        $64, R8
	SUBQ        $16, CX
	JMP         zfloop

zftail:
	TESTQ       CX, CX
	JE          zfdone
	TAILK(K1)
	VMOVUPS.Z   (SI), K1, Z1
	VMOVUPS.Z   (DI), K1, Z0
	VFMADD231PS Z1, Z8, Z0
	VMOVUPS     Z0, K1, (R8)
	GELUFWD512()
	VMOVUPS     Z0, K1, (DI)

zfdone:
	VZEROUPPER
	RET

// func geluBwd512(dp, gout, pre *float32, n int)
TEXT ·geluBwd512(SB), NOSPLIT, $0-32
	MOVQ dp+0(FP), DI
	MOVQ gout+8(FP), SI
	MOVQ pre+16(FP), R8
	MOVQ n+24(FP), CX

zbloop:
	CMPQ    CX, $16
	JLT     zbtail
	VMOVUPS (R8), Z0
	VMOVUPS (SI), Z2
	GELUBWD512()
	VMOVUPS Z1, (DI)
	ADDQ    $64, DI
	ADDQ    $64, SI
	ADDQ    $64, R8
	SUBQ    $16, CX
	JMP     zbloop

zbtail:
	TESTQ     CX, CX
	JE        zbdone
	TAILK(K1)
	VMOVUPS.Z (R8), K1, Z0
	VMOVUPS.Z (SI), K1, Z2
	GELUBWD512()
	VMOVUPS   Z1, K1, (DI)

zbdone:
	VZEROUPPER
	RET
