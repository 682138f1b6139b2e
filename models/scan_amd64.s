#include "textflag.h"

// Mamba's selective scan, one channel over a whole sequence at a time, with AVX2 and FMA: the
// forward steps with scanStep32's exp (pow2f's degree-6 polynomial of 2^r, numerics.go, eight
// lanes at a time) and the reverse steps of scanStepBack. The state size s is a multiple of 8
// (the callers check).

// Constants, eight float32 copies each (two a DATA line).
DATA scanc<>+0(SB)/8, $0xc2f80000c2f80000 // lo
DATA scanc<>+8(SB)/8, $0xc2f80000c2f80000
DATA scanc<>+16(SB)/8, $0xc2f80000c2f80000
DATA scanc<>+24(SB)/8, $0xc2f80000c2f80000
DATA scanc<>+32(SB)/8, $0x4b4000004b400000 // magic (1.5·2²³; its bits are also the exponent offset)
DATA scanc<>+40(SB)/8, $0x4b4000004b400000
DATA scanc<>+48(SB)/8, $0x4b4000004b400000
DATA scanc<>+56(SB)/8, $0x4b4000004b400000
DATA scanc<>+64(SB)/8, $0x3921848939218489 // c6
DATA scanc<>+72(SB)/8, $0x3921848939218489
DATA scanc<>+80(SB)/8, $0x3921848939218489
DATA scanc<>+88(SB)/8, $0x3921848939218489
DATA scanc<>+96(SB)/8, $0x3aaec3ff3aaec3ff // c5
DATA scanc<>+104(SB)/8, $0x3aaec3ff3aaec3ff
DATA scanc<>+112(SB)/8, $0x3aaec3ff3aaec3ff
DATA scanc<>+120(SB)/8, $0x3aaec3ff3aaec3ff
DATA scanc<>+128(SB)/8, $0x3c1d955b3c1d955b // c4
DATA scanc<>+136(SB)/8, $0x3c1d955b3c1d955b
DATA scanc<>+144(SB)/8, $0x3c1d955b3c1d955b
DATA scanc<>+152(SB)/8, $0x3c1d955b3c1d955b
DATA scanc<>+160(SB)/8, $0x3d6358473d635847 // c3
DATA scanc<>+168(SB)/8, $0x3d6358473d635847
DATA scanc<>+176(SB)/8, $0x3d6358473d635847
DATA scanc<>+184(SB)/8, $0x3d6358473d635847
DATA scanc<>+192(SB)/8, $0x3e75fdf03e75fdf0 // c2
DATA scanc<>+200(SB)/8, $0x3e75fdf03e75fdf0
DATA scanc<>+208(SB)/8, $0x3e75fdf03e75fdf0
DATA scanc<>+216(SB)/8, $0x3e75fdf03e75fdf0
DATA scanc<>+224(SB)/8, $0x3f3172183f317218 // c1
DATA scanc<>+232(SB)/8, $0x3f3172183f317218
DATA scanc<>+240(SB)/8, $0x3f3172183f317218
DATA scanc<>+248(SB)/8, $0x3f3172183f317218
DATA scanc<>+256(SB)/8, $0x3f8000003f800000 // one
DATA scanc<>+264(SB)/8, $0x3f8000003f800000
DATA scanc<>+272(SB)/8, $0x3f8000003f800000
DATA scanc<>+280(SB)/8, $0x3f8000003f800000
DATA scanc<>+288(SB)/8, $0x8000000080000000 // sign
DATA scanc<>+296(SB)/8, $0x8000000080000000
DATA scanc<>+304(SB)/8, $0x8000000080000000
DATA scanc<>+312(SB)/8, $0x8000000080000000
DATA scanc<>+320(SB)/8, $0xc2ac0000c2ac0000 // lo86
DATA scanc<>+328(SB)/8, $0xc2ac0000c2ac0000
DATA scanc<>+336(SB)/8, $0xc2ac0000c2ac0000
DATA scanc<>+344(SB)/8, $0xc2ac0000c2ac0000
DATA scanc<>+352(SB)/8, $0x3fb8aa3b3fb8aa3b // log2e
DATA scanc<>+360(SB)/8, $0x3fb8aa3b3fb8aa3b
DATA scanc<>+368(SB)/8, $0x3fb8aa3b3fb8aa3b
DATA scanc<>+376(SB)/8, $0x3fb8aa3b3fb8aa3b
DATA scanc<>+384(SB)/8, $0x4000000040000000 // two
DATA scanc<>+392(SB)/8, $0x4000000040000000
DATA scanc<>+400(SB)/8, $0x4000000040000000
DATA scanc<>+408(SB)/8, $0x4000000040000000
DATA scanc<>+416(SB)/8, $0x3d9d89d93d9d89d9 // 1/13
DATA scanc<>+424(SB)/8, $0x3d9d89d93d9d89d9
DATA scanc<>+432(SB)/8, $0x3d9d89d93d9d89d9
DATA scanc<>+440(SB)/8, $0x3d9d89d93d9d89d9
DATA scanc<>+448(SB)/8, $0x3dba2e8c3dba2e8c // 1/11
DATA scanc<>+456(SB)/8, $0x3dba2e8c3dba2e8c
DATA scanc<>+464(SB)/8, $0x3dba2e8c3dba2e8c
DATA scanc<>+472(SB)/8, $0x3dba2e8c3dba2e8c
DATA scanc<>+480(SB)/8, $0x3de38e393de38e39 // 1/9
DATA scanc<>+488(SB)/8, $0x3de38e393de38e39
DATA scanc<>+496(SB)/8, $0x3de38e393de38e39
DATA scanc<>+504(SB)/8, $0x3de38e393de38e39
DATA scanc<>+512(SB)/8, $0x3e1249253e124925 // 1/7
DATA scanc<>+520(SB)/8, $0x3e1249253e124925
DATA scanc<>+528(SB)/8, $0x3e1249253e124925
DATA scanc<>+536(SB)/8, $0x3e1249253e124925
DATA scanc<>+544(SB)/8, $0x3e4ccccd3e4ccccd // 1/5
DATA scanc<>+552(SB)/8, $0x3e4ccccd3e4ccccd
DATA scanc<>+560(SB)/8, $0x3e4ccccd3e4ccccd
DATA scanc<>+568(SB)/8, $0x3e4ccccd3e4ccccd
DATA scanc<>+576(SB)/8, $0x3eaaaaab3eaaaaab // 1/3
DATA scanc<>+584(SB)/8, $0x3eaaaaab3eaaaaab
DATA scanc<>+592(SB)/8, $0x3eaaaaab3eaaaaab
DATA scanc<>+600(SB)/8, $0x3eaaaaab3eaaaaab
GLOBL scanc<>(SB), RODATA|NOPTR, $608

