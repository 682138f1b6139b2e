#include "textflag.h"

// Small float32 matrix products with AVX2 and FMA: a block of 4 rows (or 1 row) of C by up
// to 16 columns, C = alpha·A·B, A element (r, p) at a[r·ars + p·aps], B row p at b[p·ldb].
// Columns beyond nc are neither read from B nor written to C (masked loads and stores).

// 16 all-ones lanes then 16 zero lanes: the mask for nc columns starts at lane 16−nc.
DATA smmMask<>+0(SB)/8, $0xffffffffffffffff
DATA smmMask<>+8(SB)/8, $0xffffffffffffffff
DATA smmMask<>+16(SB)/8, $0xffffffffffffffff
DATA smmMask<>+24(SB)/8, $0xffffffffffffffff
DATA smmMask<>+32(SB)/8, $0xffffffffffffffff
DATA smmMask<>+40(SB)/8, $0xffffffffffffffff
DATA smmMask<>+48(SB)/8, $0xffffffffffffffff
DATA smmMask<>+56(SB)/8, $0xffffffffffffffff
DATA smmMask<>+64(SB)/8, $0
DATA smmMask<>+72(SB)/8, $0
DATA smmMask<>+80(SB)/8, $0
DATA smmMask<>+88(SB)/8, $0
DATA smmMask<>+96(SB)/8, $0
DATA smmMask<>+104(SB)/8, $0
DATA smmMask<>+112(SB)/8, $0
DATA smmMask<>+120(SB)/8, $0
GLOBL smmMask<>(SB), RODATA|NOPTR, $128

// func smm4x16(k int, a *float32, ars, aps int, b *float32, ldb int, c *float32, ldc int, nc int, alpha float32)
TEXT ·smm4x16(SB), NOSPLIT, $0-76
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ ars+16(FP), R8
	SHLQ $2, R8
	MOVQ aps+24(FP), R13
	SHLQ $2, R13
	MOVQ b+32(FP), DI
	MOVQ ldb+40(FP), R12
	SHLQ $2, R12
	MOVQ nc+64(FP), AX
	LEAQ (SI)(R8*1), R9
	LEAQ (R9)(R8*1), R10
	LEAQ (R10)(R8*1), R11
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	XORQ DX, DX
	CMPQ AX, $16
	JNE  masked4
	TESTQ CX, CX
	JE   done4

full4:
	VMOVUPS      (DI), Y8
	VMOVUPS      32(DI), Y9
	VBROADCASTSS (SI)(DX*1), Y10
	VFMADD231PS  Y8, Y10, Y0
	VFMADD231PS  Y9, Y10, Y1
	VBROADCASTSS (R9)(DX*1), Y11
	VFMADD231PS  Y8, Y11, Y2
	VFMADD231PS  Y9, Y11, Y3
	VBROADCASTSS (R10)(DX*1), Y12
	VFMADD231PS  Y8, Y12, Y4
	VFMADD231PS  Y9, Y12, Y5
	VBROADCASTSS (R11)(DX*1), Y13
	VFMADD231PS  Y8, Y13, Y6
	VFMADD231PS  Y9, Y13, Y7
	ADDQ         R12, DI
	ADDQ         R13, DX
	DECQ         CX
	JNE          full4
	JMP          done4

masked4:
	LEAQ    smmMask<>(SB), BX
	MOVQ    $16, R14
	SUBQ    AX, R14
	VMOVDQU (BX)(R14*4), Y14
	VMOVDQU 32(BX)(R14*4), Y15
	TESTQ   CX, CX
	JE      done4

loop4m:
	VMASKMOVPS   (DI), Y14, Y8
	VMASKMOVPS   32(DI), Y15, Y9
	VBROADCASTSS (SI)(DX*1), Y10
	VFMADD231PS  Y8, Y10, Y0
	VFMADD231PS  Y9, Y10, Y1
	VBROADCASTSS (R9)(DX*1), Y11
	VFMADD231PS  Y8, Y11, Y2
	VFMADD231PS  Y9, Y11, Y3
	VBROADCASTSS (R10)(DX*1), Y12
	VFMADD231PS  Y8, Y12, Y4
	VFMADD231PS  Y9, Y12, Y5
	VBROADCASTSS (R11)(DX*1), Y13
	VFMADD231PS  Y8, Y13, Y6
	VFMADD231PS  Y9, Y13, Y7
	ADDQ         R12, DI
	ADDQ         R13, DX
	DECQ         CX
	JNE          loop4m

done4:
	VBROADCASTSS alpha+72(FP), Y10
	VMULPS       Y10, Y0, Y0
	VMULPS       Y10, Y1, Y1
	VMULPS       Y10, Y2, Y2
	VMULPS       Y10, Y3, Y3
	VMULPS       Y10, Y4, Y4
	VMULPS       Y10, Y5, Y5
	VMULPS       Y10, Y6, Y6
	VMULPS       Y10, Y7, Y7
	MOVQ         c+48(FP), DI
	MOVQ         ldc+56(FP), R12
	SHLQ         $2, R12
	CMPQ         AX, $16
	JNE          store4m
	VMOVUPS      Y0, (DI)
	VMOVUPS      Y1, 32(DI)
	ADDQ         R12, DI
	VMOVUPS      Y2, (DI)
	VMOVUPS      Y3, 32(DI)
	ADDQ         R12, DI
	VMOVUPS      Y4, (DI)
	VMOVUPS      Y5, 32(DI)
	ADDQ         R12, DI
	VMOVUPS      Y6, (DI)
	VMOVUPS      Y7, 32(DI)
	VZEROUPPER
	RET

