package pdf

import (
	"math"
	"strings"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
)

// Bounds of one page's content interpretation.
const (
	maxFormDepth = 8         // nested form XObjects
	maxGlyphs    = 2_000_000 // glyphs per page
)

// matrix is a PDF transformation [a b 0; c d 0; e f 1].
type matrix [6]float64

var identity = matrix{1, 0, 0, 1, 0, 0}

// mul returns m × n (apply m, then n).
func (m matrix) mul(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

// font is what showing text needs from a font resource.
type font struct {
	enc     pdf.TextEncoding
	twoByte bool              // composite (Type0) font: 2-byte codes
	widths  map[int]float64   // glyph widths in 1/1000 em
	dflt    float64           // width of codes not in widths
	cache   map[string]string // decoded text per code
}

// gstate is the part of the graphics state that places text.
type gstate struct {
	ctm                       matrix
	tm, tlm                   matrix
	tc, tw, th, tl, tfs, rise float64
	font                      *font
}

// interp collects the glyphs of a page, including those drawn by form
// XObjects. It replaces the parser's Page.Content, which ignores word
// spacing, forms and composite-font widths and emits a spurious glyph
// after every TJ.
type interp struct {
	glyphs []pdf.Text
}

func pageGlyphs(p pdf.Page) []pdf.Text {
	var in interp
	in.run(p.V.Key("Contents"), p.Resources(), identity, 0)
	return in.glyphs
}

func (in *interp) run(strm, res pdf.Value, ctm matrix, depth int) {
	fonts := map[string]*font{}
	g := gstate{ctm: ctm, th: 1}
	var stack []gstate
	pdf.Interpret(strm, func(stk *pdf.Stack, op string) {
		args := make([]pdf.Value, stk.Len())
		for i := len(args) - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		num := func(i int) float64 {
			if i < len(args) {
				return args[i].Float64()
			}
			return 0
		}
		mat := func() matrix {
			var m matrix
			for i := range m {
				m[i] = num(i)
			}
			return m
		}
		switch op {
		case "q":
			if len(stack) < 1024 {
				stack = append(stack, g)
			}
		case "Q":
			if n := len(stack); n > 0 {
				g, stack = stack[n-1], stack[:n-1]
			}
		case "cm":
			g.ctm = mat().mul(g.ctm)
		case "BT":
			g.tm, g.tlm = identity, identity
		case "Tc":
			g.tc = num(0)
		case "Tw":
			g.tw = num(0)
		case "Tz":
			g.th = num(0) / 100
		case "TL":
			g.tl = num(0)
		case "Ts":
			g.rise = num(0)
		case "Tf":
			if len(args) > 0 {
				name := args[0].Name()
				if fonts[name] == nil {
					fonts[name] = loadFont(res.Key("Font").Key(name))
				}
				g.font = fonts[name]
			}
			g.tfs = num(1)
		case "Td", "TD":
			if op == "TD" {
				g.tl = -num(1)
			}
			g.tlm = matrix{1, 0, 0, 1, num(0), num(1)}.mul(g.tlm)
			g.tm = g.tlm
		case "Tm":
			g.tm, g.tlm = mat(), mat()
		case "T*":
			g.tlm = matrix{1, 0, 0, 1, 0, -g.tl}.mul(g.tlm)
			g.tm = g.tlm
		case "'", "\"":
			if op == "\"" && len(args) == 3 {
				g.tw, g.tc, args = num(0), num(1), args[2:]
			}
			g.tlm = matrix{1, 0, 0, 1, 0, -g.tl}.mul(g.tlm)
			g.tm = g.tlm
			fallthrough
		case "Tj":
			if len(args) > 0 {
				in.show(&g, args[len(args)-1].RawString())
			}
		case "TJ":
			if len(args) == 0 {
				return
			}
			a := args[0]
			for i := 0; i < a.Len(); i++ {
				if x := a.Index(i); x.Kind() == pdf.String {
					in.show(&g, x.RawString())
				} else {
					g.tm = matrix{1, 0, 0, 1, -x.Float64() / 1000 * g.tfs * g.th, 0}.mul(g.tm)
				}
			}
		case "Do":
			if len(args) == 0 || depth >= maxFormDepth {
				return
			}
			x := res.Key("XObject").Key(args[0].Name())
			if x.Key("Subtype").Name() != "Form" {
				return
			}
			m := identity
			if mv := x.Key("Matrix"); mv.Len() == 6 {
				for i := range m {
					m[i] = mv.Index(i).Float64()
				}
			}
			fres := x.Key("Resources")
			if fres.IsNull() {
				fres = res
			}
			in.run(x, fres, m.mul(g.ctm), depth+1)
		}
	})
}

// show draws a string: one glyph per character code.
func (in *interp) show(g *gstate, raw string) {
	f := g.font
	if f == nil {
		f = &font{enc: nopText{}, dflt: 500, cache: map[string]string{}}
		g.font = f
	}
	step := 1
	if f.twoByte {
		step = 2
	}
	for i := 0; i+step <= len(raw) && len(in.glyphs) < maxGlyphs; i += step {
		code := raw[i : i+step]
		c := int(code[0])
		if step == 2 {
			c = c<<8 | int(code[1])
		}
		w0, ok := f.widths[c]
		if !ok {
			w0 = f.dflt
		}
		trm := matrix{g.tfs * g.th, 0, 0, g.tfs, 0, g.rise}.mul(g.tm).mul(g.ctm)
		s, ok := f.cache[code]
		if !ok {
			s = clean(f.enc.Decode(code))
			f.cache[code] = s
		}
		if s != "" {
			in.glyphs = append(in.glyphs, pdf.Text{
				FontSize: math.Hypot(trm[2], trm[3]),
				X:        trm[4], Y: trm[5],
				W: w0 / 1000 * math.Hypot(trm[0], trm[1]),
				S: s,
			})
		}
		tx := w0/1000*g.tfs + g.tc
		if step == 1 && c == ' ' {
			tx += g.tw
		}
		g.tm = matrix{1, 0, 0, 1, tx * g.th, 0}.mul(g.tm)
	}
}

// clean drops decoded text that is not text (invalid UTF-8, controls).
func clean(s string) string {
	if !utf8.ValidString(s) {
		return ""
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' || r == 0x7f || r == utf8.RuneError || r == 0xfffd {
			return -1
		}
		return r
	}, s)
}

