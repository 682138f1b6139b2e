#include "textflag.h"
#include "vmath_amd64.h"

// The exact GELU's vector kernels: u·Φ(u) and its gradient Φ(u) + u·φ(u) with Φ(u) =
// ½(1 + erf(u/√2)), the polynomials of erfExp32 (numerics.go) and the exp of expf (num.go),
// eight lanes at a time with AVX2 and FMA, sixteen with AVX-512 (the same operations in the
// same order in every lane, so the two agree bit for bit). Both branches of erfExp32 (|x| < 1
// and [1, 4)) are computed and the lane's one selected; the products are fused, so results
// may differ from the Go code by a few float32 ulps (TestGeluErfVec).

// The constants as eight-lane vectors (memory operands of AVX2 arithmetic; lane 0 is the
// AVX-512 kernels' broadcast operand).
// invSqrt2 = 0.7071067811865476
DATA vme<>+0(SB)/4, $0x3f3504f3
DATA vme<>+4(SB)/4, $0x3f3504f3
DATA vme<>+8(SB)/4, $0x3f3504f3
DATA vme<>+12(SB)/4, $0x3f3504f3
DATA vme<>+16(SB)/4, $0x3f3504f3
DATA vme<>+20(SB)/4, $0x3f3504f3
DATA vme<>+24(SB)/4, $0x3f3504f3
DATA vme<>+28(SB)/4, $0x3f3504f3
// invSqrt2Pi = 0.3989422804014327
DATA vme<>+32(SB)/4, $0x3ecc422a
DATA vme<>+36(SB)/4, $0x3ecc422a
DATA vme<>+40(SB)/4, $0x3ecc422a
DATA vme<>+44(SB)/4, $0x3ecc422a
DATA vme<>+48(SB)/4, $0x3ecc422a
DATA vme<>+52(SB)/4, $0x3ecc422a
DATA vme<>+56(SB)/4, $0x3ecc422a
DATA vme<>+60(SB)/4, $0x3ecc422a
// abs: all but the sign bit
DATA vme<>+64(SB)/4, $0x7fffffff
DATA vme<>+68(SB)/4, $0x7fffffff
DATA vme<>+72(SB)/4, $0x7fffffff
DATA vme<>+76(SB)/4, $0x7fffffff
DATA vme<>+80(SB)/4, $0x7fffffff
DATA vme<>+84(SB)/4, $0x7fffffff
DATA vme<>+88(SB)/4, $0x7fffffff
DATA vme<>+92(SB)/4, $0x7fffffff
// sign: the sign bit
DATA vme<>+96(SB)/4, $0x80000000
DATA vme<>+100(SB)/4, $0x80000000
DATA vme<>+104(SB)/4, $0x80000000
DATA vme<>+108(SB)/4, $0x80000000
DATA vme<>+112(SB)/4, $0x80000000
DATA vme<>+116(SB)/4, $0x80000000
DATA vme<>+120(SB)/4, $0x80000000
DATA vme<>+124(SB)/4, $0x80000000
// four = 4
DATA vme<>+128(SB)/4, $0x40800000
DATA vme<>+132(SB)/4, $0x40800000
DATA vme<>+136(SB)/4, $0x40800000
DATA vme<>+140(SB)/4, $0x40800000
DATA vme<>+144(SB)/4, $0x40800000
DATA vme<>+148(SB)/4, $0x40800000
DATA vme<>+152(SB)/4, $0x40800000
DATA vme<>+156(SB)/4, $0x40800000
// erfA0 = 1.1283791660932752
DATA vme<>+160(SB)/4, $0x3f906eba
DATA vme<>+164(SB)/4, $0x3f906eba
DATA vme<>+168(SB)/4, $0x3f906eba
DATA vme<>+172(SB)/4, $0x3f906eba
DATA vme<>+176(SB)/4, $0x3f906eba
DATA vme<>+180(SB)/4, $0x3f906eba
DATA vme<>+184(SB)/4, $0x3f906eba
DATA vme<>+188(SB)/4, $0x3f906eba
// erfA1 = -0.37612628720442154
DATA vme<>+192(SB)/4, $0xbec093a0
DATA vme<>+196(SB)/4, $0xbec093a0
DATA vme<>+200(SB)/4, $0xbec093a0
DATA vme<>+204(SB)/4, $0xbec093a0
DATA vme<>+208(SB)/4, $0xbec093a0
DATA vme<>+212(SB)/4, $0xbec093a0
DATA vme<>+216(SB)/4, $0xbec093a0
DATA vme<>+220(SB)/4, $0xbec093a0
// erfA2 = 0.1128362185964443
DATA vme<>+224(SB)/4, $0x3de716ad
DATA vme<>+228(SB)/4, $0x3de716ad
DATA vme<>+232(SB)/4, $0x3de716ad
DATA vme<>+236(SB)/4, $0x3de716ad
DATA vme<>+240(SB)/4, $0x3de716ad
DATA vme<>+244(SB)/4, $0x3de716ad
DATA vme<>+248(SB)/4, $0x3de716ad
DATA vme<>+252(SB)/4, $0x3de716ad
// erfA3 = -0.02685550035934094
DATA vme<>+256(SB)/4, $0xbcdc0011
DATA vme<>+260(SB)/4, $0xbcdc0011
DATA vme<>+264(SB)/4, $0xbcdc0011
DATA vme<>+268(SB)/4, $0xbcdc0011
DATA vme<>+272(SB)/4, $0xbcdc0011
DATA vme<>+276(SB)/4, $0xbcdc0011
DATA vme<>+280(SB)/4, $0xbcdc0011
DATA vme<>+284(SB)/4, $0xbcdc0011
// erfA4 = 0.0051918141777309405
DATA vme<>+288(SB)/4, $0x3baa2018
DATA vme<>+292(SB)/4, $0x3baa2018
DATA vme<>+296(SB)/4, $0x3baa2018
DATA vme<>+300(SB)/4, $0x3baa2018
DATA vme<>+304(SB)/4, $0x3baa2018
DATA vme<>+308(SB)/4, $0x3baa2018
DATA vme<>+312(SB)/4, $0x3baa2018
DATA vme<>+316(SB)/4, $0x3baa2018
// erfA5 = -0.0008043185047435315
DATA vme<>+320(SB)/4, $0xba52d8e7
DATA vme<>+324(SB)/4, $0xba52d8e7
DATA vme<>+328(SB)/4, $0xba52d8e7
DATA vme<>+332(SB)/4, $0xba52d8e7
DATA vme<>+336(SB)/4, $0xba52d8e7
DATA vme<>+340(SB)/4, $0xba52d8e7
DATA vme<>+344(SB)/4, $0xba52d8e7
DATA vme<>+348(SB)/4, $0xba52d8e7
// erfA6 = 7.970350955731097e-05
DATA vme<>+352(SB)/4, $0x38a7267f
DATA vme<>+356(SB)/4, $0x38a7267f
DATA vme<>+360(SB)/4, $0x38a7267f
DATA vme<>+364(SB)/4, $0x38a7267f
DATA vme<>+368(SB)/4, $0x38a7267f
DATA vme<>+372(SB)/4, $0x38a7267f
DATA vme<>+376(SB)/4, $0x38a7267f
DATA vme<>+380(SB)/4, $0x38a7267f
// erfB0 = 0.00011188464728259015
DATA vme<>+384(SB)/4, $0x38eaa39d
DATA vme<>+388(SB)/4, $0x38eaa39d
DATA vme<>+392(SB)/4, $0x38eaa39d
DATA vme<>+396(SB)/4, $0x38eaa39d
DATA vme<>+400(SB)/4, $0x38eaa39d
DATA vme<>+404(SB)/4, $0x38eaa39d
DATA vme<>+408(SB)/4, $0x38eaa39d
DATA vme<>+412(SB)/4, $0x38eaa39d
// erfB1 = 0.5619492929088077
DATA vme<>+416(SB)/4, $0x3f0fdbe9
DATA vme<>+420(SB)/4, $0x3f0fdbe9
DATA vme<>+424(SB)/4, $0x3f0fdbe9
DATA vme<>+428(SB)/4, $0x3f0fdbe9
DATA vme<>+432(SB)/4, $0x3f0fdbe9
DATA vme<>+436(SB)/4, $0x3f0fdbe9
DATA vme<>+440(SB)/4, $0x3f0fdbe9
DATA vme<>+444(SB)/4, $0x3f0fdbe9
// erfB2 = 0.019000639459371013
DATA vme<>+448(SB)/4, $0x3c9ba73b
DATA vme<>+452(SB)/4, $0x3c9ba73b
DATA vme<>+456(SB)/4, $0x3c9ba73b
DATA vme<>+460(SB)/4, $0x3c9ba73b
DATA vme<>+464(SB)/4, $0x3c9ba73b
DATA vme<>+468(SB)/4, $0x3c9ba73b
DATA vme<>+472(SB)/4, $0x3c9ba73b
DATA vme<>+476(SB)/4, $0x3c9ba73b
// erfB3 = -0.36853813912479133
DATA vme<>+480(SB)/4, $0xbebcb108
DATA vme<>+484(SB)/4, $0xbebcb108
DATA vme<>+488(SB)/4, $0xbebcb108
DATA vme<>+492(SB)/4, $0xbebcb108
DATA vme<>+496(SB)/4, $0xbebcb108
DATA vme<>+500(SB)/4, $0xbebcb108
DATA vme<>+504(SB)/4, $0xbebcb108
DATA vme<>+508(SB)/4, $0xbebcb108
// erfB4 = 0.20867367856613503
DATA vme<>+512(SB)/4, $0x3e55ae8e
DATA vme<>+516(SB)/4, $0x3e55ae8e
DATA vme<>+520(SB)/4, $0x3e55ae8e
DATA vme<>+524(SB)/4, $0x3e55ae8e
DATA vme<>+528(SB)/4, $0x3e55ae8e
DATA vme<>+532(SB)/4, $0x3e55ae8e
DATA vme<>+536(SB)/4, $0x3e55ae8e
DATA vme<>+540(SB)/4, $0x3e55ae8e
// erfB5 = 0.2798948311525593
DATA vme<>+544(SB)/4, $0x3e8f4e60
DATA vme<>+548(SB)/4, $0x3e8f4e60
DATA vme<>+552(SB)/4, $0x3e8f4e60
DATA vme<>+556(SB)/4, $0x3e8f4e60
DATA vme<>+560(SB)/4, $0x3e8f4e60
DATA vme<>+564(SB)/4, $0x3e8f4e60
DATA vme<>+568(SB)/4, $0x3e8f4e60
DATA vme<>+572(SB)/4, $0x3e8f4e60
// erfB6 = -0.5883287584414715
DATA vme<>+576(SB)/4, $0xbf169cb7
DATA vme<>+580(SB)/4, $0xbf169cb7
DATA vme<>+584(SB)/4, $0xbf169cb7
DATA vme<>+588(SB)/4, $0xbf169cb7
DATA vme<>+592(SB)/4, $0xbf169cb7
DATA vme<>+596(SB)/4, $0xbf169cb7
DATA vme<>+600(SB)/4, $0xbf169cb7
DATA vme<>+604(SB)/4, $0xbf169cb7
// erfB7 = 0.47787838381862247
DATA vme<>+608(SB)/4, $0x3ef4ac7a
DATA vme<>+612(SB)/4, $0x3ef4ac7a
DATA vme<>+616(SB)/4, $0x3ef4ac7a
DATA vme<>+620(SB)/4, $0x3ef4ac7a
DATA vme<>+624(SB)/4, $0x3ef4ac7a
DATA vme<>+628(SB)/4, $0x3ef4ac7a
DATA vme<>+632(SB)/4, $0x3ef4ac7a
DATA vme<>+636(SB)/4, $0x3ef4ac7a
// erfB8 = -0.19705806695998596
DATA vme<>+640(SB)/4, $0xbe49c997
DATA vme<>+644(SB)/4, $0xbe49c997
DATA vme<>+648(SB)/4, $0xbe49c997
DATA vme<>+652(SB)/4, $0xbe49c997
DATA vme<>+656(SB)/4, $0xbe49c997
DATA vme<>+660(SB)/4, $0xbe49c997
DATA vme<>+664(SB)/4, $0xbe49c997
DATA vme<>+668(SB)/4, $0xbe49c997
// erfB9 = 0.0339998572022141
DATA vme<>+672(SB)/4, $0x3d0b436f
DATA vme<>+676(SB)/4, $0x3d0b436f
DATA vme<>+680(SB)/4, $0x3d0b436f
DATA vme<>+684(SB)/4, $0x3d0b436f
DATA vme<>+688(SB)/4, $0x3d0b436f
DATA vme<>+692(SB)/4, $0x3d0b436f
DATA vme<>+696(SB)/4, $0x3d0b436f
DATA vme<>+700(SB)/4, $0x3d0b436f
GLOBL vme<>(SB), RODATA|NOPTR, $704

