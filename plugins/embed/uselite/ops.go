package uselite

import "math"

// fillRows sets each of the rows rows of dst (each len(v) wide) to v.
func fillRows(dst, v []float32, rows int) {
	w := len(v)
	for r := range rows {
		copy(dst[r*w:(r+1)*w], v)
	}
}

// addRows adds v to each of the rows rows of dst (each len(v) wide).
func addRows(dst, v []float32, rows int) {
	w := len(v)
	for r := range rows {
		row := dst[r*w : (r+1)*w]
		for j, b := range v {
			row[j] += b
		}
	}
}

// relu sets the negative entries of x to 0.
func relu(x []float32) {
	for i, v := range x {
		if v < 0 {
			x[i] = 0
		}
	}
}

// layerNorm normalises each width-wide row of src into dst:
// scale·(x − mean)·1/√(var + eps) + bias, in the graph's order of
// operations.
func layerNorm(dst, src []float32, width int, scale, bias []float32, eps float32) {
	n := float32(width)
	for r := 0; r+width <= len(src); r += width {
		x := src[r : r+width]
		y := dst[r : r+width]
		var sum float32
		for _, v := range x {
			sum += v
		}
		mean := sum / n
		var sq float32
		for _, v := range x {
			d := v - mean
			sq += d * d
		}
		rs := float32(1 / math.Sqrt(float64(sq/n+eps)))
		for j, v := range x {
			y[j] = scale[j]*rs*(v-mean) + bias[j]
		}
	}
}

// softmaxRow replaces x with softmax(x).
func softmaxRow(x []float32) {
	mx := float32(math.Inf(-1))
	for _, v := range x {
		mx = max(mx, v)
	}
	var sum float32
	for i, v := range x {
		e := float32(math.Exp(float64(v - mx)))
		x[i] = e
		sum += e
	}
	inv := 1 / sum
	for i := range x {
		x[i] *= inv
	}
}
