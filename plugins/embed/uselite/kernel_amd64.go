//go:build !purego

package uselite

import "golang.org/x/sys/cpu"

// The assembly micro-kernels in kernel_amd64.s.

//go:noescape
func kernelAVX2(k int, a *float32, lda int, b *float32, c *float32, ldc int)

//go:noescape
func kernelAVX512(k int, a *float32, lda int, b *float32, c *float32, ldc int)

//go:noescape
func kernelAVX512Pair(k int, a *float32, lda int, b *float32, bstride int, c *float32, ldc int)

// archKernels lists the assembly kernels this processor can run, fastest
// first. x/sys/cpu also checks that the OS saves the YMM/ZMM registers.
func archKernels() []microKernel {
	var ks []microKernel
	if cpu.X86.HasAVX512F {
		ks = append(ks, microKernel{name: "avx512", rows: 12, run: runAVX512, pair: runAVX512Pair})
	}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		ks = append(ks, microKernel{name: "avx2", rows: 6, run: runAVX2})
	}
	return ks
}

func runAVX2(k int, a []float32, lda int, b, c []float32, ldc int) {
	if k == 0 {
		return
	}
	checkTile(6, kernelCols, k, a, lda, b, 0, c, ldc)
	kernelAVX2(k, &a[0], lda, &b[0], &c[0], ldc)
}

func runAVX512(k int, a []float32, lda int, b, c []float32, ldc int) {
	if k == 0 {
		return
	}
	checkTile(12, kernelCols, k, a, lda, b, 0, c, ldc)
	kernelAVX512(k, &a[0], lda, &b[0], &c[0], ldc)
}

func runAVX512Pair(k int, a []float32, lda int, b []float32, bstride int, c []float32, ldc int) {
	if k == 0 {
		return
	}
	checkTile(12, 2*kernelCols, k, a, lda, b, bstride, c, ldc)
	kernelAVX512Pair(k, &a[0], lda, &b[0], bstride, &c[0], ldc)
}