type nopText struct{}

func (nopText) Decode(raw string) string { return raw }

// loadFont reads a font resource's encoding and widths.
func loadFont(v pdf.Value) *font {
	pf := pdf.Font{V: v}
	f := &font{enc: pf.Encoder(), widths: map[int]float64{}, cache: map[string]string{}}
	if f.enc == nil {
		f.enc = nopText{}
	}
	if v.Key("Subtype").Name() == "Type0" {
		f.twoByte = true
		d := v.Key("DescendantFonts").Index(0)
		f.dflt = 1000
		if dw := d.Key("DW"); dw.Kind() == pdf.Integer || dw.Kind() == pdf.Real {
			f.dflt = dw.Float64()
		}
		cidWidths(d.Key("W"), f.widths)
		return f
	}
	first := int(v.Key("FirstChar").Int64())
	ws := v.Key("Widths")
	for i := 0; i < ws.Len() && i < 256; i++ {
		f.widths[first+i] = ws.Index(i).Float64()
	}
	f.dflt = v.Key("FontDescriptor").Key("MissingWidth").Float64()
	if ws.Len() == 0 { // standard 14 font without widths: estimate
		f.dflt = 500
		if strings.Contains(v.Key("BaseFont").Name(), "Courier") {
			f.dflt = 600
		}
	}
	return f
}

// cidWidths reads a CIDFont W array: "c [w1 w2 ...]" or "c1 c2 w".
func cidWidths(w pdf.Value, out map[int]float64) {
	for i := 0; i+1 < w.Len() && len(out) < 1<<16; {
		c := int(w.Index(i).Int64())
		if next := w.Index(i + 1); next.Kind() == pdf.Array {
			for j := 0; j < next.Len() && j < 1<<16; j++ {
				out[c+j] = next.Index(j).Float64()
			}
			i += 2
			continue
		}
		if i+2 >= w.Len() {
			return
		}
		last, width := int(w.Index(i+1).Int64()), w.Index(i+2).Float64()
		for c2 := c; c2 <= last && c2-c < 1<<16; c2++ {
			out[c2] = width
		}
		i += 3
	}
}
