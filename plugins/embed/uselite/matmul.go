package uselite

import (
	"os"
	"sync"
)

// Micro-kernels compute a tile of rows × kernelCols of C; panels of the
// packed B matrices are kernelCols wide whatever the kernel.
const (
	kernelCols    = 16
	maxKernelRows = 12
	// blockK is the depth of one pass over a B panel: a block of one or
	// two panels, blockK × 16 or 32 floats (16 or 32 KiB), stays in L1
	// while the row tiles of A stream past it.
	blockK = 256
)

// microKernel computes C[0:rows, 0:16] += A[0:rows, 0:k] · B[0:k, 0:16]
// with run, A and C row-major (strides lda and ldc, in floats) and B a
// packed panel: 16 consecutive floats per step of k. A kernel with a pair
// function also does two panels at once, C[0:rows, 0:32], the second
// panel bstride floats after the first.
type microKernel struct {
	name string
	rows int
	run  func(k int, a []float32, lda int, b, c []float32, ldc int)
	pair func(k int, a []float32, lda int, b []float32, bstride int, c []float32, ldc int)
}

var (
	// kernels lists the micro-kernels this processor can run, fastest
	// first: assembly ones (see archKernels), then the portable one.
	kernels = append(archKernels(), microKernel{name: "go", rows: 6, run: kernelGo})
	// activeKernel is the one matmulAcc uses: the fastest, unless
	// $RAGD_USELITE_KERNEL names another (for benchmarks and debugging).
	activeKernel = pickKernel(os.Getenv("RAGD_USELITE_KERNEL"))
)

// pickKernel returns the kernel called name, or the fastest when there
// is none of that name.
func pickKernel(name string) microKernel {
	for _, k := range kernels {
		if k.name == name {
			return k
		}
	}
	return kernels[0]
}

// checkTile panics unless a, b and c hold the tile a kernel will touch
// (cols: 16 or 32): the assembly does not check bounds itself.
func checkTile(rows, cols, k int, a []float32, lda int, b []float32, bstride int, c []float32, ldc int) {
	_ = a[(rows-1)*lda+k-1]
	_ = b[(cols/kernelCols-1)*bstride+kernelCols*k-1]
	_ = c[(rows-1)*ldc+cols-1]
}

// packed is a K × N matrix (N a multiple of 16) stored for the kernel:
// panel p holds columns 16p..16p+15, row after row, so that the kernel
// reads 16 consecutive floats per step of k.
type packed struct {
	k, n int
	data []float32
}

// packMatrix packs the row-major K × N matrix b.
func packMatrix(b []float32, k, n int) packed {
	if n%kernelCols != 0 || len(b) != k*n {
		panic("uselite: packMatrix: bad shape")
	}
	p := packed{k: k, n: n, data: make([]float32, k*n)}
	packInto(p.data, b, n, k, n)
	return p
}

// packInto packs the k × n block of the row-major matrix b (stride ldb)
// into dst, padding the last panel with zeros when n is not a multiple of
// 16. dst must hold k × roundUp(n, 16) floats.
func packInto(dst, b []float32, ldb, k, n int) {
	panels := (n + kernelCols - 1) / kernelCols
	for p := range panels {
		out := dst[p*k*kernelCols : (p+1)*k*kernelCols]
		j0 := p * kernelCols
		w := min(kernelCols, n-j0)
		for i := range k {
			row := out[i*kernelCols : (i+1)*kernelCols]
			copy(row, b[i*ldb+j0:i*ldb+j0+w])
			clear(row[w:])
		}
	}
}

// packTransposedInto packs the transpose of the n × k block of the
// row-major matrix b (stride ldb), that is the k × n matrix bᵀ, into dst,
// padding as packInto does.
func packTransposedInto(dst, b []float32, ldb, k, n int) {
	panels := (n + kernelCols - 1) / kernelCols
	for p := range panels {
		out := dst[p*k*kernelCols : (p+1)*k*kernelCols]
		j0 := p * kernelCols
		w := min(kernelCols, n-j0)
		clear(out)
		for j := range w {
			src := b[(j0+j)*ldb : (j0+j)*ldb+k]
			for i, v := range src {
				out[i*kernelCols+j] = v
			}
		}
	}
}

