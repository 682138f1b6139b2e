#include "textflag.h"

// Mamba's selective scan, one token row at a time, with AVX2 and FMA: the forward step with
// scanStep32's exp (the same degree-6 polynomial of 2^r, eight lanes at a time), the replay
// of the states from kept decays, and the reverse step of scanStepBack. The state size s is a
// multiple of 8 (the callers check); e channels of s lanes each, channel-major.

// Constants, eight copies each.
DATA scanc<>+0(SB)/4, $0xc2f80000 // lo
DATA scanc<>+4(SB)/4, $0xc2f80000
DATA scanc<>+8(SB)/4, $0xc2f80000
DATA scanc<>+12(SB)/4, $0xc2f80000
DATA scanc<>+16(SB)/4, $0xc2f80000
DATA scanc<>+20(SB)/4, $0xc2f80000
DATA scanc<>+24(SB)/4, $0xc2f80000
DATA scanc<>+28(SB)/4, $0xc2f80000
DATA scanc<>+32(SB)/4, $0x4b400000 // magic (1.5·2²³; its bits are also the exponent offset)
DATA scanc<>+36(SB)/4, $0x4b400000
DATA scanc<>+40(SB)/4, $0x4b400000
DATA scanc<>+44(SB)/4, $0x4b400000
DATA scanc<>+48(SB)/4, $0x4b400000
DATA scanc<>+52(SB)/4, $0x4b400000
DATA scanc<>+56(SB)/4, $0x4b400000
DATA scanc<>+60(SB)/4, $0x4b400000
DATA scanc<>+64(SB)/4, $0x39218489 // c6
DATA scanc<>+68(SB)/4, $0x39218489
DATA scanc<>+72(SB)/4, $0x39218489
DATA scanc<>+76(SB)/4, $0x39218489
DATA scanc<>+80(SB)/4, $0x39218489
DATA scanc<>+84(SB)/4, $0x39218489
DATA scanc<>+88(SB)/4, $0x39218489
DATA scanc<>+92(SB)/4, $0x39218489
DATA scanc<>+96(SB)/4, $0x3aaec3ff // c5
DATA scanc<>+100(SB)/4, $0x3aaec3ff
DATA scanc<>+104(SB)/4, $0x3aaec3ff
DATA scanc<>+108(SB)/4, $0x3aaec3ff
DATA scanc<>+112(SB)/4, $0x3aaec3ff
DATA scanc<>+116(SB)/4, $0x3aaec3ff
DATA scanc<>+120(SB)/4, $0x3aaec3ff
DATA scanc<>+124(SB)/4, $0x3aaec3ff
DATA scanc<>+128(SB)/4, $0x3c1d955b // c4
DATA scanc<>+132(SB)/4, $0x3c1d955b
DATA scanc<>+136(SB)/4, $0x3c1d955b
DATA scanc<>+140(SB)/4, $0x3c1d955b
DATA scanc<>+144(SB)/4, $0x3c1d955b
DATA scanc<>+148(SB)/4, $0x3c1d955b
DATA scanc<>+152(SB)/4, $0x3c1d955b
DATA scanc<>+156(SB)/4, $0x3c1d955b
DATA scanc<>+160(SB)/4, $0x3d635847 // c3
DATA scanc<>+164(SB)/4, $0x3d635847
DATA scanc<>+168(SB)/4, $0x3d635847
DATA scanc<>+172(SB)/4, $0x3d635847
DATA scanc<>+176(SB)/4, $0x3d635847
DATA scanc<>+180(SB)/4, $0x3d635847
DATA scanc<>+184(SB)/4, $0x3d635847
DATA scanc<>+188(SB)/4, $0x3d635847
DATA scanc<>+192(SB)/4, $0x3e75fdf0 // c2
DATA scanc<>+196(SB)/4, $0x3e75fdf0
DATA scanc<>+200(SB)/4, $0x3e75fdf0
DATA scanc<>+204(SB)/4, $0x3e75fdf0
DATA scanc<>+208(SB)/4, $0x3e75fdf0
DATA scanc<>+212(SB)/4, $0x3e75fdf0
DATA scanc<>+216(SB)/4, $0x3e75fdf0
DATA scanc<>+220(SB)/4, $0x3e75fdf0
DATA scanc<>+224(SB)/4, $0x3f317218 // c1
DATA scanc<>+228(SB)/4, $0x3f317218
DATA scanc<>+232(SB)/4, $0x3f317218
DATA scanc<>+236(SB)/4, $0x3f317218
DATA scanc<>+240(SB)/4, $0x3f317218
DATA scanc<>+244(SB)/4, $0x3f317218
DATA scanc<>+248(SB)/4, $0x3f317218
DATA scanc<>+252(SB)/4, $0x3f317218
DATA scanc<>+256(SB)/4, $0x3f800000 // one
DATA scanc<>+260(SB)/4, $0x3f800000
DATA scanc<>+264(SB)/4, $0x3f800000
DATA scanc<>+268(SB)/4, $0x3f800000
DATA scanc<>+272(SB)/4, $0x3f800000
DATA scanc<>+276(SB)/4, $0x3f800000
DATA scanc<>+280(SB)/4, $0x3f800000
DATA scanc<>+284(SB)/4, $0x3f800000
GLOBL scanc<>(SB), RODATA|NOPTR, $288

