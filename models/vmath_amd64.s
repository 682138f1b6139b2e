#include "textflag.h"

// Vectorised float32 tanh, exp and GELU with AVX2 and FMA: the polynomials of tanhf and
// expf in num.go (Eigen's rational tanh, Cephes' exp), eight lanes at a time, tails by
// masked loads and stores.

// Constants, each a float32 broadcast where used (the values of num.go rounded to float32).
DATA vmc<>+0(SB)/4, $0x40fcf84f // tanhHi = 7.905311107635498
DATA vmc<>+4(SB)/4, $0xc0fcf84f // tanhLo = -7.905311107635498
DATA vmc<>+8(SB)/4, $0xa59f25c0 // tp0 = -2.76076847742355e-16
DATA vmc<>+12(SB)/4, $0x2a61337e // tp1 = 2.0001879048247699e-13
DATA vmc<>+16(SB)/4, $0xaebd37ff // tp2 = -8.60467152213735e-11
DATA vmc<>+20(SB)/4, $0x335c0041 // tp3 = 5.1222970903711401e-08
DATA vmc<>+24(SB)/4, $0x3779434a // tp4 = 1.4857223571797901e-05
DATA vmc<>+28(SB)/4, $0x3a270ded // tp5 = 0.00063726192887543596
DATA vmc<>+32(SB)/4, $0x3ba059dc // tp6 = 0.0048935245589178597
DATA vmc<>+36(SB)/4, $0x35a0d3d8 // tq0 = 1.1982583946670199e-06
DATA vmc<>+40(SB)/4, $0x38f895d6 // tq1 = 0.000118534705686654
DATA vmc<>+44(SB)/4, $0x3b14aa05 // tq2 = 0.0022684346324390002
DATA vmc<>+48(SB)/4, $0x3ba059dd // tq3 = 0.0048935251855438504
DATA vmc<>+52(SB)/4, $0x42b0c0a5 // expHi = 88.376262664794893
DATA vmc<>+56(SB)/4, $0xc2ae0000 // expLo = -87
DATA vmc<>+60(SB)/4, $0x3fb8aa3b // log2e = 1.4426950408889634
DATA vmc<>+64(SB)/4, $0x3f000000 // half = 0.5
DATA vmc<>+68(SB)/4, $0x3f318000 // c1 = 0.693359375
DATA vmc<>+72(SB)/4, $0xb95e8083 // c2 = -0.00021219444
DATA vmc<>+76(SB)/4, $0x39506967 // e0 = 0.000198756915
DATA vmc<>+80(SB)/4, $0x3ab743ce // e1 = 0.0013981999507
DATA vmc<>+84(SB)/4, $0x3c088908 // e2 = 0.0083334519072999994
DATA vmc<>+88(SB)/4, $0x3d2aa9c1 // e3 = 0.041665795893999998
DATA vmc<>+92(SB)/4, $0x3e2aaaaa // e4 = 0.16666665458999999
DATA vmc<>+96(SB)/4, $0x3f000000 // e5 = 0.50000001200999999
DATA vmc<>+100(SB)/4, $0x3f800000 // one = 1
DATA vmc<>+104(SB)/4, $0x7f800000 // inf = inf
DATA vmc<>+108(SB)/4, $0x3f4c422a // geluC = 0.79788456080286541
DATA vmc<>+112(SB)/4, $0x3d372713 // geluA = 0.044714999999999998
DATA vmc<>+116(SB)/4, $0x3e095d4f // gelu3A = 0.13414499999999999
DATA vmc<>+120(SB)/4, $0xff800000 // negInf
GLOBL vmc<>(SB), RODATA|NOPTR, $124

#define VM_TANHHI vmc<>+0(SB)
#define VM_TANHLO vmc<>+4(SB)
#define VM_TP0 vmc<>+8(SB)
#define VM_TP1 vmc<>+12(SB)
#define VM_TP2 vmc<>+16(SB)
#define VM_TP3 vmc<>+20(SB)
#define VM_TP4 vmc<>+24(SB)
#define VM_TP5 vmc<>+28(SB)
#define VM_TP6 vmc<>+32(SB)
#define VM_TQ0 vmc<>+36(SB)
#define VM_TQ1 vmc<>+40(SB)
#define VM_TQ2 vmc<>+44(SB)
#define VM_TQ3 vmc<>+48(SB)
#define VM_EXPHI vmc<>+52(SB)
#define VM_EXPLO vmc<>+56(SB)
#define VM_LOG2E vmc<>+60(SB)
#define VM_HALF vmc<>+64(SB)
#define VM_C1 vmc<>+68(SB)
#define VM_C2 vmc<>+72(SB)
#define VM_E0 vmc<>+76(SB)
#define VM_E1 vmc<>+80(SB)
#define VM_E2 vmc<>+84(SB)
#define VM_E3 vmc<>+88(SB)
#define VM_E4 vmc<>+92(SB)
#define VM_E5 vmc<>+96(SB)
#define VM_ONE vmc<>+100(SB)
#define VM_INF vmc<>+104(SB)
#define VM_GELUC vmc<>+108(SB)
#define VM_GELUA vmc<>+112(SB)
#define VM_GELU3A vmc<>+116(SB)
#define VM_NEGINF vmc<>+120(SB)

