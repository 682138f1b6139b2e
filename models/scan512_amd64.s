#include "textflag.h"

// The selective scan with AVX-512 for a state of 16 (the quick Mamba's), sixteen channels at
// once, one a lane: the sixteen states of the sixteen channels in sixteen registers, so that
// the sums over the state (the readout C·h, Σ g·b, Σ g·hp·ev·a) add registers, not the lanes
// of one, and each token's sixteen exponentials are one register's for each state. Each
// lane's states, decays and gradient terms take the AVX2 channel kernels' (scan_amd64.s)
// operations in the same order (VSCALEFPS scales by 2^n exactly as adding n to the exponent
// does); only the sums run in another order. The sums over the channels
// (dC and dB) are kept per lane and summed at the end by a transposing tree (scanSums16).

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

// LSTEP(oa, ob, H, Y): state j of sixteen channels (H, lanes the channels) over one token:
// ev = 2^max(Δ·a_j, −124) as scanFwdChan's, H = ev·H + Δu·b_j, Y += c_j·H, with a_j at oa(R9)
// and b_j, c_j at ob(R10)(BX*1) and ob(R11)(BX*1); Z20–Z23 clobbered.
#define LSTEP(oa, ob, H, Y) \
	VMULPS           oa(R9), Z16, Z20; \
	VMAXPS           Z31, Z20, Z20; \
	VADDPS           Z24, Z20, Z21; \
	VSUBPS           Z24, Z21, Z21; \
	VSUBPS           Z21, Z20, Z20; \
	VMOVAPS          Z25, Z22; \
	VFMADD213PS      Z26, Z20, Z22; \
	VFMADD213PS      Z27, Z20, Z22; \
	VFMADD213PS      Z28, Z20, Z22; \
	VFMADD213PS      Z29, Z20, Z22; \
	VFMADD213PS      Z30, Z20, Z22; \
	VFMADD213PS.BCST scanz<>+32(SB), Z20, Z22; \
	VSCALEFPS        Z21, Z22, Z22; \
	VMULPS.BCST      ob(R10)(BX*1), Z17, Z23; \
	VFMADD213PS      Z23, Z22, H; \
	VFMADD231PS.BCST ob(R11)(BX*1), H, Y

// func scanFwdLanes16(y, ae, b, c, dl, dlu *float32, l, st, mask int)
//
// The forward scan of sixteen channels at once (the lanes; those not in mask are neither
// read nor written) with a state of 16, its state j in Zj: at each of l tokens, with Δ and
// Δ·u at offset t·st of dl and dlu, ev_j = 2^max(Δ·a_j, −124), h_j = ev_j·h_j + Δu·b_j and
// y = Σ_j c_j·h_j (at offset t·st), each lane's states and decays by scanFwdChan's
// arithmetic; a_j at 16·j of ae (the channels' A·log2(e)), b and c rows of 16 a token. No
// horizontal sums: the readout adds across registers.
TEXT ·scanFwdLanes16(SB), NOSPLIT, $0-72
	MOVQ  y+0(FP), R14
	MOVQ  ae+8(FP), R9
	MOVQ  b+16(FP), R10
	MOVQ  c+24(FP), R11
	MOVQ  dl+32(FP), R12
	MOVQ  dlu+40(FP), R13
	MOVQ  l+48(FP), CX
	MOVQ  st+56(FP), DX
	SHLQ  $2, DX
	MOVQ  mask+64(FP), AX
	KMOVW AX, K1
	TESTQ CX, CX
	JE    ldone
	VBROADCASTSS scanz<>+4(SB), Z24
	VBROADCASTSS scanz<>+8(SB), Z25
	VBROADCASTSS scanz<>+12(SB), Z26
	VBROADCASTSS scanz<>+16(SB), Z27
	VBROADCASTSS scanz<>+20(SB), Z28
	VBROADCASTSS scanz<>+24(SB), Z29
	VBROADCASTSS scanz<>+28(SB), Z30
	VBROADCASTSS scanz<>+0(SB), Z31
	VPXORD       Z0, Z0, Z0
	VMOVAPS      Z0, Z1
	VMOVAPS      Z0, Z2
	VMOVAPS      Z0, Z3
	VMOVAPS      Z0, Z4
	VMOVAPS      Z0, Z5
	VMOVAPS      Z0, Z6
	VMOVAPS      Z0, Z7
	VMOVAPS      Z0, Z8
	VMOVAPS      Z0, Z9
	VMOVAPS      Z0, Z10
	VMOVAPS      Z0, Z11
	VMOVAPS      Z0, Z12
	VMOVAPS      Z0, Z13
	VMOVAPS      Z0, Z14
	VMOVAPS      Z0, Z15
	XORQ         AX, AX
	XORQ         BX, BX

