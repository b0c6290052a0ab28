package ipc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"path"
	"strconv"
	"strings"
)

// Go's HTTP server answers requests it cannot parse (400: a malformed
// request line or header; 431: headers too large; 505: an HTTP version it
// does not speak; 501: a transfer encoding it does not know) itself, before
// any handler runs, in plain text written straight to the connection with
// these headers. jsonErrorConn rewrites those answers into the JSON error
// shape of every other answer (ErrorResponse), so a client never has to
// parse two kinds of error.
const serverErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// jsonErrorConn is a server-side connection whose writes of the HTTP
// server's own plain-text error answers are rewritten as JSON.
type jsonErrorConn struct {
	*net.UnixConn
}

func (c jsonErrorConn) Write(p []byte) (int, error) {
	if j, ok := serverErrorAsJSON(p); ok {
		if _, err := c.UnixConn.Write(j); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return c.UnixConn.Write(p)
}

// serverErrorAsJSON rewrites one plain-text error answer of net/http's
// server (written whole, in one Write) as a JSON one; ok is false for any
// other bytes.
func serverErrorAsJSON(p []byte) (_ []byte, ok bool) {
	const proto = "HTTP/1.1 "
	if !bytes.HasPrefix(p, []byte(proto)) {
		return nil, false
	}
	head := p[:min(len(p), 512)]
	i := bytes.Index(head, []byte(serverErrorHeaders))
	if i < 0 || i < len(proto)+3 {
		return nil, false
	}
	code, err := strconv.Atoi(string(p[len(proto) : len(proto)+3]))
	if err != nil || code < 400 || code > 599 {
		return nil, false
	}
	msg := strings.TrimSpace(string(p[i+len(serverErrorHeaders):]))
	if msg == "" {
		msg = fmt.Sprintf("%d %s", code, http.StatusText(code))
	}
	body, _ := json.Marshal(ErrorResponse{Error: msg})
	body = append(body, '\n')
	return fmt.Appendf(nil, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n%s: %d\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s",
		code, http.StatusText(code), HeaderProtocol, ProtocolVersion, len(body), body), true
}

// cleanPath serves a path with doubled slashes or dot segments (GET
// //v1/status) as its clean form; http.ServeMux would answer it with a
// redirect, which a client of a Unix socket has no use for.
func cleanPath(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if c := path.Clean("/" + p); c != p && c+"/" != p {
			r2 := r.Clone(r.Context())
			r2.URL.Path, r2.URL.RawPath = c, ""
			r = r2
		}
		next.ServeHTTP(w, r)
	})
}
