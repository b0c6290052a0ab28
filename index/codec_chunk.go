package index

import (
	"encoding/hex"
	"fmt"
)

// The chunk record (c/): a format byte (0), then parent, start, length,
// first line, line count, tokens and page as varints, the heading path, the
// text hash (16 bytes when it is the usual 32 lower-case hex digits, else
// a length and the string) and, to the end of the value, the text.
//
// The parent record (a/): start, length, first line, line count, then the
// heading path.

const (
	chunkFormatPlain = 0
	hashRaw          = 16 // hash field tag: 16 raw bytes follow
)

func encodeChunk(c *Chunk) []byte {
	b := make([]byte, 0, 32+len(c.Text)+len(c.Hash)/2+headingSize(c.Heading))
	b = append(b, chunkFormatPlain)
	b = appendUvarints(b, c.Parent)
	b = appendInts(b, c.Start, c.End-c.Start, c.LineStart, c.LineEnd-c.LineStart, c.Tokens, c.Page)
	b = appendStrings(b, c.Heading)
	if isLowerHex(c.Hash, 2*hashRaw) {
		b = append(b, hashRaw)
		b, _ = hex.AppendDecode(b, []byte(c.Hash)) // valid: checked above
	} else {
		b = append(b, 0)
		b = appendString(b, c.Hash)
	}
	return append(b, c.Text...)
}

func decodeChunk(v []byte, c *Chunk) error {
	r := &reader{b: v}
	if r.byte() != chunkFormatPlain {
		return fmt.Errorf("%w: unknown chunk format", errCorrupt)
	}
	c.Parent = r.u32()
	c.Start = r.int()
	c.End = c.Start + r.int()
	c.LineStart = r.int()
	c.LineEnd = c.LineStart + r.int()
	c.Tokens, c.Page = r.int(), r.int()
	c.Heading = r.strings()
	switch r.byte() {
	case hashRaw:
		c.Hash = hex.EncodeToString(r.bytes(hashRaw))
	case 0:
		c.Hash = r.string()
	default:
		return errCorrupt
	}
	if r.bad {
		return errCorrupt
	}
	c.Text = string(r.b)
	return nil
}

func encodeParent(p *Parent) []byte {
	b := make([]byte, 0, 16+headingSize(p.Heading))
	b = appendInts(b, p.Start, p.End-p.Start, p.LineStart, p.LineEnd-p.LineStart)
	return appendStrings(b, p.Heading)
}

func decodeParent(v []byte, p *Parent) error {
	r := &reader{b: v}
	p.Start = r.int()
	p.End = p.Start + r.int()
	p.LineStart = r.int()
	p.LineEnd = p.LineStart + r.int()
	p.Heading = r.strings()
	return r.done()
}

func headingSize(h []string) int {
	n := 1
	for _, s := range h {
		n += len(s) + 1
	}
	return n
}

// isLowerHex reports whether s is n lower-case hex digits (what
// hex.EncodeToString gives, so that decoding restores it exactly).
func isLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