// HSUM(Y, X, T): X's lane 0 = the sum of Y's eight lanes (X is Y's low half); T clobbered.
#define HSUM(Y, X, T) \
	VEXTRACTF128 $1, Y, T; VADDPS T, X, X; VHADDPS X, X, X; VHADDPS X, X, X

// func scanFwdChan(h, h0, ev *float32, hs int, ae, b, c, dl, dlu, y *float32, l, st, s int)
//
// One channel forward over l tokens (its s lanes): for each token t, with hp = h0 at t = 0 and
// the previous token's h after, ev = 2^max(dl·ae, −124), h = ev·hp + dlu·b, y = Σ c·h; then h
// and ev advance hs floats, b and c s floats, dl, dlu and y st floats. No readout where y is
// nil.
TEXT ·scanFwdChan(SB), NOSPLIT, $8-104
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
	MOVQ l+80(FP), AX
	MOVQ AX, n-8(SP)
	MOVQ st+88(FP), DX
	SHLQ $2, DX
	MOVQ s+96(FP), CX
	SHLQ $2, CX
	TESTQ AX, AX
	JE    fdone
	TESTQ CX, CX
	JE    fdone
	VMOVUPS scanc<>+0(SB), Y5
	VMOVUPS scanc<>+32(SB), Y6
	VMOVUPS scanc<>+64(SB), Y7
	VMOVUPS scanc<>+96(SB), Y8
	VMOVUPS scanc<>+128(SB), Y9
	VMOVUPS scanc<>+160(SB), Y10
	VMOVUPS scanc<>+192(SB), Y11
	VMOVUPS scanc<>+224(SB), Y12