// matmulAcc computes C += A · B for the m × K matrix A (stride lda) and
// the m × N matrix C (stride ldc). With par > 1 the column panels are
// split among par goroutines.
func matmulAcc(c []float32, ldc int, a []float32, lda int, m int, b *packed, par int) {
	panels := b.n / kernelCols
	if m == 0 || panels == 0 {
		return
	}
	pairs := (panels + 1) / 2 // split on even panels, for the pair kernels
	par = min(par, pairs)
	if par <= 1 {
		matmulPanels(c, ldc, a, lda, m, b, 0, panels)
		return
	}
	var wg sync.WaitGroup
	for w := range par {
		p0, p1 := 2*(w*pairs/par), min(panels, 2*((w+1)*pairs/par))
		wg.Add(1)
		go func() {
			defer wg.Done()
			matmulPanels(c, ldc, a, lda, m, b, p0, p1)
		}()
	}
	wg.Wait()
}

// matmulPanels does matmulAcc for the column panels p0..p1-1, blockK
// steps of k at a time, two panels at a time when the kernel can.
func matmulPanels(c []float32, ldc int, a []float32, lda int, m int, b *packed, p0, p1 int) {
	kr := activeKernel
	rows := kr.rows
	full := m / rows * rows
	tail := m - full
	// The last rows, fewer than the kernel's, go through zero-padded
	// copies of A and C.
	var ta [maxKernelRows * blockK]float32
	var tc [maxKernelRows * 2 * kernelCols]float32
	panelSize := b.k * kernelCols
	for k0 := 0; k0 < b.k; k0 += blockK {
		kc := min(blockK, b.k-k0)
		if tail > 0 {
			for r := range rows {
				row := ta[r*kc : (r+1)*kc]
				if r < tail {
					copy(row, a[(full+r)*lda+k0:])
				} else {
					clear(row)
				}
			}
		}
		for p := p0; p < p1; {
			bp := b.data[p*panelSize+k0*kernelCols:]
			j0 := p * kernelCols
			width := kernelCols
			if kr.pair != nil && p+1 < p1 {
				width = 2 * kernelCols
				for i := 0; i < full; i += rows {
					kr.pair(kc, a[i*lda+k0:], lda, bp, panelSize, c[i*ldc+j0:], ldc)
				}
			} else {
				for i := 0; i < full; i += rows {
					kr.run(kc, a[i*lda+k0:], lda, bp, c[i*ldc+j0:], ldc)
				}
			}
			if tail > 0 {
				for r := range tail {
					copy(tc[r*width:(r+1)*width], c[(full+r)*ldc+j0:])
				}
				if width > kernelCols {
					kr.pair(kc, ta[:], kc, bp, panelSize, tc[:], width)
				} else {
					kr.run(kc, ta[:], kc, bp, tc[:], width)
				}
				for r := range tail {
					copy(c[(full+r)*ldc+j0:(full+r)*ldc+j0+width], tc[r*width:])
				}
			}
			p += width / kernelCols
		}
	}
}

// kernelGo is the portable micro-kernel, 6 rows (see microKernel). It
// works on 2 × 4 blocks of C so that the accumulators stay in registers.
func kernelGo(k int, a []float32, lda int, b []float32, c []float32, ldc int) {
	b = b[:k*kernelCols]
	for r := 0; r < 6; r += 2 {
		a0 := a[r*lda : r*lda+k]
		a1 := a[(r+1)*lda : (r+1)*lda+k]
		c0 := c[r*ldc : r*ldc+kernelCols]
		c1 := c[(r+1)*ldc : (r+1)*ldc+kernelCols]
		for j := 0; j < kernelCols; j += 4 {
			s00, s01, s02, s03 := c0[j], c0[j+1], c0[j+2], c0[j+3]
			s10, s11, s12, s13 := c1[j], c1[j+1], c1[j+2], c1[j+3]
			for i := range k {
				bb := b[i*kernelCols+j : i*kernelCols+j+4 : i*kernelCols+j+4]
				x, y := a0[i], a1[i]
				s00 += x * bb[0]
				s01 += x * bb[1]
				s02 += x * bb[2]
				s03 += x * bb[3]
				s10 += y * bb[0]
				s11 += y * bb[1]
				s12 += y * bb[2]
				s13 += y * bb[3]
			}
			c0[j], c0[j+1], c0[j+2], c0[j+3] = s00, s01, s02, s03
			c1[j], c1[j+1], c1[j+2], c1[j+3] = s10, s11, s12, s13
		}
	}
}
