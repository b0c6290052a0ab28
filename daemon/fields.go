package daemon

import (
	"github.com/ragd/ragd/daemon/config"
	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/analyze"
)

// bm25Of is the [index] table's ranking parameters.
func bm25Of(ix config.Index) index.BM25 {
	p := index.DefaultBM25
	p.K1, p.B = ix.K1, ix.B
	p.Title, p.Heading = ix.TitleWeight, ix.HeadingWeight
	p.Alias, p.Props, p.Tags = ix.AliasWeight, ix.PropertyWeight, ix.TagWeight
	p.Anchor, p.AnchorContext = ix.AnchorWeight, ix.AnchorContextWeight
	p.NoteBM25, p.Proximity = ix.WholeNoteWeight, ix.ProximityWeight
	return p
}

// fieldsOf is the [index] table's note-field settings.
func fieldsOf(ix config.Index) index.Fields {
	f := index.Fields{Properties: ix.Properties, IgnoreProperties: ix.IgnoreProperties}
	if f.Properties == nil && f.IgnoreProperties == nil {
		f.IgnoreProperties = []string{} // the user emptied the list: index every key
	}
	switch ix.Language {
	case "auto":
		f.Detect = true
	default:
		f.Lang, _ = analyze.ParseLang(ix.Language) // validated with the config
	}
	return f
}