ftok:
	VBROADCASTSS (R12), Y15
	VBROADCASTSS (R13), Y14
	VXORPS       Y13, Y13, Y13
	XORQ         AX, AX

fj:
	VMULPS      (R9)(AX*1), Y15, Y0
	VMAXPS      Y5, Y0, Y0
	VADDPS      Y6, Y0, Y1
	VSUBPS      Y6, Y1, Y2
	VSUBPS      Y2, Y0, Y0
	VMOVAPS     Y7, Y3
	VFMADD213PS Y8, Y0, Y3
	VFMADD213PS Y9, Y0, Y3
	VFMADD213PS Y10, Y0, Y3
	VFMADD213PS Y11, Y0, Y3
	VFMADD213PS Y12, Y0, Y3
	VFMADD213PS scanc<>+256(SB), Y0, Y3
	VPSUBD      Y6, Y1, Y1
	VPSLLD      $23, Y1, Y1
	VPADDD      Y1, Y3, Y3
	VMOVUPS     Y3, (R8)(AX*1)
	VMULPS      (R10)(AX*1), Y14, Y4
	VFMADD231PS (SI)(AX*1), Y3, Y4
	VMOVUPS     Y4, (DI)(AX*1)
	VFMADD231PS (R11)(AX*1), Y4, Y13
	ADDQ        $32, AX
	CMPQ        AX, CX
	JLT         fj

	TESTQ  R14, R14
	JE     fnext
	HSUM(Y13, X13, X0)
	VMOVSS X13, (R14)
	ADDQ   DX, R14

fnext:
	MOVQ   DI, SI
	ADDQ   BX, DI
	ADDQ   BX, R8
	ADDQ   CX, R10
	ADDQ   CX, R11
	ADDQ   DX, R12
	ADDQ   DX, R13
	DECQ   n-8(SP)
	JNZ    ftok

fdone:
	VZEROUPPER
	RET

// func scanBackChan(dh, pa, dc, db, h, h0, ev, a, b, c, dyp, dl, dlu, sb, sa *float32, l, st, s int)
//
// scanStepBack for one channel at each of l tokens, the last first (dh and pa its s lanes;
// h, ev, b, c, dc and db rows of s lanes a token; hp = the previous token's h, h0 at t = 0),
// with token t's dyp, Δ and Δ·u at offset t·st of dyp, dl and dlu, its Σ gh·b and
// Σ gh·hp·ev·a written there in sb and sa.
TEXT ·scanBackChan(SB), NOSPLIT, $24-144
	MOVQ dh+0(FP), DI
	MOVQ pa+8(FP), SI
	MOVQ dc+16(FP), R14
	MOVQ db+24(FP), BX
	MOVQ h+32(FP), R8
	MOVQ h0+40(FP), AX
	MOVQ AX, z-16(SP)
	MOVQ ev+48(FP), R10
	MOVQ a+56(FP), R11
	MOVQ b+64(FP), R12
	MOVQ c+72(FP), R13
	MOVQ l+120(FP), DX
	MOVQ DX, n-8(SP)
	MOVQ st+128(FP), AX
	SHLQ $2, AX
	MOVQ AX, st4-24(SP)
	MOVQ s+136(FP), CX
	SHLQ $2, CX
	TESTQ CX, CX
	JE    bdone
	TESTQ DX, DX
	JE    bdone

	// Start at the last token: rows advance (l−1)·s floats, the strided arrays (l−1)·st.
	DECQ  DX
	IMULQ DX, AX
	MOVQ  DX, R9
	IMULQ CX, R9
	ADDQ  R9, R14
	ADDQ  R9, BX
	ADDQ  R9, R8
	ADDQ  R9, R10
	ADDQ  R9, R12
	ADDQ  R9, R13

