package vector

import (
	"bytes"
	"fmt"
	"os"
	"testing"
	"time"
)

func TestTmpHang(t *testing.T) {
	for name, idx := range snapshotFixtures(t) {
		data := save(t, idx)
		for _, x := range []byte{0xff, 1, 0x80, 0x10} {
			for i := 0; i < len(data)-4; i++ {
				bad := bytes.Clone(data)
				bad[i] ^= x
				resign(bad)
				done := make(chan bool)
				go func() {
					select {
					case <-done:
					case <-time.After(5 * time.Second):
						fmt.Println("HANG", name, i, x, len(data))
						os.Exit(3)
					}
				}()
				idx, err := Load(bytes.NewReader(bad))
				if err == nil {
					exerciseLoaded(idx)
				}
				close(done)
			}
		}
	}
}
