//go:build !purego

#include "textflag.h"

// func kernelAVX2(k int, a *float32, lda int, b *float32, c *float32, ldc int)
//
// C[0:6, 0:16] += A[0:6, 0:k] · B[0:k, 0:16], where A and C are row-major
// with strides lda and ldc (in floats) and B is a packed panel: 16
// consecutive floats per k. Twelve YMM accumulators hold the C tile.
TEXT ·kernelAVX2(SB), NOSPLIT, $0-48
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ lda+16(FP), R8
	MOVQ b+24(FP), DI
	MOVQ c+32(FP), DX
	MOVQ ldc+40(FP), R9
	SHLQ $2, R8            // lda in bytes
	SHLQ $2, R9            // ldc in bytes
	LEAQ (R8)(R8*2), R10   // 3*lda
	LEAQ (SI)(R10*1), R11  // &A[3][0]
	LEAQ (R9)(R9*2), R12   // 3*ldc
	LEAQ (DX)(R12*1), R13  // &C[3][0]

	VMOVUPS (DX), Y0
	VMOVUPS 32(DX), Y1
	VMOVUPS (DX)(R9*1), Y2
	VMOVUPS 32(DX)(R9*1), Y3
	VMOVUPS (DX)(R9*2), Y4
	VMOVUPS 32(DX)(R9*2), Y5
	VMOVUPS (R13), Y6
	VMOVUPS 32(R13), Y7
	VMOVUPS (R13)(R9*1), Y8
	VMOVUPS 32(R13)(R9*1), Y9
	VMOVUPS (R13)(R9*2), Y10
	VMOVUPS 32(R13)(R9*2), Y11

	TESTQ CX, CX
	JEQ   store

loop:
	VMOVUPS      (DI), Y12
	VMOVUPS      32(DI), Y13
	VBROADCASTSS (SI), Y14
	VBROADCASTSS (SI)(R8*1), Y15
	VFMADD231PS  Y12, Y14, Y0
	VFMADD231PS  Y13, Y14, Y1
	VFMADD231PS  Y12, Y15, Y2
	VFMADD231PS  Y13, Y15, Y3
	VBROADCASTSS (SI)(R8*2), Y14
	VBROADCASTSS (R11), Y15
	VFMADD231PS  Y12, Y14, Y4
	VFMADD231PS  Y13, Y14, Y5
	VFMADD231PS  Y12, Y15, Y6
	VFMADD231PS  Y13, Y15, Y7
	VBROADCASTSS (R11)(R8*1), Y14
	VBROADCASTSS (R11)(R8*2), Y15
	VFMADD231PS  Y12, Y14, Y8
	VFMADD231PS  Y13, Y14, Y9
	VFMADD231PS  Y12, Y15, Y10
	VFMADD231PS  Y13, Y15, Y11
	ADDQ         $4, SI
	ADDQ         $4, R11
	ADDQ         $64, DI
	DECQ         CX
	JNE          loop

store:
	VMOVUPS Y0, (DX)
	VMOVUPS Y1, 32(DX)
	VMOVUPS Y2, (DX)(R9*1)
	VMOVUPS Y3, 32(DX)(R9*1)
	VMOVUPS Y4, (DX)(R9*2)
	VMOVUPS Y5, 32(DX)(R9*2)
	VMOVUPS Y6, (R13)
	VMOVUPS Y7, 32(R13)
	VMOVUPS Y8, (R13)(R9*1)
	VMOVUPS Y9, 32(R13)(R9*1)
	VMOVUPS Y10, (R13)(R9*2)
	VMOVUPS Y11, 32(R13)(R9*2)
	VZEROUPPER
	RET