#define VE_INVSQRT2 vme<>+0(SB)
#define VE_INVSQRT2PI vme<>+32(SB)
#define VE_ABS vme<>+64(SB)
#define VE_SIGN vme<>+96(SB)
#define VE_FOUR vme<>+128(SB)
#define VE_A0 vme<>+160(SB)
#define VE_A1 vme<>+192(SB)
#define VE_A2 vme<>+224(SB)
#define VE_A3 vme<>+256(SB)
#define VE_A4 vme<>+288(SB)
#define VE_A5 vme<>+320(SB)
#define VE_A6 vme<>+352(SB)
#define VE_B0 vme<>+384(SB)
#define VE_B1 vme<>+416(SB)
#define VE_B2 vme<>+448(SB)
#define VE_B3 vme<>+480(SB)
#define VE_B4 vme<>+512(SB)
#define VE_B5 vme<>+544(SB)
#define VE_B6 vme<>+576(SB)
#define VE_B7 vme<>+608(SB)
#define VE_B8 vme<>+640(SB)
#define VE_B9 vme<>+672(SB)

// GELUERF: Y0 = u on entry; Y0 = GELU(u), Y1 = GELU′(u) on exit; Y2..Y7, Y9, Y11 clobbered.
#define GELUERF() \
	VMULPS       VE_INVSQRT2, Y0, Y2; \
	VANDPS       VE_ABS, Y2, Y3; \
	VMULPS       Y3, Y3, Y4; \
	VXORPS       VE_SIGN, Y4, Y5; \
	EXP(Y5, Y6, Y7, Y9, Y11, Y1); \
	VMOVUPS      VE_A6, Y6; \
	VFMADD213PS  VE_A5, Y4, Y6; \
	VFMADD213PS  VE_A4, Y4, Y6; \
	VFMADD213PS  VE_A3, Y4, Y6; \
	VFMADD213PS  VE_A2, Y4, Y6; \
	VFMADD213PS  VE_A1, Y4, Y6; \
	VFMADD213PS  VE_A0, Y4, Y6; \
	VMULPS       Y2, Y6, Y6; \
	VMOVUPS      VV_ONE, Y7; \
	VDIVPS       Y3, Y7, Y7; \
	VMOVUPS      VE_B9, Y9; \
	VFMADD213PS  VE_B8, Y7, Y9; \
	VFMADD213PS  VE_B7, Y7, Y9; \
	VFMADD213PS  VE_B6, Y7, Y9; \
	VFMADD213PS  VE_B5, Y7, Y9; \
	VFMADD213PS  VE_B4, Y7, Y9; \
	VFMADD213PS  VE_B3, Y7, Y9; \
	VFMADD213PS  VE_B2, Y7, Y9; \
	VFMADD213PS  VE_B1, Y7, Y9; \
	VFMADD213PS  VE_B0, Y7, Y9; \
	VMOVUPS      VV_ONE, Y7; \
	VFNMADD231PS Y9, Y5, Y7; \
	VCMPPS       $0x15, VE_FOUR, Y3, Y9; \
	VBLENDVPS    Y9, VV_ONE, Y7, Y7; \
	VANDPS       VE_SIGN, Y2, Y9; \
	VXORPS       Y9, Y7, Y7; \
	VCMPPS       $0x11, VV_ONE, Y3, Y9; \
	VBLENDVPS    Y9, Y6, Y7, Y7; \
	VADDPS       VV_ONE, Y7, Y7; \
	VMULPS       VV_HALF, Y7, Y7; \
	VMULPS       VE_INVSQRT2PI, Y0, Y1; \
	VFMADD213PS  Y7, Y5, Y1; \
	VMULPS       Y7, Y0, Y0