ltok:
	VMOVUPS.Z (R12)(AX*1), K1, Z16
	VMOVUPS.Z (R13)(AX*1), K1, Z17
	VPXORD    Z18, Z18, Z18
	VPXORD    Z19, Z19, Z19
	LSTEP(0, 0, Z0, Z18)
	LSTEP(64, 4, Z1, Z19)
	LSTEP(128, 8, Z2, Z18)
	LSTEP(192, 12, Z3, Z19)
	LSTEP(256, 16, Z4, Z18)
	LSTEP(320, 20, Z5, Z19)
	LSTEP(384, 24, Z6, Z18)
	LSTEP(448, 28, Z7, Z19)
	LSTEP(512, 32, Z8, Z18)
	LSTEP(576, 36, Z9, Z19)
	LSTEP(640, 40, Z10, Z18)
	LSTEP(704, 44, Z11, Z19)
	LSTEP(768, 48, Z12, Z18)
	LSTEP(832, 52, Z13, Z19)
	LSTEP(896, 56, Z14, Z18)
	LSTEP(960, 60, Z15, Z19)
	VADDPS    Z19, Z18, Z18
	VMOVUPS   Z18, K1, (R14)(AX*1)
	ADDQ      DX, AX
	ADDQ      $64, BX
	DECQ      CX
	JNZ       ltok

ldone:
	VZEROUPPER
	RET

// RSTEP(oa, ob, H): LSTEP without the readout, storing the decays at 1024+oa and the states at
// oa of the token's block (R8)(SI*1); oe = 1024+oa.
#define RSTEP(oa, ob, oe, H) \
	VMULPS           oa(R9), Z16, Z20; \
	VMAXPS           Z31, Z20, Z20; \
	VADDPS           Z24, Z20, Z21; \
	VSUBPS           Z24, Z21, Z21; \
	VSUBPS           Z21, Z20, Z20; \
	VMOVAPS          Z25, Z22; \
	VFMADD213PS      Z26, Z20, Z22; \
	VFMADD213PS      Z27, Z20, Z22; \
	VFMADD213PS      Z28, Z20, Z22; \
	VFMADD213PS      Z29, Z20, Z22; \
	VFMADD213PS      Z30, Z20, Z22; \
	VFMADD213PS.BCST scanz<>+32(SB), Z20, Z22; \
	VSCALEFPS        Z21, Z22, Z22; \
	VMOVUPS          Z22, oe(R8)(SI*1); \
	VMULPS.BCST      ob(R10)(BX*1), Z17, Z23; \
	VFMADD213PS      Z23, Z22, H; \
	VMOVUPS          H, oa(R8)(SI*1)

