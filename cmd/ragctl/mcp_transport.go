package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpMaxLine bounds one JSON-RPC message (one line on stdin).
const mcpMaxLine = 16 << 20

// mcpMaxDepth bounds the nesting of arrays and objects in one message.
const mcpMaxDepth = 64

// lineTransport is MCP's stdio transport (newline-delimited JSON-RPC) with
// the robustness the SDK's lacks: every line that is not a valid JSON-RPC
// 2.0 message is answered with the JSON-RPC error it deserves — -32700
// (parse error) for what is not JSON, -32600 (invalid request) for JSON
// that is not a request, notification or response, batches included (MCP
// 2025-06-18 has none) — and the server keeps serving. The SDK's own
// transport ends the session at the first such line.
type lineTransport struct {
	in  io.Reader
	out io.Writer
}

// Connect implements mcp.Transport.
func (t *lineTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{out: t.out, incoming: make(chan jsonrpc.Message), closed: make(chan struct{})}
	go c.readLoop(t.in)
	return c, nil
}

type lineConn struct {
	writeMu   sync.Mutex
	out       io.Writer
	incoming  chan jsonrpc.Message
	readErr   error // set before incoming is closed
	closeOnce sync.Once
	closed    chan struct{}
}

// readLoop reads lines until EOF, answering the malformed ones itself and
// handing the others to Read. It ends (leaking only a read of stdin that
// never returns, as the SDK's does) when the connection closes.
func (c *lineConn) readLoop(in io.Reader) {
	defer close(c.incoming)
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, long, err := readLine(r)
		if long || len(bytes.TrimSpace(line)) > 0 {
			msg, code, why := parseMessage(line, long)
			if code != 0 {
				c.reply(code, why)
			} else {
				select {
				case c.incoming <- msg:
				case <-c.closed:
					return
				}
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				c.readErr = err
			}
			return
		}
	}
}

// readLine returns the next line without its line ending; a line longer
// than mcpMaxLine is skipped to its end and reported as long.
func readLine(r *bufio.Reader) (line []byte, long bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > mcpMaxLine {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.ReadSlice('\n')
			}
			return nil, true, err
		}
		line = append(line, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return bytes.TrimRight(line, "\r\n"), false, err
		}
	}
}

// parseMessage decodes one line, or says which JSON-RPC error answers it.
func parseMessage(line []byte, long bool) (jsonrpc.Message, int64, string) {
	if long {
		return nil, jsonrpc.CodeInvalidRequest, "Invalid request: a message is at most 16 MiB"
	}
	if !json.Valid(line) {
		return nil, jsonrpc.CodeParseError, "Parse error: not valid JSON"
	}
	if depth(line) > mcpMaxDepth {
		return nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid request: nested deeper than %d levels", mcpMaxDepth)
	}
	var fields map[string]json.RawMessage
	switch first := bytes.TrimSpace(line)[0]; {
	case first == '[':
		return nil, jsonrpc.CodeInvalidRequest, "Invalid request: batches are not supported (MCP 2025-06-18 has none); send one message per line"
	case first != '{' || json.Unmarshal(line, &fields) != nil:
		return nil, jsonrpc.CodeInvalidRequest, "Invalid request: a message is a JSON object"
	}
	if string(fields["jsonrpc"]) != `"2.0"` {
		return nil, jsonrpc.CodeInvalidRequest, `Invalid request: "jsonrpc" must be "2.0"`
	}
	if id, ok := fields["id"]; ok {
		switch bytes.TrimSpace(id)[0] {
		case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'n':
		default:
			return nil, jsonrpc.CodeInvalidRequest, `Invalid request: "id" must be a string, a number or null`
		}
	}
	if m, ok := fields["method"]; ok {
		var method string
		if json.Unmarshal(m, &method) != nil || method == "" {
			return nil, jsonrpc.CodeInvalidRequest, `Invalid request: "method" must be a non-empty string`
		}
	} else if _, ok := fields["result"]; !ok {
		if _, ok := fields["error"]; !ok {
			return nil, jsonrpc.CodeInvalidRequest, `Invalid request: neither a request ("method") nor a response ("result" or "error")`
		}
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, jsonrpc.CodeInvalidRequest, "Invalid request: " + err.Error()
	}
	return msg, 0, ""
}

// depth returns the deepest nesting of arrays and objects in valid JSON.
func depth(b []byte) int {
	d, deepest, inString, escaped := 0, 0, false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			d++
			deepest = max(deepest, d)
		case c == ']' || c == '}':
			d--
		}
	}
	return deepest
}

// reply writes an error response with a null id: a malformed message has no
// id that could be trusted.
func (c *lineConn) reply(code int64, message string) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": message}})
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	c.out.Write(append(b, '\n'))
}

// Read implements mcp.Connection.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case msg, ok := <-c.incoming:
		if !ok {
			if c.readErr != nil {
				return nil, c.readErr
			}
			return nil, io.EOF
		}
		return msg, nil
	}
}

// Write implements mcp.Connection.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err = c.out.Write(append(b, '\n'))
	return err
}

// Close implements mcp.Connection.
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// SessionID implements mcp.Connection.
func (c *lineConn) SessionID() string { return "" }
