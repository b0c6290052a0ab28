package chunk

import (
	"bytes"
	"time"
	"unicode"
	"unicode/utf8"
)

// simpleFrontmatter decodes the frontmatter most notes have without the
// YAML parser: keys at the start of their lines, each with a plain scalar,
// nothing, or a block sequence of plain scalars below it ("- item"). It
// gives what yaml.v3 gives (TestSimpleFrontmatterMatchesYAML compares
// them), and ok false for anything else — quotes, flow collections,
// comments, numbers, times, special words other than true and false,
// tabs, blank lines — which parseFrontmatter then hands to yaml.v3. A
// plain date (2024-01-31: `created:` in many notes' frontmatter) is
// decoded as yaml.v3 decodes it, into a time.Time.
func simpleFrontmatter(y []byte) (meta map[string]any, props []Property, ok bool) {
	meta = make(map[string]any, 8)
	key := ""       // the key whose value may be a sequence below it
	seqIndent := -1 // the indent of that sequence's items, once one is seen
	var seq []any
	var seqVals []string
	end := func() {
		if key == "" {
			return
		}
		if seq != nil {
			meta[key] = seq
			if len(seqVals) > 0 {
				props = append(props, Property{Key: key, Values: seqVals})
			}
		} else {
			meta[key] = nil
		}
		key, seqIndent, seq, seqVals = "", -1, nil, nil
	}
	for len(y) > 0 {
		line := y
		if i := bytes.IndexByte(y, '\n'); i >= 0 {
			line, y = y[:i], y[i+1:]
		} else {
			y = nil
		}
		indent := 0
		for indent < len(line) && line[indent] == ' ' {
			indent++
		}
		rest := line[indent:]
		if len(rest) > 0 && rest[0] == '-' && (len(rest) == 1 || rest[1] == ' ') {
			// A sequence item of the pending key.
			if key == "" || indent > 2 || seqIndent >= 0 && indent != seqIndent {
				return nil, nil, false
			}
			seqIndent = indent
			v := bytes.TrimRight(bytes.TrimLeft(rest[1:], " "), " ")
			if len(v) == 0 {
				seq = append(seq, nil)
				continue
			}
			val, ok := plainScalar(v)
			if !ok {
				return nil, nil, false
			}
			seq = append(seq, val)
			seqVals = append(seqVals, string(v))
			continue
		}
		end()
		if indent != 0 || len(rest) == 0 {
			return nil, nil, false
		}
		k := 0
		for k < len(rest) && k < 128 && (isASCIILetter(rest[k]) || k > 0 && (isDigit(rest[k]) || rest[k] == '_' || rest[k] == '-')) {
			k++
		}
		if k == 0 || k == len(rest) || rest[k] != ':' || k+1 < len(rest) && rest[k+1] != ' ' || specialWord(rest[:k]) {
			return nil, nil, false
		}
		name := string(rest[:k])
		if _, dup := meta[name]; dup {
			return nil, nil, false
		}
		v := bytes.Trim(rest[k+1:], " ")
		if len(v) == 0 {
			key = name
			meta[name] = nil // claimed, so a duplicate is seen
			continue
		}
		val, ok := plainScalar(v)
		if !ok {
			return nil, nil, false
		}
		meta[name] = val
		props = append(props, Property{Key: name, Values: []string{string(v)}})
	}
	end()
	if len(meta) == 0 {
		return nil, nil, true
	}
	return meta, props, true
}

// plainScalar returns the value yaml.v3 decodes a plain scalar v into —
// v itself, true or false, or a date's time.Time — when v is sure to be a
// string, one of those words or a date: a string starts with a letter,
// holds only letters, digits, marks and a few safe punctuation characters,
// and is not another special word.
func plainScalar(v []byte) (any, bool) {
	switch string(v) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	if len(v) > 0 && isDigit(v[0]) {
		return plainDate(v)
	}
	if specialWord(v) {
		return nil, false
	}
	for i := 0; i < len(v); {
		c := v[i]
		if c < utf8.RuneSelf {
			switch {
			case isASCIILetter(c):
			case i == 0:
				return nil, false
			case isDigit(c), c == ' ', c == '_', c == '.', c == '-', c == '/', c == '(', c == ')', c == '\'', c == ',', c == '&', c == '+':
			default:
				return nil, false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(v[i:])
		if !unicode.IsLetter(r) && (i == 0 || !unicode.IsDigit(r) && !unicode.IsMark(r)) {
			return nil, false
		}
		i += n
	}
	return string(v), true
}

// specialWord reports the words YAML may read as something other than a
// string: null, booleans in any spelling, and their YAML 1.1 forms.
func specialWord(w []byte) bool {
	if len(w) > 5 {
		return false
	}
	switch string(bytes.ToLower(w)) {
	case "null", "true", "false", "yes", "no", "on", "off", "y", "n":
		return true
	}
	return false
}

// plainDate returns the time.Time yaml.v3 decodes a plain date into
// (YYYY-M-D, month and day of one or two digits: its resolver's last
// timestamp format, the only one without a time), or ok false for
// anything else, including an impossible date (yaml.v3 keeps that as a
// string).
func plainDate(v []byte) (any, bool) {
	if len(v) < 8 || len(v) > 10 || v[4] != '-' {
		return nil, false
	}
	dashes := 0
	for i, c := range v {
		switch {
		case isDigit(c):
		case c == '-' && i >= 4:
			dashes++
		default:
			return nil, false
		}
	}
	if dashes != 2 {
		return nil, false
	}
	t, err := time.Parse("2006-1-2", string(v))
	if err != nil {
		return nil, false
	}
	return t, true
}
