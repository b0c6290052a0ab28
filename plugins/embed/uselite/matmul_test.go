package uselite

import (
	"math"
	"math/rand/v2"
	"testing"
)

func naiveMatmul(c []float32, ldc int, a []float32, lda int, b []float32, m, k, n int) {
	for i := range m {
		for j := range n {
			var s float64
			for x := range k {
				s += float64(a[i*lda+x]) * float64(b[x*n+j])
			}
			c[i*ldc+j] += float32(s)
		}
	}
}

func randSlice(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = r.Float32()*2 - 1
	}
	return s
}

// withKernel runs f with each micro-kernel this processor has.
func withKernel(t testing.TB, f func(k microKernel)) {
	saved := activeKernel
	defer func() { activeKernel = saved }()
	for _, k := range kernels {
		activeKernel = k
		f(k)
	}
}

func TestMatmulAcc(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	withKernel(t, func(kr microKernel) {
		for _, m := range []int{1, 5, 6, 7, 12, 13, 40} {
			for _, k := range []int{1, 3, 64, 256, 300, 600} {
				for _, n := range []int{16, 32, 48, 96} {
					for _, par := range []int{1, 2} {
						lda, ldc := k+3, n+5 // strides wider than the matrices
						a := randSlice(r, m*lda)
						b := randSlice(r, k*n)
						c := randSlice(r, m*ldc)
						want := append([]float32(nil), c...)
						naiveMatmul(want, ldc, a, lda, b, m, k, n)
						p := packMatrix(b, k, n)
						matmulAcc(c, ldc, a, lda, m, &p, par)
						for i := range m {
							for j := range ldc {
								got, w := c[i*ldc+j], want[i*ldc+j]
								if math.Abs(float64(got-w)) > 1e-4*math.Sqrt(float64(k))+1e-6 {
									t.Fatalf("%s kernel, m=%d k=%d n=%d par=%d: C[%d][%d] = %g, want %g",
										kr.name, m, k, n, par, i, j, got, w)
								}
							}
						}
					}
				}
			}
		}
	})
	t.Logf("kernels: %v", kernelNames())
}

func kernelNames() []string {
	var names []string
	for _, k := range kernels {
		names = append(names, k.name)
	}
	return names
}

func TestKernelChecksBounds(t *testing.T) {
	expectPanic := func(what string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic for a short C", what)
			}
		}()
		f()
	}
	const k = 4
	for _, kr := range kernels {
		a, b := make([]float32, kr.rows*k), make([]float32, 2*kernelCols*k)
		expectPanic(kr.name, func() { kr.run(k, a, k, b, make([]float32, kernelCols), kernelCols) })
		if kr.pair != nil {
			expectPanic(kr.name+" pair", func() {
				kr.pair(k, a, k, b, kernelCols*k, make([]float32, (kr.rows-1)*32+16), 32)
			})
		}
	}
}

func TestPackTransposed(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	n, k, ldb := 20, 7, 9 // pack the transpose of a 20 × 7 block
	b := randSlice(r, n*ldb)
	dst := make([]float32, k*roundUp(n, kernelCols))
	packTransposedInto(dst, b, ldb, k, n)
	for i := range k {
		for j := range roundUp(n, kernelCols) {
			got := dst[(j/kernelCols)*k*kernelCols+i*kernelCols+j%kernelCols]
			want := float32(0)
			if j < n {
				want = b[j*ldb+i]
			}
			if got != want {
				t.Fatalf("(%d,%d) = %g, want %g", i, j, got, want)
			}
		}
	}
}

// BenchmarkMatmul measures each kernel on the feed-forward shape of a
// 256-token chunk (256 × 512 · 512 × 1536), on one goroutine.
func BenchmarkMatmul(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	m, k, n := 256, 512, 1536
	a := randSlice(r, m*k)
	p := packMatrix(randSlice(r, k*n), k, n)
	c := make([]float32, m*n)
	withKernel(b, func(kr microKernel) {
		b.Run(kr.name, func(b *testing.B) {
			for b.Loop() {
				matmulAcc(c, n, a, k, m, &p, 1)
			}
			b.ReportMetric(float64(2*m*k*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	})
}
