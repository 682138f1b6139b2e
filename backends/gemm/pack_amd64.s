//go:build amd64 && !purego

#include "textflag.h"

// func copySlivers6(dst, src *float32, ld, rows, slivers int)
//
// Packs slivers consecutive groups of 6 columns of a rows×(6·slivers) block of src (row
// stride ld elements) into A slivers: group s, row l goes to dst[s·6·rows + 6l:], 6 floats.
// Each row of src is read once, left to right (SSE2).
TEXT ·copySlivers6(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ ld+16(FP), R8
	SHLQ $2, R8
	MOVQ rows+24(FP), CX
	MOVQ slivers+32(FP), R9
	MOVQ CX, R10
	IMULQ $24, R10
	TESTQ CX, CX
	JZ doneS
	TESTQ R9, R9
	JZ doneS
rowS:
	MOVQ SI, R11
	MOVQ DI, R12
	MOVQ R9, R13
sliverS:
	MOVUPS (R11), X0
	MOVQ 16(R11), AX
	MOVUPS X0, (R12)
	MOVQ AX, 16(R12)
	ADDQ $24, R11
	ADDQ R10, R12
	DECQ R13
	JNZ sliverS
	ADDQ R8, SI
	ADDQ $24, DI
	DECQ CX
	JNZ rowS
doneS:
	RET

// func copySlivers16(dst, src *float32, ld, rows, slivers, dstride int)
//
// Packs slivers consecutive groups of 16 columns of a rows×(16·slivers) block of src (row
// stride ld elements) into B slivers dstride elements apart: group s, row l goes to
// dst[s·dstride + 16l:], 16 floats. Each row of src is read once, left to right (SSE2).
TEXT ·copySlivers16(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ ld+16(FP), R8
	SHLQ $2, R8
	MOVQ rows+24(FP), CX
	MOVQ slivers+32(FP), R9
	MOVQ dstride+40(FP), R10
	SHLQ $2, R10
	TESTQ CX, CX
	JZ doneB
	TESTQ R9, R9
	JZ doneB
rowB:
	MOVQ SI, R11
	MOVQ DI, R12
	MOVQ R9, R13
sliverB:
	MOVUPS (R11), X0
	MOVUPS 16(R11), X1
	MOVUPS 32(R11), X2
	MOVUPS 48(R11), X3
	MOVUPS X0, (R12)
	MOVUPS X1, 16(R12)
	MOVUPS X2, 32(R12)
	MOVUPS X3, 48(R12)
	ADDQ $64, R11
	ADDQ R10, R12
	DECQ R13
	JNZ sliverB
	ADDQ R8, SI
	ADDQ $64, DI
	DECQ CX
	JNZ rowB
doneB:
	RET
