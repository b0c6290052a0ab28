package ipc_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/ipc"
)

// rawRequest sends raw bytes to the daemon's socket and parses the answer.
func rawRequest(t *testing.T, sock, raw string) (*http.Response, string) {
	t.Helper()
	c, err := net.DialTimeout("unix", sock, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	go io.WriteString(c, raw) // may be cut short by an early answer
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%.60q: reading the answer: %v", raw, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestEveryErrorIsJSON: every 4xx and 5xx the daemon sends, including the
// ones Go's HTTP server writes itself before any handler runs, is JSON in
// the ErrorResponse shape, and a doubled slash is served, not redirected.
func TestEveryErrorIsJSON(t *testing.T) {
	sock := serve(t, ipc.NewHandler(&fakeBackend{}, discardLogger()))
	const get = "GET /v1/status HTTP/1.1\r\nHost: ragd\r\n"
	tests := []struct {
		name, raw string
		status    int
		want      string // in the error message
	}{
		{"garbage", "GARBAGE\r\n\r\n", 400, "Bad Request"},
		{"no host", "GET /v1/status HTTP/1.1\r\n\r\n", 400, "missing required Host header"},
		{"bad header line", get + "no colon here\r\n\r\n", 400, "Bad Request"},
		{"headers too large", get + "X-Big: " + strings.Repeat("a", 1<<20+4096) + "\r\n\r\n", 431, "Request Header Fields Too Large"},
		{"HTTP/2.0 request line", "GET /v1/status HTTP/2.0\r\nHost: ragd\r\n\r\n", 505, "unsupported protocol version"},
		{"unknown transfer encoding", "POST /v1/search HTTP/1.1\r\nHost: ragd\r\nTransfer-Encoding: zip\r\n\r\n", 501, "Unsupported transfer encoding"},
		{"unknown endpoint", "GET /v2/status HTTP/1.1\r\nHost: ragd\r\n\r\n", 404, "no such endpoint"},
		{"wrong method", "DELETE /v1/status HTTP/1.1\r\nHost: ragd\r\n\r\n", 405, "method not allowed"},
		{"bad JSON", "POST /v1/search HTTP/1.1\r\nHost: ragd\r\nContent-Length: 5\r\n\r\n{nope", 400, ""},
		{"newer client", get + "Ragd-Protocol-Version: 99\r\n\r\n", 426, "upgrade ragd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := rawRequest(t, sock, tt.raw)
			var e ipc.ErrorResponse
			if resp.StatusCode != tt.status || resp.Header.Get("Content-Type") != "application/json" ||
				json.Unmarshal([]byte(body), &e) != nil || e.Error == "" || !strings.Contains(e.Error, tt.want) {
				t.Errorf("answer %d %q %q, want %d with a JSON error saying %q", resp.StatusCode, resp.Header.Get("Content-Type"), body, tt.status, tt.want)
			}
		})
	}
	for _, p := range []string{"//v1/status", "/v1//status", "/v1/./status", "/x/../v1/status"} {
		resp, body := rawRequest(t, sock, "GET "+p+" HTTP/1.1\r\nHost: ragd\r\n\r\n")
		if resp.StatusCode != 200 || !strings.Contains(body, `"state"`) {
			t.Errorf("GET %s: %d %q, want the status (no redirect)", p, resp.StatusCode, body)
		}
	}
}
