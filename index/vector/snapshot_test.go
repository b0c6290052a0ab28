package vector

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"reflect"
	"testing"
)

// snapshotFixtures returns small indexes of every kind, one with
// tombstones and free slots, ready to be saved.
func snapshotFixtures(t testing.TB) map[string]Index {
	fx := sizedFixtures(t, 200, 12)
	if h := fx["hnsw-churn"].(*HNSW); h.tomb == 0 || len(h.free) == 0 {
		t.Fatalf("the churned fixture has %d tombstones and %d free slots; it needs both", h.tomb, len(h.free))
	}
	return fx
}

// sizedFixtures builds the fixtures with n vectors of the given dimension
// (the fuzz seeds are small so that the fuzzer's minimisation stays fast).
func sizedFixtures(t testing.TB, n, dims int) map[string]Index {
	vecs := clustered(newRand(41), n, dims, 6, 1.5)
	out := map[string]Index{
		"exact":      NewExact(dims),
		"hnsw":       NewHNSW(dims, Config{M: 6, EfConstruction: 40, EfSearch: 30}),
		"hnsw-churn": NewHNSW(dims, Config{M: 6, EfConstruction: 40, EfSearch: 30}),
		"auto-exact": NewAuto(dims, AutoOptions{Threshold: 2 * n}),
		"auto-graph": NewAuto(dims, AutoOptions{Threshold: n / 2}),
		"empty":      NewHNSW(dims, Config{}),
	}
	for name, idx := range out {
		if name == "empty" {
			continue
		}
		for i, v := range vecs {
			idx.Add(Key(i*3+1), v)
		}
	}
	churn := out["hnsw-churn"]
	for i := 0; i < len(vecs); i += 3 { // a third deleted: past purgeMin, a purge runs
		churn.Delete(Key(i*3 + 1))
	}
	for i := 0; i < len(vecs); i += 9 { // some re-added: free slots reused, tombstones left
		churn.Add(Key(i*3+1), vecs[i])
	}
	return out
}

func save(t testing.TB, idx Index) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := idx.Save(&buf); err != nil {
		t.Fatalf("Save: %v", err)
	}
	return buf.Bytes()
}

func TestSnapshotRoundTrip(t *testing.T) {
	t.Parallel()
	queries := clustered(newRand(43), 30, 12, 6, 1.5)
	for name, idx := range snapshotFixtures(t) {
		data := save(t, idx)
		got, err := Load(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: Load: %v", name, err)
		}
		if reflect.TypeOf(got) != reflect.TypeOf(idx) || got.Len() != idx.Len() || got.Dims() != idx.Dims() {
			t.Fatalf("%s: loaded %T Len %d Dims %d, saved %T Len %d Dims %d",
				name, got, got.Len(), got.Dims(), idx, idx.Len(), idx.Dims())
		}
		for _, q := range queries {
			a, b := idx.Search(q, 10, nil), got.Search(q, 10, nil)
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("%s: search differs after round trip:\n saved  %v\n loaded %v", name, a, b)
			}
		}
		if again := save(t, got); !bytes.Equal(again, data) {
			t.Errorf("%s: saving the loaded index gives different bytes", name)
		}
		// The loaded index keeps working.
		got.Add(999999, queries[0])
		if r := got.Search(queries[0], 1, nil); len(r) != 1 || r[0].Key != 999999 {
			t.Errorf("%s: add after load: %v", name, r)
		}
	}
}

func TestSnapshotCorrupt(t *testing.T) {
	t.Parallel()
	for name, idx := range snapshotFixtures(t) {
		data := save(t, idx)
		step := max(1, len(data)/300)
		for i := 0; i < len(data); i += step {
			bad := bytes.Clone(data)
			bad[i] ^= 0x5a
			if _, err := Load(bytes.NewReader(bad)); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("%s: flipped byte %d: err = %v, want ErrCorrupt", name, i, err)
			}
		}
		for n := 0; n < len(data); n += step {
			if _, err := Load(bytes.NewReader(data[:n])); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("%s: truncated to %d bytes: err = %v, want ErrCorrupt", name, n, err)
			}
		}
		if _, err := Load(bytes.NewReader(append(bytes.Clone(data), 0))); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("%s: trailing byte: err = %v", name, err)
		}
	}
}

