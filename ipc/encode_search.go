package ipc

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// appendSearch appends the JSON of a search answer to b, byte for byte as
// json.Marshal writes it (field order and omitempty of the struct tags,
// HTML-safe escapes, encoding/json's float format), without reflection:
// encoding the answer was a twentieth of the daemon's CPU for a search.
// ok is false for what it leaves to json.Marshal: an answer with explain
// evidence, or a score that is not a finite number (which json.Marshal
// refuses).
func appendSearch(b []byte, r *SearchResponse) (_ []byte, ok bool) {
	b = append(b, `{"query":`...)
	b = appendStr(b, r.Query)
	b = append(b, `,"results":`...)
	if r.Results == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range r.Results {
			if i > 0 {
				b = append(b, ',')
			}
			if b, ok = appendResult(b, &r.Results[i]); !ok {
				return b, false
			}
		}
		b = append(b, ']')
	}
	b = append(b, `,"took_ms":`...)
	if b, ok = appendFloat(b, r.TookMS); !ok {
		return b, false
	}
	b = append(b, `,"grounded":`...)
	b = strconv.AppendBool(b, r.Grounded)
	if len(r.Suggestions) > 0 {
		b = append(b, `,"suggestions":`...)
		b = appendStrs(b, r.Suggestions)
	}
	if len(r.Degraded) > 0 {
		b = append(b, `,"degraded":`...)
		b = appendStrs(b, r.Degraded)
	}
	if r.EmbedMS != 0 {
		b = append(b, `,"embed_ms":`...)
		if b, ok = appendFloat(b, r.EmbedMS); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

func appendResult(b []byte, r *Result) (_ []byte, ok bool) {
	if r.Explain != nil {
		return b, false
	}
	b = append(b, `{"id":`...)
	b = appendStr(b, r.ID)
	b = append(b, `,"vault":`...)
	b = appendStr(b, r.Vault)
	b = append(b, `,"path":`...)
	b = appendStr(b, r.Path)
	b = append(b, `,"abs_path":`...)
	b = appendStr(b, r.AbsPath)
	b = append(b, `,"title":`...)
	b = appendStr(b, r.Title)
	b = append(b, `,"line_start":`...)
	b = strconv.AppendInt(b, int64(r.LineStart), 10)
	b = append(b, `,"line_end":`...)
	b = strconv.AppendInt(b, int64(r.LineEnd), 10)
	b = append(b, `,"heading":`...)
	b = appendStr(b, r.Heading)
	if len(r.Headings) > 0 {
		b = append(b, `,"headings":`...)
		b = appendStrs(b, r.Headings)
	}
	b = append(b, `,"score":`...)
	if b, ok = appendFloat(b, r.Score); !ok {
		return b, false
	}
	if r.Text != "" {
		b = append(b, `,"text":`...)
		b = appendStr(b, r.Text)
	}
	if r.Page != 0 {
		b = append(b, `,"page":`...)
		b = strconv.AppendInt(b, int64(r.Page), 10)
	}
	if p := r.Parent; p != nil {
		b = append(b, `,"parent":{"line_start":`...)
		b = strconv.AppendInt(b, int64(p.LineStart), 10)
		b = append(b, `,"line_end":`...)
		b = strconv.AppendInt(b, int64(p.LineEnd), 10)
		b = append(b, `,"heading":`...)
		b = appendStr(b, p.Heading)
		if p.Text != "" {
			b = append(b, `,"text":`...)
			b = appendStr(b, p.Text)
		}
		b = append(b, '}')
	}
	if r.Stale {
		b = append(b, `,"stale":true`...)
	}
	if s := r.Snippet; s != nil {
		b = append(b, `,"snippet":{"text":`...)
		b = appendStr(b, s.Text)
		b = append(b, `,"line_start":`...)
		b = strconv.AppendInt(b, int64(s.LineStart), 10)
		b = append(b, `,"line_end":`...)
		b = strconv.AppendInt(b, int64(s.LineEnd), 10)
		if len(s.Matches) > 0 {
			b = append(b, `,"matches":`...)
			b = appendSpans(b, s.Matches)
		}
		b = append(b, '}')
	}
	if len(r.Matches) > 0 {
		b = append(b, `,"matches":`...)
		b = appendSpans(b, r.Matches)
	}
	return append(b, '}'), true
}

func appendStrs(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendStr(b, s)
	}
	return append(b, ']')
}

func appendSpans(b []byte, ms [][2]int) []byte {
	b = append(b, '[')
	for i, m := range ms {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(m[0]), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(m[1]), 10)
		b = append(b, ']')
	}
	return append(b, ']')
}

// appendFloat writes f as encoding/json does: like %g with the exponent
// cut-offs of ES6 (1e-6, 1e21) and no zero padding of the exponent.
func appendFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

const hexDigits = "0123456789abcdef"

// htmlSafe holds the ASCII bytes a JSON string may hold as they are when
// <, > and & are escaped (encoding/json's htmlSafeSet).
var htmlSafe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendStr writes s as a JSON string as encoding/json does with its
// default HTML escaping: <, > and & as \u003c, \u003e, \u0026, control
// characters escaped, invalid UTF-8 as \ufffd, U+2028 and U+2029 escaped.
func appendStr(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if htmlSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
