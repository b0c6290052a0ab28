package vector

import (
	"encoding/binary"
	"os"
	"testing"
	"time"
)

func TestTmpBuildProfile(t *testing.T) {
	raw, err := os.ReadFile("/tmp/annwork/data-50k/base.f32")
	if err != nil {
		t.Skip(err)
	}
	n := len(raw) / 400
	base := make([][]float32, n)
	for i := range base {
		base[i] = make([]float32, 100)
		binary.Read(bytesReader(raw[i*400:(i+1)*400]), binary.LittleEndian, base[i])
	}
	h := NewHNSW(100, Config{})
	h.Reserve(n)
	t0 := time.Now()
	for i, v := range base[:30000] {
		h.Add(Key(i), v)
	}
	t.Logf("single-thread build 30000: %v (%.0f/s)", time.Since(t0), 30000/time.Since(t0).Seconds())
}