// 16 all-ones lanes then 16 zero lanes: the mask of the first r lanes starts at lane 16−r.
DATA vmMask<>+0(SB)/8, $0xffffffffffffffff
DATA vmMask<>+8(SB)/8, $0xffffffffffffffff
DATA vmMask<>+16(SB)/8, $0xffffffffffffffff
DATA vmMask<>+24(SB)/8, $0xffffffffffffffff
DATA vmMask<>+32(SB)/8, $0xffffffffffffffff
DATA vmMask<>+40(SB)/8, $0xffffffffffffffff
DATA vmMask<>+48(SB)/8, $0xffffffffffffffff
DATA vmMask<>+56(SB)/8, $0xffffffffffffffff
DATA vmMask<>+64(SB)/8, $0
DATA vmMask<>+72(SB)/8, $0
DATA vmMask<>+80(SB)/8, $0
DATA vmMask<>+88(SB)/8, $0
DATA vmMask<>+96(SB)/8, $0
DATA vmMask<>+104(SB)/8, $0
DATA vmMask<>+112(SB)/8, $0
DATA vmMask<>+120(SB)/8, $0
GLOBL vmMask<>(SB), RODATA|NOPTR, $128

// TANH(X): X = tanhf(X) lane-wise; P, Q, T, C are clobbered.
#define TANH(X, P, Q, T, C) \
	VBROADCASTSS VM_TANHHI, C; VMINPS C, X, X; \
	VBROADCASTSS VM_TANHLO, C; VMAXPS C, X, X; \
	VMULPS       X, X, T; \
	VBROADCASTSS VM_TP0, P; \
	VBROADCASTSS VM_TP1, C; VFMADD213PS C, T, P; \
	VBROADCASTSS VM_TP2, C; VFMADD213PS C, T, P; \
	VBROADCASTSS VM_TP3, C; VFMADD213PS C, T, P; \
	VBROADCASTSS VM_TP4, C; VFMADD213PS C, T, P; \
	VBROADCASTSS VM_TP5, C; VFMADD213PS C, T, P; \
	VBROADCASTSS VM_TP6, C; VFMADD213PS C, T, P; \
	VMULPS       X, P, P; \
	VBROADCASTSS VM_TQ0, Q; \
	VBROADCASTSS VM_TQ1, C; VFMADD213PS C, T, Q; \
	VBROADCASTSS VM_TQ2, C; VFMADD213PS C, T, Q; \
	VBROADCASTSS VM_TQ3, C; VFMADD213PS C, T, Q; \
	VDIVPS       Q, P, X

// EXP(X): X = expf(X) lane-wise (+Inf above 88.376…, 0 below −87); O, N, T, P, C clobbered.
#define EXP(X, O, N, T, P, C) \
	VMOVAPS      X, O; \
	VBROADCASTSS VM_EXPHI, C; VMINPS C, X, X; \
	VBROADCASTSS VM_EXPLO, C; VMAXPS C, X, X; \
	VBROADCASTSS VM_LOG2E, N; VBROADCASTSS VM_HALF, C; VFMADD213PS C, X, N; \
	VROUNDPS     $1, N, N; \
	VBROADCASTSS VM_C1, C; VFNMADD231PS C, N, X; \
	VBROADCASTSS VM_C2, C; VFNMADD231PS C, N, X; \
	VMULPS       X, X, T; \
	VBROADCASTSS VM_E0, P; \
	VBROADCASTSS VM_E1, C; VFMADD213PS C, X, P; \
	VBROADCASTSS VM_E2, C; VFMADD213PS C, X, P; \
	VBROADCASTSS VM_E3, C; VFMADD213PS C, X, P; \
	VBROADCASTSS VM_E4, C; VFMADD213PS C, X, P; \
	VBROADCASTSS VM_E5, C; VFMADD213PS C, X, P; \
	VFMADD213PS  X, T, P; \
	VBROADCASTSS VM_ONE, C; VADDPS C, P, P; \
	VCVTPS2DQ    N, N; VPSLLD $23, N, N; VPADDD N, P, X; \
	VBROADCASTSS VM_EXPHI, C; VCMPPS $0x1e, C, O, T; \
	VBROADCASTSS VM_INF, C; VBLENDVPS T, C, X, X; \
	VBROADCASTSS VM_EXPLO, C; VCMPPS $0x11, C, O, T; \
	VANDNPS      X, T, X

// TAILMASK(M): M = mask of the first CX (1..7) lanes; BX, R14 clobbered.
#define TAILMASK(M) \
	LEAQ vmMask<>(SB), BX; MOVQ $16, R14; SUBQ CX, R14; VMOVDQU (BX)(R14*4), M

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
	VBROADCASTSS VM_HALF, Y3; VMULPS Y3, Y0, Y0; \
	VFMADD213PS  Y0, Y2, Y0

// GELUTANH(U, T): T = tanh(√(2/π)(U+0.044715U³)); Y3..Y6 clobbered.
#define GELUTANH(U, T) \
	VMULPS       U, U, T; \
	VBROADCASTSS VM_GELUA, Y3; VBROADCASTSS VM_ONE, Y4; VFMADD213PS Y4, Y3, T; \
	VMULPS       U, T, T; \
	VBROADCASTSS VM_GELUC, Y3; VMULPS Y3, T, T; \
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
	VBROADCASTSS VM_ONE, Y3; VMOVAPS Y3, Y4; VFNMADD231PS Y1, Y1, Y4; \
	VMULPS       Y0, Y0, Y5; VBROADCASTSS VM_GELU3A, Y6; VFMADD213PS Y3, Y6, Y5; \
	VMULPS       Y4, Y5, Y5; VMULPS Y0, Y5, Y5; \
	VBROADCASTSS VM_GELUC, Y6; VMULPS Y6, Y5, Y5; \
	VADDPS       Y3, Y1, Y1; VADDPS Y5, Y1, Y1; \
	VBROADCASTSS VM_HALF, Y6; VMULPS Y6, Y1, Y1; \
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
