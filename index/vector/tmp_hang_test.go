package vector

import (
	"bytes"
	"os"
	"runtime"
	"testing"
	"time"
)

func FuzzTmpHang(f *testing.F) {
	for _, idx := range snapshotFixtures(f) {
		data := save(f, idx)
		f.Add(data, false)
	}
	f.Fuzz(func(t *testing.T, data []byte, fix bool) {
		if fix {
			data = bytes.Clone(data)
			resign(data)
		}
		done := make(chan bool)
		go func() {
			select {
			case <-done:
			case <-time.After(3 * time.Second):
				buf := make([]byte, 1<<20)
				n := runtime.Stack(buf, true)
				os.WriteFile("/tmp/hang.txt", buf[:n], 0o644)
				os.WriteFile("/tmp/hang.bin", data, 0o644)
			}
		}()
		idx, err := Load(bytes.NewReader(data))
		if err == nil {
			exerciseLoaded(idx)
		}
		close(done)
	})
}