// func scanReplayLanes16(blk, ae, b, dl, dlu *float32, l, st, mask int)
//
// scanFwdLanes16 without the readout, keeping each token's states and decays: token t's
// block of blk (1024 floats at 1024·t) gets h_j at 16·j and ev_j at 256 + 16·j.
TEXT ·scanReplayLanes16(SB), NOSPLIT, $0-64
	MOVQ  blk+0(FP), R8
	MOVQ  ae+8(FP), R9
	MOVQ  b+16(FP), R10
	MOVQ  dl+24(FP), R12
	MOVQ  dlu+32(FP), R13
	MOVQ  l+40(FP), CX
	MOVQ  st+48(FP), DX
	SHLQ  $2, DX
	MOVQ  mask+56(FP), AX
	KMOVW AX, K1
	TESTQ CX, CX
	JE    rdone
	VBROADCASTSS scanz<>+4(SB), Z24
	VBROADCASTSS scanz<>+8(SB), Z25
	VBROADCASTSS scanz<>+12(SB), Z26
	VBROADCASTSS scanz<>+16(SB), Z27
	VBROADCASTSS scanz<>+20(SB), Z28
	VBROADCASTSS scanz<>+24(SB), Z29
	VBROADCASTSS scanz<>+28(SB), Z30
	VBROADCASTSS scanz<>+0(SB), Z31
	VPXORD       Z0, Z0, Z0
	VMOVAPS      Z0, Z1
	VMOVAPS      Z0, Z2
	VMOVAPS      Z0, Z3
	VMOVAPS      Z0, Z4
	VMOVAPS      Z0, Z5
	VMOVAPS      Z0, Z6
	VMOVAPS      Z0, Z7
	VMOVAPS      Z0, Z8
	VMOVAPS      Z0, Z9
	VMOVAPS      Z0, Z10
	VMOVAPS      Z0, Z11
	VMOVAPS      Z0, Z12
	VMOVAPS      Z0, Z13
	VMOVAPS      Z0, Z14
	VMOVAPS      Z0, Z15
	XORQ         AX, AX
	XORQ         BX, BX
	XORQ         SI, SI

rtok:
	VMOVUPS.Z (R12)(AX*1), K1, Z16
	VMOVUPS.Z (R13)(AX*1), K1, Z17
	RSTEP(0, 0, 1024, Z0)
	RSTEP(64, 4, 1088, Z1)
	RSTEP(128, 8, 1152, Z2)
	RSTEP(192, 12, 1216, Z3)
	RSTEP(256, 16, 1280, Z4)
	RSTEP(320, 20, 1344, Z5)
	RSTEP(384, 24, 1408, Z6)
	RSTEP(448, 28, 1472, Z7)
	RSTEP(512, 32, 1536, Z8)
	RSTEP(576, 36, 1600, Z9)
	RSTEP(640, 40, 1664, Z10)
	RSTEP(704, 44, 1728, Z11)
	RSTEP(768, 48, 1792, Z12)
	RSTEP(832, 52, 1856, Z13)
	RSTEP(896, 56, 1920, Z14)
	RSTEP(960, 60, 1984, Z15)
	ADDQ      DX, AX
	ADDQ      $64, BX
	ADDQ      $4096, SI
	DECQ      CX
	JNZ       rtok

rdone:
	VZEROUPPER
	RET

// BSTEP(oj, ob, oc, od, op, oe, oa, H): scanStepBack for state j of sixteen channels (the
// lanes) at one token, its dL/dh in H: g = H + dyp·c_j; the lanes' dyp·h_j and g·Δu added
// to the token block's (R8)(SI*1) rows at oc and od (dC's and dB's, summed over the lanes
// later); Σ g·b and Σ g·hp·ev·a over the states into Z19 and Z20; g·hp·ev·Δ added to pa_j
// at oa(R9); H = g·ev. h_j at oj, hp_j at op (the block before), ev_j at oe; a_j at oj(R9).
#define BSTEP(oj, ob, oc, od, op, oe, oa, H) \
	VFMADD231PS.BCST ob(R11), Z16, H; \
	VMOVUPS          oc(R8)(SI*1), Z21; \
	VFMADD231PS      oj(R8)(SI*1), Z16, Z21; \
	VMOVUPS          Z21, oc(R8)(SI*1); \
	VMOVUPS          od(R8)(SI*1), Z21; \
	VFMADD231PS      H, Z18, Z21; \
	VMOVUPS          Z21, od(R8)(SI*1); \
	VFMADD231PS.BCST ob(R10), H, Z19; \
	VMULPS           op(R8)(SI*1), H, Z22; \
	VMULPS           oe(R8)(SI*1), Z22, Z22; \
	VFMADD231PS      oj(R9), Z22, Z20; \
	VMOVUPS          oa(R9), Z21; \
	VFMADD231PS      Z22, Z17, Z21; \
	VMOVUPS          Z21, oa(R9); \
	VMULPS           oe(R8)(SI*1), H, H

