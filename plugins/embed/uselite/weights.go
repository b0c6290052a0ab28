package uselite

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
)

// tensor is one weight of the TF.js graph model.
type tensor struct {
	shape []int
	f32   []float32 // dtype float32
	i32   []int32   // dtype int32
}

func (t tensor) size() int {
	n := 1
	for _, d := range t.shape {
		n *= d
	}
	return n
}

// modelJSON is the part of a TF.js model.json this package reads.
type modelJSON struct {
	Format          string `json:"format"`
	WeightsManifest []struct {
		Paths   []string `json:"paths"`
		Weights []struct {
			Name         string          `json:"name"`
			Shape        []int           `json:"shape"`
			Dtype        string          `json:"dtype"`
			Quantization json.RawMessage `json:"quantization"`
		} `json:"weights"`
	} `json:"weightsManifest"`
}

// readWeights loads every weight listed in dir/model.json from its
// shards, which hold the weights back to back in little-endian order.
func readWeights(dir string) (map[string]tensor, error) {
	data, err := os.ReadFile(filepath.Join(dir, "model.json"))
	if err != nil {
		return nil, err
	}
	var m modelJSON
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("uselite: model.json: %w", err)
	}
	if len(m.WeightsManifest) == 0 {
		return nil, fmt.Errorf("uselite: model.json lists no weights")
	}
	out := make(map[string]tensor)
	for _, group := range m.WeightsManifest {
		buf, err := readShards(dir, group.Paths)
		if err != nil {
			return nil, err
		}
		off := 0
		for _, w := range group.Weights {
			if len(w.Quantization) > 0 && string(w.Quantization) != "null" {
				return nil, fmt.Errorf("uselite: weight %s is quantized: not supported", w.Name)
			}
			t := tensor{shape: w.Shape}
			n := t.size()
			if off+4*n > len(buf) {
				return nil, fmt.Errorf("uselite: weight %s runs past the end of its shards", w.Name)
			}
			raw := buf[off : off+4*n]
			switch w.Dtype {
			case "float32":
				t.f32 = make([]float32, n)
				for i := range t.f32 {
					t.f32[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
				}
			case "int32":
				t.i32 = make([]int32, n)
				for i := range t.i32 {
					t.i32[i] = int32(binary.LittleEndian.Uint32(raw[4*i:]))
				}
			default:
				return nil, fmt.Errorf("uselite: weight %s has dtype %s: not supported", w.Name, w.Dtype)
			}
			out[w.Name] = t
			off += 4 * n
		}
		if off != len(buf) {
			return nil, fmt.Errorf("uselite: shards hold %d bytes, the manifest %d", len(buf), off)
		}
	}
	return out, nil
}

// readShards returns the concatenated contents of the shard files.
func readShards(dir string, paths []string) ([]byte, error) {
	var bufs [][]byte
	size := 0
	for _, p := range paths {
		if filepath.IsAbs(p) || p != filepath.Base(p) {
			return nil, fmt.Errorf("uselite: model.json: unexpected shard path %q", p)
		}
		b, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			return nil, err
		}
		bufs = append(bufs, b)
		size += len(b)
	}
	buf := make([]byte, 0, size)
	for _, b := range bufs {
		buf = append(buf, b...)
	}
	return buf, nil
}

// weightSet looks weights up by name, checking their shapes, and
// remembers the first error so that a loader can read many in a row.
type weightSet struct {
	w   map[string]tensor
	err error
}

// floats returns the float32 weight name, which must have the given shape.
func (s *weightSet) floats(name string, shape ...int) []float32 {
	t, ok := s.w[name]
	if !ok {
		s.fail(fmt.Errorf("uselite: weight %s not found in model.json", name))
		return nil
	}
	if t.f32 == nil || !sameShape(t.shape, shape) {
		s.fail(fmt.Errorf("uselite: weight %s: want float32 %v, have %v", name, shape, t.shape))
		return nil
	}
	return t.f32
}

// scalar returns the float32 scalar weight name.
func (s *weightSet) scalar(name string) float32 {
	v := s.floats(name)
	if len(v) != 1 {
		return 0
	}
	return v[0]
}

// int returns the int32 scalar weight name.
func (s *weightSet) int(name string) int {
	t, ok := s.w[name]
	if !ok || t.i32 == nil || len(t.i32) != 1 || len(t.shape) != 0 {
		s.fail(fmt.Errorf("uselite: int32 scalar %s not found in model.json", name))
		return 0
	}
	return int(t.i32[0])
}

func (s *weightSet) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

func sameShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
