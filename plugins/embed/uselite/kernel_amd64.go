//go:build !purego

package uselite

import "golang.org/x/sys/cpu"

// kernelAVX2 is the AVX2+FMA micro-kernel in kernel_amd64.s.
//
//go:noescape
func kernelAVX2(k int, a *float32, lda int, b *float32, c *float32, ldc int)

// haveAVX2 says whether kernelAVX2 may run on this processor.
var haveAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// kernel computes C[0:6, 0:16] += A[0:6, 0:k] · B[0:k, 0:16] (see
// kernelGo for the layout). It checks the bounds once, then runs the
// assembly when the processor has AVX2 and FMA.
func kernel(k int, a []float32, lda int, b []float32, c []float32, ldc int) {
	if !haveAVX2 || k == 0 {
		kernelGo(k, a, lda, b, c, ldc)
		return
	}
	_ = a[(kernelRows-1)*lda+k-1]
	_ = b[kernelCols*k-1]
	_ = c[(kernelRows-1)*ldc+kernelCols-1]
	kernelAVX2(k, &a[0], lda, &b[0], &c[0], ldc)
}
