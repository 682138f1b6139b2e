//go:build amd64 && !purego

#include "textflag.h"

// func copyRows16(dst, src *float32, ld, rows int)
//
// Copies 16 floats from each of rows rows of src, ld elements apart, to dst, back to back
// (SSE2, which every amd64 CPU has).
TEXT ·copyRows16(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ ld+16(FP), R8
	SHLQ $2, R8
	MOVQ rows+24(FP), CX
	TESTQ CX, CX
	JZ done16
loop16:
	MOVUPS (SI), X0
	MOVUPS 16(SI), X1
	MOVUPS 32(SI), X2
	MOVUPS 48(SI), X3
	MOVUPS X0, (DI)
	MOVUPS X1, 16(DI)
	MOVUPS X2, 32(DI)
	MOVUPS X3, 48(DI)
	ADDQ R8, SI
	ADDQ $64, DI
	DECQ CX
	JNZ loop16
done16:
	RET

// func copyRows6(dst, src *float32, ld, rows int)
//
// copyRows16 for 6 floats a row.
TEXT ·copyRows6(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ ld+16(FP), R8
	SHLQ $2, R8
	MOVQ rows+24(FP), CX
	TESTQ CX, CX
	JZ done6
loop6:
	MOVUPS (SI), X0
	MOVQ 16(SI), AX
	MOVUPS X0, (DI)
	MOVQ AX, 16(DI)
	ADDQ R8, SI
	ADDQ $24, DI
	DECQ CX
	JNZ loop6
done6:
	RET