btok:
	MOVQ         R8, R9
	SUBQ         CX, R9
	CMPQ         n-8(SP), $1
	CMOVQEQ      z-16(SP), R9
	MOVQ         dyp+80(FP), DX
	VBROADCASTSS (DX)(AX*1), Y15
	MOVQ         dl+88(FP), DX
	VBROADCASTSS (DX)(AX*1), Y14
	MOVQ         dlu+96(FP), DX
	VBROADCASTSS (DX)(AX*1), Y13
	VXORPS       Y12, Y12, Y12
	VXORPS       Y11, Y11, Y11
	XORQ         DX, DX

bj:
	VMOVUPS     (R13)(DX*1), Y0
	VMOVUPS     (DI)(DX*1), Y1
	VFMADD231PS Y0, Y15, Y1
	VMOVUPS     (R14)(DX*1), Y2
	VFMADD231PS (R8)(DX*1), Y15, Y2
	VMOVUPS     Y2, (R14)(DX*1)
	VMOVUPS     (BX)(DX*1), Y2
	VFMADD231PS Y1, Y13, Y2
	VMOVUPS     Y2, (BX)(DX*1)
	VFMADD231PS (R12)(DX*1), Y1, Y12
	VMOVUPS     (R10)(DX*1), Y3
	VMULPS      (R9)(DX*1), Y1, Y2
	VMULPS      Y3, Y2, Y2
	VFMADD231PS (R11)(DX*1), Y2, Y11
	VMOVUPS     (SI)(DX*1), Y0
	VFMADD231PS Y2, Y14, Y0
	VMOVUPS     Y0, (SI)(DX*1)
	VMULPS      Y3, Y1, Y1
	VMOVUPS     Y1, (DI)(DX*1)
	ADDQ        $32, DX
	CMPQ        DX, CX
	JLT         bj

	HSUM(Y12, X12, X0)
	HSUM(Y11, X11, X0)
	MOVQ   sb+104(FP), DX
	VMOVSS X12, (DX)(AX*1)
	MOVQ   sa+112(FP), DX
	VMOVSS X11, (DX)(AX*1)
	SUBQ   CX, R14
	SUBQ   CX, BX
	SUBQ   CX, R8
	SUBQ   CX, R10
	SUBQ   CX, R12
	SUBQ   CX, R13
	SUBQ   st4-24(SP), AX
	DECQ   n-8(SP)
	JNZ    btok

bdone:
	VZEROUPPER
	RET

// EXPNEG: Y4 = e^−|Y0| (the exponent clamped at −86) by pow2f's polynomial (numerics.go), each
// product rounded before its sum as the portable loop's (no FMA: the two agree bit for bit);
// Y1–Y3 clobbered; Y8 = sign bit, Y9 = −86, Y10 = log2(e), Y11 = magic, Y12 = 1.
#define EXPNEG \
	VORPS   Y8, Y0, Y1; \
	VMAXPS  Y9, Y1, Y1; \
	VMULPS  Y10, Y1, Y1; \
	VADDPS  Y11, Y1, Y2; \
	VSUBPS  Y11, Y2, Y3; \
	VSUBPS  Y3, Y1, Y1; \
	VMOVUPS scanc<>+64(SB), Y4; \
	VMULPS  Y1, Y4, Y4; \
	VADDPS  scanc<>+96(SB), Y4, Y4; \
	VMULPS  Y1, Y4, Y4; \
	VADDPS  scanc<>+128(SB), Y4, Y4; \
	VMULPS  Y1, Y4, Y4; \
	VADDPS  scanc<>+160(SB), Y4, Y4; \
	VMULPS  Y1, Y4, Y4; \
	VADDPS  scanc<>+192(SB), Y4, Y4; \
	VMULPS  Y1, Y4, Y4; \
	VADDPS  scanc<>+224(SB), Y4, Y4; \
	VMULPS  Y1, Y4, Y4; \
	VADDPS  Y12, Y4, Y4; \
	VPSUBD  Y11, Y2, Y2; \
	VPSLLD  $23, Y2, Y2; \
	VPADDD  Y2, Y4, Y4

