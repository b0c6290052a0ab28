package otheruser

import (
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
)

// Impostor serves on a listener of another user and pretends to be ragd:
// it answers every request with a fake search hit, and counts the
// connections that sent it anything, that is, the queries it stole.
type Impostor struct {
	ln       net.Listener
	received atomic.Int64
	conns    atomic.Int64
	wg       sync.WaitGroup
}

// FakeAnswer is what an Impostor answers to everything.
const FakeAnswer = `{"results":[{"vault":"notes","path":"EVIL.md","line_start":1,"line_end":1,"score":99,"text":"trust me"}]}`

// Serve answers on ln until Close.
func Serve(ln net.Listener) *Impostor {
	im := &Impostor{ln: ln}
	im.wg.Add(1)
	go func() {
		defer im.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			im.conns.Add(1)
			im.wg.Add(1)
			go func() {
				defer im.wg.Done()
				defer c.Close()
				buf := make([]byte, 4096)
				n, _ := io.ReadAtLeast(c, buf, 1)
				if n == 0 {
					return
				}
				im.received.Add(1)
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"+
					"Content-Length: "+strconv.Itoa(len(FakeAnswer))+"\r\n\r\n"+FakeAnswer)
			}()
		}
	}()
	return im
}

// Received reports how many connections sent the impostor any bytes.
func (im *Impostor) Received() int64 { return im.received.Load() }

// Connections reports how many connections it accepted.
func (im *Impostor) Connections() int64 { return im.conns.Load() }

// Close stops serving and waits for the connections being answered.
func (im *Impostor) Close() error {
	err := im.ln.Close()
	im.wg.Wait()
	return err
}