store4m:
	VMASKMOVPS Y0, Y14, (DI)
	VMASKMOVPS Y1, Y15, 32(DI)
	ADDQ       R12, DI
	VMASKMOVPS Y2, Y14, (DI)
	VMASKMOVPS Y3, Y15, 32(DI)
	ADDQ       R12, DI
	VMASKMOVPS Y4, Y14, (DI)
	VMASKMOVPS Y5, Y15, 32(DI)
	ADDQ       R12, DI
	VMASKMOVPS Y6, Y14, (DI)
	VMASKMOVPS Y7, Y15, 32(DI)
	VZEROUPPER
	RET

// func smm1x16(k int, a *float32, aps int, b *float32, ldb int, c *float32, nc int, alpha float32)
TEXT ·smm1x16(SB), NOSPLIT, $0-60
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ aps+16(FP), R13
	SHLQ $2, R13
	MOVQ b+24(FP), DI
	MOVQ ldb+32(FP), R12
	SHLQ $2, R12
	MOVQ nc+48(FP), AX
	LEAQ smmMask<>(SB), BX
	MOVQ $16, R14
	SUBQ AX, R14
	VMOVDQU (BX)(R14*4), Y14
	VMOVDQU 32(BX)(R14*4), Y15
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	XORQ DX, DX
	TESTQ CX, CX
	JE   done1
	// Two accumulator pairs (even and odd p) halve the FMA dependency chain.
	CMPQ CX, $2
	JLT  tail1

loop1:
	VMASKMOVPS   (DI), Y14, Y8
	VMASKMOVPS   32(DI), Y15, Y9
	VBROADCASTSS (SI)(DX*1), Y10
	VFMADD231PS  Y8, Y10, Y0
	VFMADD231PS  Y9, Y10, Y1
	ADDQ         R12, DI
	ADDQ         R13, DX
	VMASKMOVPS   (DI), Y14, Y8
	VMASKMOVPS   32(DI), Y15, Y9
	VBROADCASTSS (SI)(DX*1), Y10
	VFMADD231PS  Y8, Y10, Y2
	VFMADD231PS  Y9, Y10, Y3
	ADDQ         R12, DI
	ADDQ         R13, DX
	SUBQ         $2, CX
	CMPQ         CX, $2
	JGE          loop1
	TESTQ        CX, CX
	JE           done1

tail1:
	VMASKMOVPS   (DI), Y14, Y8
	VMASKMOVPS   32(DI), Y15, Y9
	VBROADCASTSS (SI)(DX*1), Y10
	VFMADD231PS  Y8, Y10, Y0
	VFMADD231PS  Y9, Y10, Y1

done1:
	VADDPS       Y2, Y0, Y0
	VADDPS       Y3, Y1, Y1
	VBROADCASTSS alpha+56(FP), Y10
	VMULPS       Y10, Y0, Y0
	VMULPS       Y10, Y1, Y1
	MOVQ         c+40(FP), DI
	VMASKMOVPS   Y0, Y14, (DI)
	VMASKMOVPS   Y1, Y15, 32(DI)
	VZEROUPPER
	RET

// func transpose8x8(dst *float32, ldd int, src *float32, lds int)
//
// Writes the 8×8 block at src (rows lds elements apart) transposed to dst (rows ldd apart).
TEXT ·transpose8x8(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ ldd+8(FP), R8
	SHLQ $2, R8
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), R9
	SHLQ $2, R9
	VMOVUPS (SI), Y0
	ADDQ    R9, SI
	VMOVUPS (SI), Y1
	ADDQ    R9, SI
	VMOVUPS (SI), Y2
	ADDQ    R9, SI
	VMOVUPS (SI), Y3
	ADDQ    R9, SI
	VMOVUPS (SI), Y4
	ADDQ    R9, SI
	VMOVUPS (SI), Y5
	ADDQ    R9, SI
	VMOVUPS (SI), Y6
	ADDQ    R9, SI
	VMOVUPS (SI), Y7
	VUNPCKLPS Y1, Y0, Y8
	VUNPCKHPS Y1, Y0, Y9
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VUNPCKLPS Y7, Y6, Y14
	VUNPCKHPS Y7, Y6, Y15
	VSHUFPS $0x44, Y10, Y8, Y0
	VSHUFPS $0xEE, Y10, Y8, Y1
	VSHUFPS $0x44, Y11, Y9, Y2
	VSHUFPS $0xEE, Y11, Y9, Y3
	VSHUFPS $0x44, Y14, Y12, Y4
	VSHUFPS $0xEE, Y14, Y12, Y5
	VSHUFPS $0x44, Y15, Y13, Y6
	VSHUFPS $0xEE, Y15, Y13, Y7
	VPERM2F128 $0x20, Y4, Y0, Y8
	VPERM2F128 $0x20, Y5, Y1, Y9
	VPERM2F128 $0x20, Y6, Y2, Y10
	VPERM2F128 $0x20, Y7, Y3, Y11
	VPERM2F128 $0x31, Y4, Y0, Y12
	VPERM2F128 $0x31, Y5, Y1, Y13
	VPERM2F128 $0x31, Y6, Y2, Y14
	VPERM2F128 $0x31, Y7, Y3, Y15
	VMOVUPS Y8, (DI)
	ADDQ    R8, DI
	VMOVUPS Y9, (DI)
	ADDQ    R8, DI
	VMOVUPS Y10, (DI)
	ADDQ    R8, DI
	VMOVUPS Y11, (DI)
	ADDQ    R8, DI
	VMOVUPS Y12, (DI)
	ADDQ    R8, DI
	VMOVUPS Y13, (DI)
	ADDQ    R8, DI
	VMOVUPS Y14, (DI)
	ADDQ    R8, DI
	VMOVUPS Y15, (DI)
	VZEROUPPER
	RET
