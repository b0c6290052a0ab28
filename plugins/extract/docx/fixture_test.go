package docx

import (
	"archive/zip"
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// Fixtures are real WordprocessingML packages built here with archive/zip:
// the parts Word writes for a document with the same content (content
// types, relationships, styles with localized ids, numbering, core
// properties).

const (
	nsW  = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`
	nsMC = `xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" xmlns:v="urn:schemas-microsoft-com:vml" xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math"`
)

const contentTypes = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>
<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>
<Override PartName="/word/numbering.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml"/>
<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>
</Types>`

const rootRels = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>
<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>
</Relationships>`

// stylesXML has English ids for Title/Heading1/Heading2, a German
// "Überschrift 3" id whose name is "heading 3", a custom style based on
// Heading2, a list style that carries numbering, and an outline-level style.
const stylesXML = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:styles ` + nsW + `>
<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/><w:basedOn w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>
<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/><w:basedOn w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="berschrift3"><w:name w:val="heading 3"/></w:style>
<w:style w:type="paragraph" w:styleId="MyHeading"><w:name w:val="My Heading"/><w:basedOn w:val="Heading2"/></w:style>
<w:style w:type="paragraph" w:styleId="Chapter"><w:name w:val="Chapter"/><w:pPr><w:outlineLvl w:val="3"/></w:pPr></w:style>
<w:style w:type="paragraph" w:styleId="ListBullet"><w:name w:val="List Bullet"/><w:pPr><w:numPr><w:numId w:val="1"/></w:numPr></w:pPr></w:style>
<w:style w:type="paragraph" w:styleId="Loop1"><w:name w:val="Loop"/><w:basedOn w:val="Loop2"/></w:style>
<w:style w:type="paragraph" w:styleId="Loop2"><w:name w:val="Loop"/><w:basedOn w:val="Loop1"/></w:style>
</w:styles>`

// numberingXML: numId 1 is a bullet list, numId 2 a decimal list with
// lower-letter second level.
const numberingXML = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:numbering ` + nsW + `>
<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="bullet"/><w:lvlText w:val="•"/></w:lvl>
<w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="bullet"/></w:lvl></w:abstractNum>
<w:abstractNum w:abstractNumId="1"><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl>
<w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="lowerLetter"/></w:lvl></w:abstractNum>
<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>
<w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num>
</w:numbering>`

func coreXML(title string) string {
	return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<dc:title>` + title + `</dc:title><dc:creator>Grace Hopper</dc:creator><cp:keywords>retrieval, notes</cp:keywords>
<cp:lastModifiedBy>Ada</cp:lastModifiedBy><dcterms:created xsi:type="dcterms:W3CDTF">2024-05-01T10:00:00Z</dcterms:created>
</cp:coreProperties>`
}

// docx zips parts into a .docx; body is the content of w:body.
func docx(t testing.TB, title, bodyXML string, extra map[string]string) []byte {
	t.Helper()
	parts := map[string]string{
		"[Content_Types].xml": contentTypes,
		"_rels/.rels":         rootRels,
		"word/document.xml": `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document ` + nsW + ` ` + nsMC + `><w:body>` + bodyXML + `<w:sectPr><w:pgSz w:w="11906" w:h="16838"/></w:sectPr></w:body></w:document>`,
		"word/styles.xml":    stylesXML,
		"word/numbering.xml": numberingXML,
		"docProps/core.xml":  coreXML(title),
	}
	for k, v := range extra {
		if v == "" {
			delete(parts, k)
		} else {
			parts[k] = v
		}
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range []string{"[Content_Types].xml", "_rels/.rels", "word/document.xml", "word/styles.xml", "word/numbering.xml", "docProps/core.xml"} {
		if s, ok := parts[name]; ok {
			w, err := zw.Create(name)
			if err != nil {
				t.Fatal(err)
			}
			w.Write([]byte(s))
			delete(parts, name)
		}
	}
	for name, s := range parts {
		w, _ := zw.Create(name)
		w.Write([]byte(s))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// p is a paragraph with style (may be "") and runs of text.
func p(style string, runs ...string) string {
	var b strings.Builder
	b.WriteString("<w:p>")
	if style != "" {
		fmt.Fprintf(&b, `<w:pPr><w:pStyle w:val="%s"/><w:spacing w:after="120"/></w:pPr>`, style)
	}
	for _, r := range runs {
		fmt.Fprintf(&b, `<w:r><w:rPr><w:lang w:val="en-US"/></w:rPr><w:t xml:space="preserve">%s</w:t></w:r>`, r)
	}
	b.WriteString("</w:p>")
	return b.String()
}

// li is a list paragraph of numbering num at level ilvl.
func li(num, ilvl int, text string) string {
	return fmt.Sprintf(`<w:p><w:pPr><w:pStyle w:val="ListParagraph"/><w:numPr><w:ilvl w:val="%d"/><w:numId w:val="%d"/></w:numPr><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr><w:r><w:t>%s</w:t></w:r></w:p>`, ilvl, num, text)
}

// tbl is a table of rows of cells.
func tbl(rows ...[]string) string {
	var b strings.Builder
	b.WriteString(`<w:tbl><w:tblPr><w:tblStyle w:val="TableGrid"/></w:tblPr><w:tblGrid><w:gridCol w:w="2000"/></w:tblGrid>`)
	for _, r := range rows {
		b.WriteString("<w:tr>")
		for _, c := range r {
			fmt.Fprintf(&b, `<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/></w:tcPr>%s</w:tc>`, p("", c))
		}
		b.WriteString("</w:tr>")
	}
	b.WriteString("</w:tbl>")
	return b.String()
}

// sample is a whole document used by several tests and the benchmark.
func sample(sections int) string {
	var b strings.Builder
	b.WriteString(p("Title", "Project Handbook"))
	for i := range sections {
		b.WriteString(p("Heading1", fmt.Sprintf("Chapter %d", i+1)))
		b.WriteString(p("", "Retrieval works on ", "chunks of notes; ", "this paragraph has some ünïcödé — and “quotes”."))
		b.WriteString(p("Heading2", "Steps"))
		b.WriteString(li(2, 0, "Index the vault") + li(2, 1, "watch for changes") + li(2, 0, "Query it"))
		b.WriteString(tbl([]string{"Key", "Value"}, []string{"alpha", fmt.Sprint(i)}))
	}
	return b.String()
}