// func geluErfFwd(y, b, d *float32, n int, gain float32)
TEXT ·geluErfFwd(SB), NOSPLIT, $0-36
	MOVQ         y+0(FP), DI
	MOVQ         b+8(FP), SI
	MOVQ         d+16(FP), R8
	MOVQ         n+24(FP), CX
	VBROADCASTSS gain+32(FP), Y8

efloop:
	CMPQ        CX, $8
	JLT         eftail
	VMOVUPS     (SI), Y1
	VMOVUPS     (DI), Y0
	VFMADD231PS Y1, Y8, Y0
	GELUERF()
	VMOVUPS     Y0, (DI)
	VMOVUPS     Y1, (R8)
	ADDQ        $32, DI
	ADDQ        $32, SI
	ADDQ        $32, R8
	SUBQ        $8, CX
	JMP         efloop

eftail:
	TESTQ       CX, CX
	JE          efdone
	TAILMASK(Y10)
	VMASKMOVPS  (SI), Y10, Y1
	VMASKMOVPS  (DI), Y10, Y0
	VFMADD231PS Y1, Y8, Y0
	GELUERF()
	VMASKMOVPS  Y0, Y10, (DI)
	VMASKMOVPS  Y1, Y10, (R8)

efdone:
	VZEROUPPER
	RET