// SIGMOID: Y7 = (1 + neg·(e−1)) / (1+e) with e = Y4 and neg = Y0's sign bit as 0 or 1, as
// sigmoidArr computes it; Y5, Y6 clobbered.
#define SIGMOID \
	VADDPS    Y12, Y4, Y5; \
	VPSRLD    $31, Y0, Y6; \
	VCVTDQ2PS Y6, Y6; \
	VSUBPS    Y12, Y4, Y7; \
	VMULPS    Y7, Y6, Y7; \
	VADDPS    Y12, Y7, Y7; \
	VDIVPS    Y5, Y7, Y7

#define SIGCONSTS \
	VMOVUPS scanc<>+288(SB), Y8; \
	VMOVUPS scanc<>+320(SB), Y9; \
	VMOVUPS scanc<>+352(SB), Y10; \
	VMOVUPS scanc<>+32(SB), Y11; \
	VMOVUPS scanc<>+256(SB), Y12

// func sigmoidVec(dst, x *float32, n int)
//
// dst[i] = σ(x[i]) for i < n − n mod 8, as sigmoidArr: e = e^−|x|, σ = (x < 0 ? e : 1)/(1+e).
TEXT ·sigmoidVec(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $3, CX
	JE   sdone
	SIGCONSTS

sloop:
	VMOVUPS (SI), Y0
	EXPNEG
	SIGMOID
	VMOVUPS Y7, (DI)
	ADDQ      $32, SI
	ADDQ      $32, DI
	DECQ      CX
	JNZ       sloop

sdone:
	VZEROUPPER
	RET

// func softplusSigmoidVec(sp, sg, x *float32, n int)
//
// sp[i] = log(1+e^x[i]) and sg[i] = σ(x[i]) for i < n − n mod 8, as softplusSigmoidArr:
// log(1+e) = 2·atanh(q), q = e/(2+e), by the odd series to q¹³, plus max(x, 0).
TEXT ·softplusSigmoidVec(SB), NOSPLIT, $0-32
	MOVQ sp+0(FP), DI
	MOVQ sg+8(FP), DX
	MOVQ x+16(FP), SI
	MOVQ n+24(FP), CX
	SHRQ $3, CX
	JE   pdone
	SIGCONSTS
	VXORPS Y13, Y13, Y13

ploop:
	VMOVUPS     (SI), Y0
	EXPNEG
	SIGMOID
	VMOVUPS     Y7, (DX)
	VADDPS      scanc<>+384(SB), Y4, Y5
	VDIVPS      Y5, Y4, Y5
	VMULPS      Y5, Y5, Y1
	VMOVUPS     scanc<>+416(SB), Y2
	VMULPS      Y1, Y2, Y2
	VADDPS      scanc<>+448(SB), Y2, Y2
	VMULPS      Y1, Y2, Y2
	VADDPS      scanc<>+480(SB), Y2, Y2
	VMULPS      Y1, Y2, Y2
	VADDPS      scanc<>+512(SB), Y2, Y2
	VMULPS      Y1, Y2, Y2
	VADDPS      scanc<>+544(SB), Y2, Y2
	VMULPS      Y1, Y2, Y2
	VADDPS      scanc<>+576(SB), Y2, Y2
	VMULPS      Y1, Y2, Y2
	VADDPS      Y12, Y2, Y2
	VADDPS      Y5, Y5, Y5
	VMULPS      Y5, Y2, Y2
	VMAXPS      Y13, Y0, Y3
	VADDPS      Y3, Y2, Y2
	VMOVUPS     Y2, (DI)
	ADDQ        $32, SI
	ADDQ        $32, DI
	ADDQ        $32, DX
	DECQ        CX
	JNZ         ploop

pdone:
	VZEROUPPER
	RET
