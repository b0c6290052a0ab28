package query

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/ragd/ragd/index"
)

// The vector channel always finds *something*: every query has a nearest
// chunk. To tell evidence from chance, the engine measures what similarity
// meaningless queries reach on this index with this embedder, and a query
// counts as grounded by the vector channel only above that (plus a margin).
// Measured with the offline embedder on the example vault: gibberish
// reaches 0.39–0.48 cosine, off-topic questions 0.29–0.41, on-topic ones
// 0.50–0.68 (docs/architecture.md, "Safety floor"). Options.MinSimilarity
// overrides the calibration.
var calibrationProbes = []string{
	"xqzv blorf", "asdkjh qwpeoi", "zzzz", "lorem ipsum dolor sit amet",
	"qwerty uiop", "mnbvcx lkjhg poiu", "fjdksla", "blah blah blah",
}

const calibrationMargin = 0.02

// CalibrationProbes are the meaningless queries the floor is measured with.
func CalibrationProbes() []string { return slices.Clone(calibrationProbes) }

// VectorSpace is what calibration reads of the vector side: the active
// space's signature and size.
type VectorSpace interface {
	VectorStats() index.VectorStats
}

// CalibrationStore keeps a measured floor across restarts, so the vector
// channel can ground answers from the first query after a restart (until
// a floor is known it grounds nothing on its own).
type CalibrationStore interface {
	LoadCalibration(sig string) (floor float64, vectors int, ok bool)
	SaveCalibration(sig string, floor float64, vectors int) error
}

// calibration is the measured floor, shared by the copies of an Engine.
type calibration struct {
	mu    sync.Mutex
	floor float64 // 0 until measured
	at    int     // vectors in the space when it was measured
	sig   string  // the embedder signature it was measured for
}

// recalibrateShare is how much the space must grow or shrink for the floor
// to be measured again. Measuring embeds a handful of probes, little
// beside embedding a hundredth of the space, and the floor moves with the
// space: on Cranfield it was 0.378 on 1,267 of the 1,875 chunk texts, 0.459
// on all of them.
const recalibrateShare = 0.01

// Calibrate measures the similarity floor when the active space holds
// vectors of the engine's embedder and the floor is unknown, or the space
// grew or shrank by a hundredth since it was measured (the embedding
// worker calls it when a backlog is done, so after a first pass the floor
// is the whole space's, whatever moments the pass measured it at). It
// reports the floor and whether it measured it now.
func (e *Engine) Calibrate(ctx context.Context, vs VectorSpace) (floor float64, measured bool, err error) {
	if e.embedder == nil {
		return 0, false, nil
	}
	st := vs.VectorStats()
	sig := e.embedder.Signature()
	e.RestoreCalibration(vs)
	e.cal.mu.Lock()
	floor, last := e.cal.floor, e.cal.at
	e.cal.mu.Unlock()
	if sig == "" || st.Vectors == 0 || st.Active != sig {
		return floor, false, nil
	}
	if last > 0 && math.Abs(float64(st.Vectors-last)) < max(recalibrateShare*float64(last), 1) {
		return floor, false, nil
	}
	best := 0.0
	for _, p := range calibrationProbes {
		v, err := e.embedder.EmbedQuery(ctx, p)
		if err != nil {
			return floor, false, fmt.Errorf("calibrate: embed probe: %w", err)
		}
		hs, err := e.ix.VectorSearchExact(sig, v, 1, nil)
		if err != nil {
			return floor, false, fmt.Errorf("calibrate: %w", err)
		}
		if len(hs) == 0 {
			return floor, false, nil
		}
		best = max(best, hs[0].Score)
	}
	floor = best + calibrationMargin
	e.cal.mu.Lock()
	e.cal.floor, e.cal.at, e.cal.sig = floor, st.Vectors, sig
	e.cal.mu.Unlock()
	if cs, ok := vs.(CalibrationStore); ok {
		if err := cs.SaveCalibration(sig, floor, st.Vectors); err != nil {
			return floor, true, fmt.Errorf("calibrate: save: %w", err)
		}
	}
	return floor, true, nil
}

// RestoreCalibration takes the floor measured before a restart for the
// engine's embedder, when vs kept one and none is known yet.
func (e *Engine) RestoreCalibration(vs VectorSpace) {
	cs, ok := vs.(CalibrationStore)
	if !ok || e.embedder == nil {
		return
	}
	sig := e.embedder.Signature()
	e.cal.mu.Lock()
	known := e.cal.floor > 0 && e.cal.sig == sig
	e.cal.mu.Unlock()
	if known || sig == "" {
		return
	}
	if floor, n, ok := cs.LoadCalibration(sig); ok && floor > 0 {
		e.cal.mu.Lock()
		e.cal.floor, e.cal.at, e.cal.sig = floor, n, sig
		e.cal.mu.Unlock()
	}
}

// SimilarityFloor is the similarity a query's best vector hit must reach
// to count as evidence: Options.MinSimilarity when set, else the floor
// Calibrate measured (0 until then).
func (e *Engine) SimilarityFloor() float64 {
	if e.opt.MinSimilarity != 0 {
		return e.opt.MinSimilarity
	}
	e.cal.mu.Lock()
	defer e.cal.mu.Unlock()
	if e.embedder != nil && e.cal.sig != "" && e.cal.sig != e.embedder.Signature() {
		return 0 // measured for another embedder
	}
	return e.cal.floor
}