// EXPNEG512(X, O, N, T, P, K): X = expf(X) lane-wise for X ≤ 0 or NaN (0 below −87), EXP's
// operations but for its overflow branch, which no such X takes; O, N, T, P, K clobbered.
#define EXPNEG512(X, O, N, T, P, K) \
	VMOVAPS          X, O; \
	VMINPS.BCST      VM_EXPHI, X, X; \
	VMAXPS.BCST      VM_EXPLO, X, X; \
	VBROADCASTSS     VM_LOG2E, N; VFMADD213PS.BCST VM_HALF, X, N; \
	VRNDSCALEPS      $1, N, N; \
	VFNMADD231PS.BCST VM_C1, N, X; \
	VFNMADD231PS.BCST VM_C2, N, X; \
	VMULPS           X, X, T; \
	VBROADCASTSS     VM_E0, P; \
	VFMADD213PS.BCST VM_E1, X, P; \
	VFMADD213PS.BCST VM_E2, X, P; \
	VFMADD213PS.BCST VM_E3, X, P; \
	VFMADD213PS.BCST VM_E4, X, P; \
	VFMADD213PS.BCST VM_E5, X, P; \
	VFMADD213PS      X, T, P; \
	VADDPS.BCST      VM_ONE, P, P; \
	VCVTPS2DQ        N, N; VPSLLD $23, N, N; VPADDD N, P, X; \
	VCMPPS.BCST      $0x11, VM_EXPLO, O, K; \
	VPXORD           X, X, K, X