// func scanBackLanes16(apa, blk, b, c, dyp, dl, dlu, sb, sa *float32, l, st, mask int)
//
// scanBackChan for sixteen channels at once (the lanes in mask), the last token first, over
// the blocks scanReplayLanes16 wrote at blk + 1024 (blk's first block: h_{−1}, zero): dL/dh
// of state j in Zj; a_j at 16·j of apa and pa_j (dL/da_j / a_j) added at 256 + 16·j; each
// token's dyp·h and g·Δu added to its block at 512 and 768 (for dC and dB: scanSums16);
// its Σ g·b and Σ g·hp·ev·a written at offset t·st of sb and sa.
TEXT ·scanBackLanes16(SB), NOSPLIT, $0-96
	MOVQ  apa+0(FP), R9
	MOVQ  blk+8(FP), R8
	MOVQ  b+16(FP), R10
	MOVQ  c+24(FP), R11
	MOVQ  dyp+32(FP), R12
	MOVQ  dl+40(FP), R13
	MOVQ  dlu+48(FP), R14
	MOVQ  sb+56(FP), DI
	MOVQ  sa+64(FP), BX
	MOVQ  l+72(FP), CX
	MOVQ  st+80(FP), DX
	SHLQ  $2, DX
	MOVQ  mask+88(FP), AX
	KMOVW AX, K1
	TESTQ CX, CX
	JE    bldone

	// Start at the last token: its block at 4096·l bytes, b and c rows at 64·(l−1), the
	// strided arrays at (l−1)·st.
	MOVQ  CX, SI
	SHLQ  $12, SI
	MOVQ  CX, AX
	DECQ  AX
	SHLQ  $6, AX
	ADDQ  AX, R10
	ADDQ  AX, R11
	MOVQ  CX, AX
	DECQ  AX
	IMULQ DX, AX
	VPXORD       Z0, Z0, Z0
	VMOVAPS      Z0, Z1
	VMOVAPS      Z0, Z2
	VMOVAPS      Z0, Z3
	VMOVAPS      Z0, Z4
	VMOVAPS      Z0, Z5
	VMOVAPS      Z0, Z6
	VMOVAPS      Z0, Z7
	VMOVAPS      Z0, Z8
	VMOVAPS      Z0, Z9
	VMOVAPS      Z0, Z10
	VMOVAPS      Z0, Z11
	VMOVAPS      Z0, Z12
	VMOVAPS      Z0, Z13
	VMOVAPS      Z0, Z14
	VMOVAPS      Z0, Z15

bltok:
	VMOVUPS.Z (R12)(AX*1), K1, Z16
	VMOVUPS.Z (R13)(AX*1), K1, Z17
	VMOVUPS.Z (R14)(AX*1), K1, Z18
	VPXORD    Z19, Z19, Z19
	VPXORD    Z20, Z20, Z20
	BSTEP(0, 0, 2048, 3072, -4096, 1024, 1024, Z0)
	BSTEP(64, 4, 2112, 3136, -4032, 1088, 1088, Z1)
	BSTEP(128, 8, 2176, 3200, -3968, 1152, 1152, Z2)
	BSTEP(192, 12, 2240, 3264, -3904, 1216, 1216, Z3)
	BSTEP(256, 16, 2304, 3328, -3840, 1280, 1280, Z4)
	BSTEP(320, 20, 2368, 3392, -3776, 1344, 1344, Z5)
	BSTEP(384, 24, 2432, 3456, -3712, 1408, 1408, Z6)
	BSTEP(448, 28, 2496, 3520, -3648, 1472, 1472, Z7)
	BSTEP(512, 32, 2560, 3584, -3584, 1536, 1536, Z8)
	BSTEP(576, 36, 2624, 3648, -3520, 1600, 1600, Z9)
	BSTEP(640, 40, 2688, 3712, -3456, 1664, 1664, Z10)
	BSTEP(704, 44, 2752, 3776, -3392, 1728, 1728, Z11)
	BSTEP(768, 48, 2816, 3840, -3328, 1792, 1792, Z12)
	BSTEP(832, 52, 2880, 3904, -3264, 1856, 1856, Z13)
	BSTEP(896, 56, 2944, 3968, -3200, 1920, 1920, Z14)
	BSTEP(960, 60, 3008, 4032, -3136, 1984, 1984, Z15)
	VMOVUPS   Z19, K1, (DI)(AX*1)
	VMOVUPS   Z20, K1, (BX)(AX*1)
	SUBQ      DX, AX
	SUBQ      $64, R10
	SUBQ      $64, R11
	SUBQ      $4096, SI
	DECQ      CX
	JNZ       bltok

