package config

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// The TOML library reports no line numbers for decoded keys (and records only
// the last element of an array of tables), so the file is scanned a second
// time, after it has parsed successfully, to find the line of every key.
// The scanner understands just enough TOML to follow tables, arrays of
// tables, dotted and quoted keys, inline tables, arrays and multi-line
// strings; it never fails, and a key it cannot place simply has no line.

// positions maps a key path, spelled as in error messages
// ("vault[1].include[0]"), to the 1-based line where it is defined.
type positions map[string]int

// line returns the line of the first of keys that has one, or 0.
func (p positions) line(keys ...string) int {
	for _, k := range keys {
		if l, ok := p[k]; ok {
			return l
		}
	}
	return 0
}

func (p positions) setIfAbsent(key string, line int) {
	if _, ok := p[key]; !ok {
		p[key] = line
	}
}

// keyJoin appends one key segment to a key path.
func keyJoin(prefix, seg string) string {
	if prefix == "" {
		return fmtSeg(seg)
	}
	return prefix + "." + fmtSeg(seg)
}

// keyIndex appends an array index to a key path.
func keyIndex(prefix string, i int) string {
	return prefix + "[" + strconv.Itoa(i) + "]"
}

// fmtSeg prints a key segment bare when TOML would allow it, else quoted.
func fmtSeg(seg string) string {
	if seg == "" {
		return `""`
	}
	for i := 0; i < len(seg); i++ {
		if !isBare(seg[i]) {
			return strconv.Quote(seg)
		}
	}
	return seg
}

func isBare(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

type keyScanner struct {
	s    []byte
	i    int
	line int
	pos  positions
	aot  map[string]int // number of elements of each array of tables, by path
}

// scanPositions returns the line of every key, table header and array
// element in data, which should be valid TOML.
func scanPositions(data []byte) positions {
	sc := &keyScanner{s: data, line: 1, pos: positions{}, aot: map[string]int{}}
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		sc.i = 3 // byte order mark
	}
	table := ""
	for sc.i < len(sc.s) {
		start := sc.i
		sc.skipWS()
		switch sc.peek(0) {
		case 0:
			if sc.i >= len(sc.s) {
				return sc.pos
			}
		case '\r', '\n', '#':
		case '[':
			table = sc.header()
		default:
			sc.keyval(table)
		}
		sc.skipWS()
		sc.skipComment()
		// Only a newline may follow a statement; skip anything else (there
		// is nothing else in valid TOML) so that the scan always advances.
		for sc.i < len(sc.s) && sc.s[sc.i] != '\n' {
			sc.i++
		}
		sc.next() // the newline
		if sc.i == start {
			sc.i++
		}
	}
	return sc.pos
}

// peek returns the byte k positions ahead, or 0 at the end of the input.
func (sc *keyScanner) peek(k int) byte {
	if sc.i+k < len(sc.s) {
		return sc.s[sc.i+k]
	}
	return 0
}

// next consumes one byte, counting lines.
func (sc *keyScanner) next() {
	if sc.i < len(sc.s) {
		if sc.s[sc.i] == '\n' {
			sc.line++
		}
		sc.i++
	}
}

func (sc *keyScanner) skipWS() {
	for c := sc.peek(0); c == ' ' || c == '\t'; c = sc.peek(0) {
		sc.i++
	}
}

func (sc *keyScanner) skipComment() {
	if sc.peek(0) == '#' {
		for sc.i < len(sc.s) && sc.s[sc.i] != '\n' {
			sc.i++
		}
	}
}

// skipBlank skips whitespace, newlines and comments (inside arrays and
// inline tables).
func (sc *keyScanner) skipBlank() {
	for sc.i < len(sc.s) {
		switch sc.s[sc.i] {
		case ' ', '\t', '\r', '\n':
			sc.next()
		case '#':
			sc.skipComment()
		default:
			return
		}
	}
}

// header handles "[a.b]" and "[[a.b]]" and returns the path of the table
// that the following keys belong to.
func (sc *keyScanner) header() string {
	line := sc.line
	array := sc.peek(1) == '['
	sc.i++
	if array {
		sc.i++
	}
	segs := sc.key()
	if len(segs) == 0 {
		return ""
	}
	path := ""
	for j, seg := range segs {
		path = keyJoin(path, seg)
		sc.pos.setIfAbsent(path, line)
		if j == len(segs)-1 {
			break
		}
		// [a.b] after [[a]] means b in the last element of a.
		if n := sc.aot[path]; n > 0 {
			path = keyIndex(path, n-1)
		}
	}
	if array {
		n := sc.aot[path]
		sc.aot[path] = n + 1
		path = keyIndex(path, n)
		sc.pos[path] = line
	}
	return path
}

