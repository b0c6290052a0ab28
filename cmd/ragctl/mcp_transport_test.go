package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/ipc/ipctest"
)

// malformedMCP are the lines of the fault campaign that killed `ragctl mcp`,
// and relatives, each with the JSON-RPC error code it must get.
var malformedMCP = []struct {
	name, line string
	code       int
}{
	{"garbage", "garbage", -32700},
	{"empty object", "{}", -32600},
	{"empty array", "[]", -32600},
	{"null", "null", -32600},
	{"number", "42", -32600},
	{"string", `"str"`, -32600},
	{"boolean", "true", -32600},
	{"wrong jsonrpc", `{"jsonrpc":"1.0","id":2,"method":"ping"}`, -32600},
	{"jsonrpc a number", `{"jsonrpc":2,"id":8,"method":"ping"}`, -32600},
	{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600},
	{"array id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, -32600},
	{"boolean id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600},
	{"method a number", `{"jsonrpc":"2.0","method":7,"id":6}`, -32600},
	{"neither request nor response", `{"jsonrpc":"2.0","id":7}`, -32600},
	{"batch", `[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","id":4,"method":"ping"}]`, -32600},
	{"deep arrays", strings.Repeat("[", 10000) + strings.Repeat("]", 10000), -32600},
	{"deep objects", strings.Repeat(`{"a":`, 5000) + "1" + strings.Repeat("}", 5000), -32600},
	{"NUL in an object", "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"\x00}", -32700},
	{"NUL bytes", "\x00\x00", -32700},
	{"trailing garbage", `{"jsonrpc":"2.0","id":10,"method":"ping"} trailing`, -32700},
	{"truncated", `{"jsonrpc":"2.0","id":11,"method":"pi`, -32700},
}

func TestParseMessage(t *testing.T) {
	for _, tt := range malformedMCP {
		if _, code, why := parseMessage([]byte(tt.line), false); int(code) != tt.code || why == "" {
			t.Errorf("%s: code %d (%q), want %d", tt.name, code, why, tt.code)
		}
	}
	for _, ok := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/list","params":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":3,"result":{}}`,
		`{"jsonrpc":"2.0","id":-4,"error":{"code":1,"message":"no"}}`,
	} {
		if msg, code, why := parseMessage([]byte(ok), false); code != 0 || msg == nil {
			t.Errorf("%s refused: %d %q", ok, code, why)
		}
	}
	if _, code, _ := parseMessage(nil, true); code != -32600 {
		t.Errorf("over-long line: code %d", code)
	}
}

// TestMCPKeepsServingAfterMalformedMessages sends every malformed line to a
// real `ragctl mcp` process between valid requests: each gets its error
// (id null), every ping after it is answered, and the process exits 0 when
// stdin closes.
func TestMCPKeepsServingAfterMalformedMessages(t *testing.T) {
	isolate(t)
	cmd := exec.Command(os.Args[0], "-socket", ipctest.ShortDir(t)+"/none.sock", "mcp")
	cmd.Env = append(os.Environ(), "RAGCTL_TEST_MAIN=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan map[string]any)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = map[string]any{"unparsable": sc.Text()}
			}
			lines <- m
		}
	}()
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(stdin, s+"\n"); err != nil {
			t.Fatalf("write to ragctl mcp: %v (stderr %q)", err, stderr.String())
		}
	}
	next := func(what string) map[string]any {
		t.Helper()
		select {
		case m, ok := <-lines:
			if !ok {
				t.Fatalf("ragctl mcp closed stdout waiting for %s (stderr %q)", what, stderr.String())
			}
			return m
		case <-time.After(30 * time.Second):
			t.Fatalf("no answer waiting for %s", what)
		}
		return nil
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := next("the initialize answer"); m["id"] != 1.0 || m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i, tt := range malformedMCP {
		send(tt.line)
		m := next(tt.name)
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"] != float64(tt.code) || m["id"] != nil || m["jsonrpc"] != "2.0" {
			t.Errorf("%s: answer %v, want error %d with id null", tt.name, m, tt.code)
		}
		id := 100 + i
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id))
		if m := next("a ping after " + tt.name); m["id"] != float64(id) || m["result"] == nil {
			t.Errorf("ping after %s: %v", tt.name, m)
		}
	}
	stdin.Close()
	for range lines {
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("ragctl mcp exited with %v (stderr %q)", err, stderr.String())
	}
}
