package ipc_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ragd/ragd/ipc"
)

// FuzzDecodeSearchRequest feeds arbitrary bodies to DecodeSearchRequest: it
// must never panic, must fail only with a 4xx *ipc.Error, and whatever it
// accepts must satisfy the limits the backend relies on.
func FuzzDecodeSearchRequest(f *testing.F) {
	for _, seed := range []string{
		`{"query":"restic retention"}`,
		`{"query":"  padded  ","k":5}`,
		`{"query":"x","k":1000}`,
		`{"query":"x","k":1001}`,
		`{"query":"x","k":0}`,
		`{"query":"x","k":-1}`,
		`{"query":"x","k":1e3}`,
		`{"query":"x","k":-0}`,
		`{"query":"x","vaults":["notes","work"],"path_prefix":"ops/","no_text":true}`,
		`{"query":"x","vaults":null}`,
		`{"query":"caf\u00e9 \ud83d\ude00"}`,
		`{"query":"\ud800"}`,
		`{"query":"\u0000"}`,
		`{"query":"\u00a0\u2028"}`,
		"{\"query\":\"caf\xe9\"}",
		"{\"query\":\"\xc0\xaf\"}",
		`{"query":""}`,
		`{"query":"   "}`,
		`{"query":null}`,
		`{"query":42}`,
		`{"QUERY":"case-insensitive field match"}`,
		`{"query":"x","unknown":1}`,
		`{"query":"x"} {"query":"y"}`,
		`{"query":"x"}]`,
		`{"query":"x"`,
		`{"query":"` + strings.Repeat("é", ipc.MaxQueryBytes/2) + `"}`,
		`{"query":"` + strings.Repeat("a", ipc.MaxQueryBytes+1) + `"}`,
		`[]`,
		`null`,
		`""`,
		``,
		" \n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := ipc.DecodeSearchRequest(bytes.NewReader(body))
		if err != nil {
			var e *ipc.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T) is not an *ipc.Error", err, err)
			}
			if e.Status != http.StatusBadRequest && e.Status != http.StatusRequestEntityTooLarge {
				t.Fatalf("status %d for %q, want 400 or 413", e.Status, body)
			}
			if e.Message == "" {
				t.Fatal("empty error message")
			}
			return
		}
		switch q := req.Query; {
		case q == "":
			t.Fatalf("accepted an empty query from %q", body)
		case len(q) > ipc.MaxQueryBytes:
			t.Fatalf("accepted a %d-byte query", len(q))
		case !utf8.ValidString(q):
			t.Fatalf("accepted invalid UTF-8 query %q", q)
		case strings.TrimSpace(q) != q:
			t.Fatalf("query %q is not trimmed", q)
		}
		if req.K < 1 || req.K > ipc.MaxK {
			t.Fatalf("accepted k = %d", req.K)
		}
		if req.Passages < 0 || req.Passages > ipc.MaxPassages || req.SnippetWidth < 0 || req.SnippetWidth > ipc.MaxSnippetWidth {
			t.Fatalf("accepted passages %d, snippet width %d", req.Passages, req.SnippetWidth)
		}
		for _, v := range req.Vaults {
			if !utf8.ValidString(v) {
				t.Fatalf("accepted invalid UTF-8 vault %q", v)
			}
		}
		if !utf8.ValidString(req.PathPrefix) {
			t.Fatalf("accepted invalid UTF-8 path prefix %q", req.PathPrefix)
		}

		// What was accepted re-encodes to a body that decodes to the
		// same request, as a client re-sending it would.
		b, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ipc.DecodeSearchRequest(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("re-encoded request %s rejected: %v", b, err)
		}
		if again.Query != req.Query || again.K != req.K || again.PathPrefix != req.PathPrefix ||
			again.NoText != req.NoText || !slices.Equal(again.Vaults, req.Vaults) {
			t.Fatalf("round trip changed %+v into %+v", req, again)
		}
	})
}
