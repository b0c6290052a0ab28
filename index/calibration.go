package index

import (
	"encoding/json"
	"errors"

	"github.com/dgraph-io/badger/v4"
)

// keyCalibration holds the vector similarity floor last measured on the
// index (query.Engine.Calibrate), with the embedder signature and the
// number of vectors it was measured at, so a restarted daemon knows it
// before its first query.
var keyCalibration = []byte("m/calibration")

type calibrationRecord struct {
	Sig     string  `json:"sig"`
	Floor   float64 `json:"floor"`
	Vectors int     `json:"vectors"`
}

// LoadCalibration returns the floor stored for embedder signature sig.
func (s *Store) LoadCalibration(sig string) (floor float64, vectors int, ok bool) {
	var rec calibrationRecord
	err := s.db.View(func(txn *badger.Txn) error {
		it, err := txn.Get(keyCalibration)
		if err != nil {
			return err
		}
		return it.Value(func(v []byte) error { return json.Unmarshal(v, &rec) })
	})
	if err != nil || rec.Sig != sig {
		if err != nil && !errors.Is(err, badger.ErrKeyNotFound) {
			s.log.Warn("could not read the stored similarity floor", "err", err)
		}
		return 0, 0, false
	}
	return rec.Floor, rec.Vectors, true
}

// SaveCalibration stores the floor measured for signature sig.
func (s *Store) SaveCalibration(sig string, floor float64, vectors int) error {
	b, err := json.Marshal(calibrationRecord{Sig: sig, Floor: floor, Vectors: vectors})
	if err != nil {
		return err
	}
	return s.update(int64(len(b)), func(txn *badger.Txn) error { return txn.Set(keyCalibration, b) })
}