// GELUERF512: Z0 = u on entry; Z0 = GELU(u), Z1 = GELU′(u) on exit; Z2..Z7, Z9, Z11, K2
// clobbered.
#define GELUERF512() \
	VMULPS.BCST      VE_INVSQRT2, Z0, Z2; \
	VPANDD.BCST      VE_ABS, Z2, Z3; \
	VMULPS           Z3, Z3, Z4; \
	VPXORD.BCST      VE_SIGN, Z4, Z5; \
	EXPNEG512(Z5, Z6, Z7, Z9, Z11, K2); \
	VBROADCASTSS     VE_A6, Z6; \
	VFMADD213PS.BCST VE_A5, Z4, Z6; \
	VFMADD213PS.BCST VE_A4, Z4, Z6; \
	VFMADD213PS.BCST VE_A3, Z4, Z6; \
	VFMADD213PS.BCST VE_A2, Z4, Z6; \
	VFMADD213PS.BCST VE_A1, Z4, Z6; \
	VFMADD213PS.BCST VE_A0, Z4, Z6; \
	VMULPS           Z2, Z6, Z6; \
	VBROADCASTSS     VM_ONE, Z7; \
	VDIVPS           Z3, Z7, Z7; \
	VBROADCASTSS     VE_B9, Z9; \
	VFMADD213PS.BCST VE_B8, Z7, Z9; \
	VFMADD213PS.BCST VE_B7, Z7, Z9; \
	VFMADD213PS.BCST VE_B6, Z7, Z9; \
	VFMADD213PS.BCST VE_B5, Z7, Z9; \
	VFMADD213PS.BCST VE_B4, Z7, Z9; \
	VFMADD213PS.BCST VE_B3, Z7, Z9; \
	VFMADD213PS.BCST VE_B2, Z7, Z9; \
	VFMADD213PS.BCST VE_B1, Z7, Z9; \
	VFMADD213PS.BCST VE_B0, Z7, Z9; \
	VBROADCASTSS     VM_ONE, Z7; \
	VFNMADD231PS     Z9, Z5, Z7; \
	VCMPPS.BCST      $0x15, VE_FOUR, Z3, K2; \
	VBROADCASTSS     VM_ONE, K2, Z7; \
	VPANDD.BCST      VE_SIGN, Z2, Z9; \
	VPXORD           Z9, Z7, Z7; \
	VCMPPS.BCST      $0x11, VM_ONE, Z3, K2; \
	VMOVAPS          Z6, K2, Z7; \
	VADDPS.BCST      VM_ONE, Z7, Z7; \
	VMULPS.BCST      VM_HALF, Z7, Z7; \
	VMULPS.BCST      VE_INVSQRT2PI, Z0, Z1; \
	VFMADD213PS      Z7, Z5, Z1; \
	VMULPS           Z7, Z0, Z0

