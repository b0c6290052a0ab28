package docx

import (
	"encoding/xml"
	"errors"
	"io"
	"path"
	"strconv"
	"strings"
)

// val is an element with a w:val attribute.
type val struct {
	Val string `xml:"val,attr"`
}

// numPr is a paragraph's (or style's) numbering reference.
type numPr struct {
	Ilvl  *val `xml:"ilvl"`
	NumID *val `xml:"numId"`
}

// style is one w:style of styles.xml.
type style struct {
	ID      string `xml:"styleId,attr"`
	Name    val    `xml:"name"`
	BasedOn val    `xml:"basedOn"`
	PPr     struct {
		Outline *val   `xml:"outlineLvl"`
		NumPr   *numPr `xml:"numPr"`
	} `xml:"pPr"`
}

// level is one list level of an abstract numbering.
type level struct {
	Ilvl   string `xml:"ilvl,attr"`
	Start  val    `xml:"start"`
	NumFmt val    `xml:"numFmt"`
}

// styles is what the body needs from styles.xml and numbering.xml.
type styles struct {
	byID map[string]style
	nums map[string]map[int]level // numId -> ilvl -> level
}

// styles reads the styles and numbering parts next to the main part.
func (p *pkg) styles(dir string) (*styles, error) {
	st := &styles{byID: map[string]style{}, nums: map[string]map[int]level{}}
	err := p.decode(path.Join(dir, "styles.xml"), func(d *xml.Decoder) error {
		return each(d, "style", func(se xml.StartElement) error {
			var s style
			if err := d.DecodeElement(&s, &se); err != nil {
				return err
			}
			st.byID[s.ID] = s
			return nil
		})
	})
	if err != nil && !isSyntax(err) {
		return nil, err
	}
	abstract := map[string]map[int]level{}
	numToAbs := map[string]string{}
	err = p.decode(path.Join(dir, "numbering.xml"), func(d *xml.Decoder) error {
		return each(d, "", func(se xml.StartElement) error {
			switch se.Name.Local {
			case "abstractNum":
				var a struct {
					ID  string  `xml:"abstractNumId,attr"`
					Lvl []level `xml:"lvl"`
				}
				if err := d.DecodeElement(&a, &se); err != nil {
					return err
				}
				m := map[int]level{}
				for _, l := range a.Lvl {
					if i, err := strconv.Atoi(l.Ilvl); err == nil {
						m[i] = l
					}
				}
				abstract[a.ID] = m
			case "num":
				var n struct {
					ID  string `xml:"numId,attr"`
					Abs val    `xml:"abstractNumId"`
				}
				if err := d.DecodeElement(&n, &se); err != nil {
					return err
				}
				numToAbs[n.ID] = n.Abs.Val
			}
			return nil
		})
	})
	if err != nil && !isSyntax(err) {
		return nil, err
	}
	for num, abs := range numToAbs {
		if m, ok := abstract[abs]; ok {
			st.nums[num] = m
		}
	}
	return st, nil
}

// each calls fn for every start element named local (any name when local
// is "") that is a child of the part's root element.
func each(d *xml.Decoder, local string, fn func(xml.StartElement) error) error {
	depth := 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth == 1 && (local == "" || t.Name.Local == local) {
				if err := fn(t); err != nil {
					return err
				}
				continue
			}
			depth++
		case xml.EndElement:
			depth--
		}
	}
}

// isSyntax reports whether err is malformed XML (styles and numbering are
// optional: a broken one is ignored rather than failing the document).
func isSyntax(err error) bool {
	var se *xml.SyntaxError
	return errors.As(err, &se)
}

// heading returns the heading level (1..6) of style id, or 0.
func (s *styles) heading(id string) int {
	for range 10 { // basedOn chain, bounded against cycles
		st, ok := s.byID[id]
		if !ok {
			return headingName(id)
		}
		if l := headingName(st.Name.Val); l > 0 {
			return l
		}
		if o := st.PPr.Outline; o != nil {
			if n, err := strconv.Atoi(o.Val); err == nil && n >= 0 && n < 6 {
				return n + 1
			}
		}
		if st.BasedOn.Val == "" {
			return 0
		}
		id = st.BasedOn.Val
	}
	return 0
}

// headingName maps "Title", "heading 2", "Heading2" to a level.
func headingName(name string) int {
	n := strings.ToLower(strings.ReplaceAll(name, " ", ""))
	if n == "title" {
		return 1
	}
	if d, ok := strings.CutPrefix(n, "heading"); ok && len(d) == 1 && d[0] >= '1' && d[0] <= '6' {
		return int(d[0] - '0')
	}
	return 0
}

// isTitle reports whether style id is the Title style.
func (s *styles) isTitle(id string) bool {
	if st, ok := s.byID[id]; ok {
		return strings.EqualFold(st.Name.Val, "title")
	}
	return strings.EqualFold(id, "title")
}

// styleNum returns the numbering a paragraph style carries, if any.
func (s *styles) styleNum(id string) (num string, ilvl int) {
	for range 10 {
		st, ok := s.byID[id]
		if !ok {
			return "", 0
		}
		if np := st.PPr.NumPr; np != nil && np.NumID != nil {
			if np.Ilvl != nil {
				ilvl, _ = strconv.Atoi(np.Ilvl.Val)
			}
			return np.NumID.Val, ilvl
		}
		id = st.BasedOn.Val
	}
	return "", 0
}

// ordered reports whether list level ilvl of num is numbered (not a
// bullet), and its start value.
func (s *styles) ordered(num string, ilvl int) (bool, int) {
	l, ok := s.nums[num][ilvl]
	if !ok {
		return false, 1
	}
	start, err := strconv.Atoi(l.Start.Val)
	if err != nil || start < 0 || start > 1e6 {
		start = 1
	}
	switch l.NumFmt.Val {
	case "bullet", "none", "":
		return false, start
	}
	return true, start
}
