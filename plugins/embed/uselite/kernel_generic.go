//go:build !amd64 || purego

package uselite

// haveAVX2 is false where there is no assembly kernel.
const haveAVX2 = false

// kernel computes C[0:6, 0:16] += A[0:6, 0:k] · B[0:k, 0:16] in Go.
func kernel(k int, a []float32, lda int, b []float32, c []float32, ldc int) {
	kernelGo(k, a, lda, b, c, ldc)
}
