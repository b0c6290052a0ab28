package ipc

import (
	"errors"
	"math"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// jdec: the JSON reading primitives decodeSearch is made of — white space,
// containers, keys, strings and numbers — for the subset of JSON the daemon
// writes; anything else is declined to encoding/json.

// jdec reads JSON values from b at i.
type jdec struct {
	b   []byte
	i   int
	err error // errDeclined once the input is not what it handles
}

// errDeclined marks input decodeSearch leaves to encoding/json.
var errDeclined = errors.New("ipc: answer left to encoding/json")

func (d *jdec) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// next skips white space and reports whether the next byte is c,
// consuming it if so.
func (d *jdec) next(c byte) bool {
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

// null consumes a null if one comes next.
func (d *jdec) null() bool {
	d.ws()
	if len(d.b)-d.i >= 4 && string(d.b[d.i:d.i+4]) == "null" {
		d.i += 4
		return true
	}
	return false
}

// begin consumes open ('{' or '[') and reports whether an element
// follows (false for an empty container, whose close it consumes); more,
// called after each element, whether another one follows, consuming the
// comma or the close. Malformed input sets d.err (and ends the loop).
func (d *jdec) begin(open, close byte) bool {
	if !d.next(open) {
		d.err = errDeclined
		return false
	}
	return !d.next(close)
}

func (d *jdec) more(close byte) bool {
	if d.err != nil || d.next(close) {
		return false
	}
	if d.next(',') {
		return true
	}
	d.err = errDeclined
	return false
}

// keySet holds the keys of an object read so far.
type keySet struct {
	keys [16][]byte
	n    int
}

// key reads an object's key and its colon. A key with an escape, or given
// twice (encoding/json merges the values), is declined.
func (d *jdec) key(ks *keySet) ([]byte, bool) {
	if !d.next('"') {
		return nil, false
	}
	start := d.i
	for d.i < len(d.b) && d.b[d.i] != '"' && d.b[d.i] != '\\' && d.b[d.i] >= 0x20 && d.b[d.i] < utf8.RuneSelf {
		d.i++
	}
	if d.i == len(d.b) || d.b[d.i] != '"' {
		return nil, false
	}
	k := d.b[start:d.i]
	d.i++
	for _, seen := range ks.keys[:ks.n] {
		if string(seen) == string(k) {
			return nil, false
		}
	}
	if ks.n == len(ks.keys) || !d.next(':') {
		return nil, false
	}
	ks.keys[ks.n] = k
	ks.n++
	return k, true
}

// str reads a string.
func (d *jdec) str(s *string) bool {
	if !d.next('"') {
		return false
	}
	start := d.i
	var buf []byte // the string with its escapes undone, once it has one
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			switch {
			case buf != nil:
				*s = string(buf)
			case d.i > start:
				*s = unsafe.String(&d.b[start], d.i-start) // shares the answer's bytes
			default:
				*s = ""
			}
			d.i++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if buf == nil {
				buf = append(make([]byte, 0, d.i-start+16), d.b[start:d.i]...)
			}
			if d.i+1 >= len(d.b) {
				return false
			}
			e := d.b[d.i+1]
			d.i += 2
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				if d.i+4 > len(d.b) {
					return false
				}
				r, err := strconv.ParseUint(string(d.b[d.i:d.i+4]), 16, 32)
				if err != nil || r >= 0xD800 && r < 0xE000 {
					return false // surrogates are left to encoding/json
				}
				buf = utf8.AppendRune(buf, rune(r))
				d.i += 4
			default:
				return false
			}
		case c < utf8.RuneSelf:
			if buf != nil {
				buf = append(buf, c)
			}
			d.i++
		default:
			r, size := utf8.DecodeRune(d.b[d.i:])
			if r == utf8.RuneError && size == 1 {
				return false // encoding/json would replace it
			}
			if buf != nil {
				buf = append(buf, d.b[d.i:d.i+size]...)
			}
			d.i += size
		}
	}
	return false
}

// strs reads an array of strings, or null.
func (d *jdec) strs(ss *[]string) bool {
	if d.null() {
		*ss = nil
		return true
	}
	*ss = []string{}
	for more := d.begin('[', ']'); more; more = d.more(']') {
		var s string
		if !d.str(&s) {
			return false
		}
		*ss = append(*ss, s)
	}
	return d.err == nil
}

// spans reads an array of two-number arrays, or null.
func (d *jdec) spans(ms *[][2]int) bool {
	if d.null() {
		*ms = nil
		return true
	}
	*ms = make([][2]int, 0, 8)
	for more := d.begin('[', ']'); more; more = d.more(']') {
		var m [2]int
		if !d.next('[') || !d.whole(&m[0]) || !d.next(',') || !d.whole(&m[1]) || !d.next(']') {
			return false
		}
		*ms = append(*ms, m)
	}
	return d.err == nil
}

func (d *jdec) boolean(v *bool) bool {
	d.ws()
	switch {
	case len(d.b)-d.i >= 4 && string(d.b[d.i:d.i+4]) == "true":
		*v, d.i = true, d.i+4
	case len(d.b)-d.i >= 5 && string(d.b[d.i:d.i+5]) == "false":
		*v, d.i = false, d.i+5
	default:
		return false
	}
	return true
}

// number returns the next JSON number's text and whether it is an
// integer (no fraction or exponent).
func (d *jdec) number() (num []byte, integer, ok bool) {
	d.ws()
	start := d.i
	digits := func() int {
		n := 0
		for d.i < len(d.b) && '0' <= d.b[d.i] && d.b[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	if d.i < len(d.b) && d.b[d.i] == '-' {
		d.i++
	}
	lead := d.i
	if n := digits(); n == 0 || n > 1 && d.b[lead] == '0' {
		return nil, false, false
	}
	integer = true
	if d.i < len(d.b) && d.b[d.i] == '.' {
		d.i++
		if digits() == 0 {
			return nil, false, false
		}
		integer = false
	}
	if d.i < len(d.b) && (d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.i++
		if d.i < len(d.b) && (d.b[d.i] == '+' || d.b[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			return nil, false, false
		}
		integer = false
	}
	return d.b[start:d.i], integer, true
}

// whole reads an integer; one that does not fit (or a number with a
// fraction, which encoding/json refuses for an int) is declined.
func (d *jdec) whole(v *int) bool {
	num, integer, ok := d.number()
	if !ok || !integer {
		return false
	}
	neg := num[0] == '-'
	if neg {
		num = num[1:]
	}
	n := 0
	for _, c := range num {
		x := int(c - '0')
		if n > (math.MaxInt-x)/10 {
			return false
		}
		n = n*10 + x
	}
	if neg {
		n = -n
	}
	*v = n
	return true
}

func (d *jdec) float(v *float64) bool {
	num, _, ok := d.number()
	if !ok {
		return false
	}
	f, err := strconv.ParseFloat(string(num), 64)
	if err != nil {
		return false
	}
	*v = f
	return true
}