// TestSnapshotValidation re-signs damaged snapshots with a correct checksum,
// so the structural checks behind the checksum are exercised.
func TestSnapshotValidation(t *testing.T) {
	t.Parallel()
	data := save(t, snapshotFixtures(t)["hnsw-churn"])
	rejected := 0
	// About 2000 damaged copies, a few bytes apart: closer than one slot's
	// record (key, level, state: 10 bytes), so every field is hit.
	step := max(1, len(data)/2000)
	for i := 0; i < len(data)-4; i += step {
		bad := bytes.Clone(data)
		bad[i] ^= 0xff
		resign(bad)
		idx, err := Load(bytes.NewReader(bad))
		if err != nil {
			rejected++
			continue
		}
		// Accepted (a flipped vector component or key): it must work.
		exerciseLoaded(idx)
	}
	if rejected == 0 {
		t.Errorf("no damaged snapshot was rejected")
	}
}

// resign rewrites the trailing checksum of a snapshot.
func resign(b []byte) {
	if len(b) >= 4 {
		binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], castagnoli))
	}
}

// exerciseLoaded runs every operation on an index that Load accepted.
func exerciseLoaded(idx Index) {
	q := make([]float32, idx.Dims())
	for i := range q {
		q[i] = float32(i%3) - 1
	}
	idx.Search(q, 5, nil)
	idx.Search(q, 5, func(k Key) bool { return k%2 == 0 })
	idx.Add(12345, q)
	idx.Delete(12345)
	for k := Key(0); k < 40; k++ {
		idx.Delete(k)
	}
	idx.Search(q, 5, nil)
	idx.Save(&bytes.Buffer{})
}

// FuzzLoad feeds Load arbitrary bytes; with resign set the checksum is
// fixed first, so the fuzzer reaches the structural validation. Load must
// return an error or an index on which every operation works.
func FuzzLoad(f *testing.F) {
	for _, idx := range sizedFixtures(f, 40, 3) {
		data := save(f, idx)
		f.Add(data, false)
		f.Add(data[:len(data)/2], true)
		bad := bytes.Clone(data)
		bad[len(bad)/3] ^= 1
		f.Add(bad, true)
	}
	f.Add([]byte(snapshotMagic), false)
	f.Add([]byte{}, false)
	f.Fuzz(func(t *testing.T, data []byte, fix bool) {
		if fix {
			data = bytes.Clone(data)
			resign(data)
		}
		idx, err := Load(bytes.NewReader(data))
		if err != nil {
			if idx != nil {
				t.Fatalf("Load returned both an index and %v", err)
			}
			return
		}
		exerciseLoaded(idx)
	})
}

// stallWriter blocks its first Write until release is closed, after
// closing entered.
type stallWriter struct {
	entered, release chan struct{}
	once             bool
}

func (s *stallWriter) Write(p []byte) (int, error) {
	if !s.once {
		s.once = true
		close(s.entered)
		<-s.release
	}
	return len(p), nil
}

// A snapshot being written to a slow disk holds off changes, not searches.
func TestSearchWhileSaveIsBlocked(t *testing.T) {
	t.Parallel()
	for name, idx := range snapshotFixtures(t) {
		if name == "empty" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			w := &stallWriter{entered: make(chan struct{}), release: make(chan struct{})}
			saved := make(chan error, 1)
			go func() { saved <- idx.Save(w) }()
			<-w.entered
			q := make([]float32, idx.Dims())
			q[0] = 1
			if got := idx.Search(q, 5, nil); len(got) != 5 {
				t.Errorf("search during a save found %d", len(got))
			}
			if idx.Len() == 0 {
				t.Error("Len during a save is 0")
			}
			close(w.release)
			if err := <-saved; err != nil {
				t.Fatal(err)
			}
		})
	}
}