bldone:
	VZEROUPPER
	RET

// RSUM16(P, W): lane i of W = the sum of the sixteen floats of row i of the 16×16 block at
// P (rows 64 bytes apart), by a transposing tree of shuffles and adds; Z20–Z30 clobbered,
// Z31 = scanperm.
#define RSUM16(P, W) \
	FOLD1(P, 0, 64, Z23); FOLD1(P, 128, 192, Z24); FOLD2(Z23, Z24, Z25); \
	FOLD1(P, 256, 320, Z23); FOLD1(P, 384, 448, Z24); FOLD2(Z23, Z24, Z26); \
	FOLD1(P, 512, 576, Z23); FOLD1(P, 640, 704, Z24); FOLD2(Z23, Z24, Z27); \
	FOLD1(P, 768, 832, Z23); FOLD1(P, 896, 960, Z24); FOLD2(Z23, Z24, Z28); \
	FOLD3(Z25, Z26, Z29, 0x44, 0xEE); FOLD3(Z27, Z28, Z30, 0x44, 0xEE); \
	FOLD3(Z29, Z30, W, 0x88, 0xDD); VPERMPS W, Z31, W

// FOLD1(P, o1, o2, S): the rows at o1(P) and o2(P) folded to eight lanes each (lane j plus
// lane j+8 in 128-bit blocks), o1's in S's low half; Z20–Z22 clobbered.
#define FOLD1(P, o1, o2, S) \
	VMOVUPS o1(P), Z20; VINSERTF64X4 $1, o2(P), Z20, Z21; VSHUFF64X2 $0xEE, o2(P), Z20, Z22; \
	VADDPS Z22, Z21, S

// FOLD2(A, B, U): two FOLD1 results (rows r…r+3) folded to four lanes a row, 128-bit block k
// of U holding row r+k's; Z21, Z22 clobbered.
#define FOLD2(A, B, U) \
	VSHUFF32X4 $0x88, B, A, Z22; VSHUFF32X4 $0xDD, B, A, Z21; VADDPS Z21, Z22, U

// FOLD3(A, B, V, i1, i2): two results folded in halves within each 128-bit block by VSHUFPS
// with i1 and i2; Z21, Z22 clobbered.
#define FOLD3(A, B, V, i1, i2) \
	VSHUFPS $i1, B, A, Z22; VSHUFPS $i2, B, A, Z21; VADDPS Z21, Z22, V

// RSUM16's last permutation: lane i of its result takes lane 4·(i mod 4) + i/4 of the tree's.
DATA scanperm<>+0(SB)/8, $0x0000000400000000
DATA scanperm<>+8(SB)/8, $0x0000000c00000008
DATA scanperm<>+16(SB)/8, $0x0000000500000001
DATA scanperm<>+24(SB)/8, $0x0000000d00000009
DATA scanperm<>+32(SB)/8, $0x0000000600000002
DATA scanperm<>+40(SB)/8, $0x0000000e0000000a
DATA scanperm<>+48(SB)/8, $0x0000000700000003
DATA scanperm<>+56(SB)/8, $0x0000000f0000000b
GLOBL scanperm<>(SB), RODATA|NOPTR, $64

// func scanSums16(dst, src *float32, n, stride int)
//
// The row sums of n 16×16 blocks, stride floats apart from src: block i's sixteen sums to
// dst[16·i : 16·i+16].
TEXT ·scanSums16(SB), NOSPLIT, $0-32
	MOVQ      dst+0(FP), DI
	MOVQ      src+8(FP), SI
	MOVQ      n+16(FP), CX
	MOVQ      stride+24(FP), DX
	SHLQ      $2, DX
	TESTQ     CX, CX
	JE        sdone
	VMOVDQU32 scanperm<>(SB), Z31

sblk:
	RSUM16(SI, Z19)
	VMOVUPS   Z19, (DI)
	ADDQ      $64, DI
	ADDQ      DX, SI
	DECQ      CX
	JNZ       sblk

sdone:
	VZEROUPPER
	RET