// HSUM(Y, X, T): X's lane 0 = the sum of Y's eight lanes (X is Y's low half); T clobbered.
#define HSUM(Y, X, T) \
	VEXTRACTF128 $1, Y, T; VADDPS T, X, X; VHADDPS X, X, X; VHADDPS X, X, X

// func scanFwdRow(h, hp, ev, ae, b, c, dl, u, acc *float32, e, s int)
//
// For each channel k < e (its lanes j < s at offset k·s of h, hp, ev and ae):
// ev = 2^max(dl[k]·ae, −124), h = ev·hp + dl[k]·u[k]·b, acc[k] = Σ c·h (h may be hp).
TEXT ·scanFwdRow(SB), NOSPLIT, $0-88
	MOVQ h+0(FP), DI
	MOVQ hp+8(FP), SI
	MOVQ ev+16(FP), R8
	MOVQ ae+24(FP), R9
	MOVQ b+32(FP), R10
	MOVQ c+40(FP), R11
	MOVQ dl+48(FP), R12
	MOVQ u+56(FP), R13
	MOVQ acc+64(FP), R14
	MOVQ e+72(FP), CX
	MOVQ s+80(FP), DX
	SHLQ $2, DX
	TESTQ CX, CX
	JE    fdone
	TESTQ DX, DX
	JE    fdone
	VMOVUPS scanc<>+0(SB), Y5
	VMOVUPS scanc<>+32(SB), Y6
	VMOVUPS scanc<>+64(SB), Y7
	VMOVUPS scanc<>+96(SB), Y8
	VMOVUPS scanc<>+128(SB), Y9
	VMOVUPS scanc<>+160(SB), Y10
	VMOVUPS scanc<>+192(SB), Y11
	VMOVUPS scanc<>+224(SB), Y12

fchan:
	VBROADCASTSS (R12), Y15
	VMULSS       (R13), X15, X14
	VBROADCASTSS X14, Y14
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
	CMPQ        AX, DX
	JLT         fj

	HSUM(Y13, X13, X0)
	VMOVSS X13, (R14)
	ADDQ   DX, DI
	ADDQ   DX, SI
	ADDQ   DX, R8
	ADDQ   DX, R9
	ADDQ   $4, R12
	ADDQ   $4, R13
	ADDQ   $4, R14
	DECQ   CX
	JNZ    fchan

fdone:
	VZEROUPPER
	RET

// func scanReplayRow(h, hp, ev, b, du *float32, e, s int)
//
// For each channel k < e: h = ev·hp + du[k]·b (lanes at offset k·s of h, hp and ev).
TEXT ·scanReplayRow(SB), NOSPLIT, $0-56
	MOVQ h+0(FP), DI
	MOVQ hp+8(FP), SI
	MOVQ ev+16(FP), R8
	MOVQ b+24(FP), R9
	MOVQ du+32(FP), R10
	MOVQ e+40(FP), CX
	MOVQ s+48(FP), DX
	SHLQ $2, DX
	TESTQ CX, CX
	JE    rdone
	TESTQ DX, DX
	JE    rdone

rchan:
	VBROADCASTSS (R10), Y0
	XORQ         AX, AX

rj:
	VMULPS      (R9)(AX*1), Y0, Y1
	VMOVUPS     (R8)(AX*1), Y2
	VFMADD231PS (SI)(AX*1), Y2, Y1
	VMOVUPS     Y1, (DI)(AX*1)
	ADDQ        $32, AX
	CMPQ        AX, DX
	JLT         rj

	ADDQ DX, DI
	ADDQ DX, SI
	ADDQ DX, R8
	ADDQ $4, R10
	DECQ CX
	JNZ  rchan

rdone:
	VZEROUPPER
	RET

// func scanBackRow(dh, pa, dc, db, h, hp, ev, a, b, c, sc *float32, e, s int)
//
// scanStepBack for each channel k < e (lanes at offset k·s of dh, pa, h, hp, ev and a; dc,
// db, b and c are the row's, shared by the channels). sc holds four floats a channel: dyp,
// Δ, Δ·u on entry; Σ gh·b and Σ gh·hp·ev·a are written to its slots 2 and 3.
TEXT ·scanBackRow(SB), NOSPLIT, $8-104
	MOVQ dh+0(FP), DI
	MOVQ pa+8(FP), SI
	MOVQ dc+16(FP), R14
	MOVQ db+24(FP), BX
	MOVQ h+32(FP), R8
	MOVQ hp+40(FP), R9
	MOVQ ev+48(FP), R10
	MOVQ a+56(FP), R11
	MOVQ b+64(FP), R12
	MOVQ c+72(FP), R13
	MOVQ sc+80(FP), AX
	MOVQ e+88(FP), CX
	MOVQ CX, n-8(SP)
	MOVQ s+96(FP), CX
	SHLQ $2, CX
	TESTQ CX, CX
	JE    bdone
	CMPQ  n-8(SP), $0
	JE    bdone

bchan:
	VBROADCASTSS (AX), Y15
	VBROADCASTSS 4(AX), Y14
	VBROADCASTSS 8(AX), Y13
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
	VMOVSS X12, 8(AX)
	VMOVSS X11, 12(AX)
	ADDQ   CX, DI
	ADDQ   CX, SI
	ADDQ   CX, R8
	ADDQ   CX, R9
	ADDQ   CX, R10
	ADDQ   CX, R11
	ADDQ   $16, AX
	DECQ   n-8(SP)
	JNZ    bchan

bdone:
	VZEROUPPER
	RET