// keyval handles "a.b = value" inside table.
func (sc *keyScanner) keyval(table string) {
	line := sc.line
	segs := sc.key()
	if len(segs) == 0 {
		return
	}
	path := table
	for _, seg := range segs {
		path = keyJoin(path, seg)
		sc.pos.setIfAbsent(path, line)
	}
	sc.skipWS()
	if sc.peek(0) != '=' {
		return
	}
	sc.i++
	sc.skipWS()
	sc.value(path)
}

// key reads a dotted key and returns its segments, unquoted.
func (sc *keyScanner) key() []string {
	var segs []string
	for {
		sc.skipWS()
		switch c := sc.peek(0); {
		case c == '"':
			segs = append(segs, sc.basicString())
		case c == '\'':
			segs = append(segs, sc.literalString())
		case isBare(c):
			start := sc.i
			for isBare(sc.peek(0)) {
				sc.i++
			}
			segs = append(segs, string(sc.s[start:sc.i]))
		default:
			return segs
		}
		sc.skipWS()
		if sc.peek(0) != '.' {
			return segs
		}
		sc.i++
	}
}

// value skips one value, recording the lines of the keys of inline tables
// and of array elements under path.
func (sc *keyScanner) value(path string) {
	switch sc.peek(0) {
	case '"':
		if sc.peek(1) == '"' && sc.peek(2) == '"' {
			sc.multiline('"')
		} else {
			sc.basicString()
		}
	case '\'':
		if sc.peek(1) == '\'' && sc.peek(2) == '\'' {
			sc.multiline('\'')
		} else {
			sc.literalString()
		}
	case '[':
		sc.array(path)
	case '{':
		sc.inlineTable(path)
	default: // number, boolean, date-time
		for sc.i < len(sc.s) && !strings.ContainsRune(" \t\r\n,]}#", rune(sc.s[sc.i])) {
			sc.i++
		}
	}
}

func (sc *keyScanner) array(path string) {
	sc.i++ // [
	for idx := 0; ; {
		sc.skipBlank()
		switch sc.peek(0) {
		case 0:
			return
		case ']':
			sc.i++
			return
		case ',':
			sc.i++
			idx++
		default:
			start := sc.i
			elem := keyIndex(path, idx)
			sc.pos.setIfAbsent(elem, sc.line)
			sc.value(elem)
			if sc.i == start {
				sc.i++ // not a value; make progress anyway
			}
		}
	}
}

func (sc *keyScanner) inlineTable(path string) {
	sc.i++ // {
	for {
		sc.skipBlank()
		switch sc.peek(0) {
		case 0:
			return
		case '}':
			sc.i++
			return
		case ',':
			sc.i++
		default:
			start := sc.i
			sc.keyval(path)
			if sc.i == start {
				sc.i++
			}
		}
	}
}

// basicString reads a single-line "..." string and returns its value.
func (sc *keyScanner) basicString() string {
	sc.i++ // "
	var b strings.Builder
	for sc.i < len(sc.s) {
		c := sc.s[sc.i]
		switch c {
		case '"':
			sc.i++
			return b.String()
		case '\n':
			return b.String()
		case '\\':
			sc.escape(&b)
		default:
			b.WriteByte(c)
			sc.i++
		}
	}
	return b.String()
}

// escape decodes one backslash escape of a basic string.
func (sc *keyScanner) escape(b *strings.Builder) {
	sc.i++ // backslash
	c := sc.peek(0)
	sc.i++
	if simple, ok := map[byte]byte{'b': '\b', 't': '\t', 'n': '\n', 'f': '\f', 'r': '\r', 'e': 0x1b, '"': '"', '\\': '\\'}[c]; ok {
		b.WriteByte(simple)
		return
	}
	digits := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
	if digits == 0 || sc.i+digits > len(sc.s) {
		return
	}
	r, err := strconv.ParseUint(string(sc.s[sc.i:sc.i+digits]), 16, 32)
	if err != nil {
		return
	}
	sc.i += digits
	if r > utf8.MaxRune {
		return
	}
	b.WriteRune(rune(r))
}

// literalString reads a single-line '...' string and returns its value.
func (sc *keyScanner) literalString() string {
	sc.i++ // '
	start := sc.i
	for sc.i < len(sc.s) && sc.s[sc.i] != '\'' && sc.s[sc.i] != '\n' {
		sc.i++
	}
	s := string(sc.s[start:sc.i])
	if sc.peek(0) == '\'' {
		sc.i++
	}
	return s
}

// multiline skips a multi-line string (triple quotes q), counting its lines.
func (sc *keyScanner) multiline(q byte) {
	sc.i += 3
	for sc.i < len(sc.s) {
		switch {
		case q == '"' && sc.s[sc.i] == '\\':
			sc.next()
			sc.next() // the escaped byte, possibly a newline
		case sc.s[sc.i] == q && sc.peek(1) == q && sc.peek(2) == q:
			sc.i += 3
			// Up to two more quotes belong to the content: """a""""".
			for extra := 0; extra < 2 && sc.peek(0) == q; extra++ {
				sc.i++
			}
			return
		default:
			sc.next()
		}
	}
}