// func geluErfFwd512(y, b, d *float32, n int, gain float32)
TEXT ·geluErfFwd512(SB), NOSPLIT, $0-36
	MOVQ         y+0(FP), DI
	MOVQ         b+8(FP), SI
	MOVQ         d+16(FP), R8
	MOVQ         n+24(FP), CX
	VBROADCASTSS gain+32(FP), Z8

zefloop:
	CMPQ        CX, $16
	JLT         zeftail
	VMOVUPS     (SI), Z1
	VMOVUPS     (DI), Z0
	VFMADD231PS Z1, Z8, Z0
	GELUERF512()
	VMOVUPS     Z0, (DI)
	VMOVUPS     Z1, (R8)
	ADDQ        $64, DI
	ADDQ        $64, SI
	ADDQ        $64, R8
	SUBQ        $16, CX
	JMP         zefloop

zeftail:
	TESTQ       CX, CX
	JE          zefdone
	TAILK(K1)
	VMOVUPS.Z   (SI), K1, Z1
	VMOVUPS.Z   (DI), K1, Z0
	VFMADD231PS Z1, Z8, Z0
	GELUERF512()
	VMOVUPS     Z0, K1, (DI)
	VMOVUPS     Z1, K1, (R8)

zefdone:
	VZEROUPPER
	RET
