package daemon

import (
	"context"
	"math"

	"github.com/ragd/ragd/plugins"
)

// The vector channel always finds *something*: every query has a nearest
// chunk. To tell evidence from chance, ragd measures what similarity
// meaningless queries reach on this index with this embedder, and a query
// counts as grounded by the vector channel only above that (plus a margin).
// Measured with the offline embedder on the example vault: gibberish
// reaches 0.39–0.48 cosine, off-topic questions 0.29–0.41, on-topic ones
// 0.50–0.68 (docs/architecture.md, "Safety floor"). [search] min_similarity
// overrides the calibration.
var calibrationProbes = []string{
	"xqzv blorf", "asdkjh qwpeoi", "zzzz", "lorem ipsum dolor sit amet",
	"qwerty uiop", "mnbvcx lkjhg poiu", "fjdksla", "blah blah blah",
}

const calibrationMargin = 0.02

// calibrate measures the floor when there are vectors and it is unknown or
// the index grew or shrank by a fifth since it was measured.
func (e *embedding) calibrate(ctx context.Context) {
	st := e.d.store.VectorStats()
	e.mu.Lock()
	sig, last := e.sig, e.calibratedAt
	e.mu.Unlock()
	if sig == "" || st.Vectors == 0 || st.Active != sig {
		return
	}
	if last > 0 && math.Abs(float64(st.Vectors-last)) < 0.2*float64(last) {
		return
	}
	vecs, err := e.emb.Embed(ctx, plugins.InputQuery, calibrationProbes)
	if err != nil || len(vecs) != len(calibrationProbes) {
		return
	}
	floor := 0.0
	for _, v := range vecs {
		hs, err := e.d.store.VectorSearch(sig, v, 1, nil)
		if err != nil || len(hs) == 0 {
			return
		}
		floor = max(floor, hs[0].Score)
	}
	e.mu.Lock()
	e.floor, e.calibratedAt = floor+calibrationMargin, st.Vectors
	e.mu.Unlock()
	e.d.log.Info("vector similarity floor calibrated", "floor", floor+calibrationMargin, "vectors", st.Vectors)
}

// similarityFloor is the calibrated floor (0 until measured).
func (e *embedding) similarityFloor() float64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.floor
}
