package graph

import (
	"path"
	"strings"

	"github.com/ragd/ragd/index/chunk"
)

// relations turns the links the chunker found into the note's relations.
func relations(rel string, cd *chunk.Document) []Relation {
	if len(cd.Links) == 0 {
		return nil
	}
	out := make([]Relation, 0, len(cd.Links)) // at most one a link: allocated once
	self := NameKey(rel)
	dir := path.Dir(rel)
	for _, l := range cd.Links {
		r := Relation{Raw: l.Target, Heading: l.Heading, Block: l.Block, Alias: l.Alias, Field: l.Field,
			Start: l.Start, End: l.End, Confidence: 1, Chunk: -1}
		switch l.Kind {
		case chunk.LinkWiki, chunk.LinkFrontmatter:
			r.Type, r.Provenance, r.Target = RelLinksTo, "wikilink", NameKey(l.Target)
			if l.Kind == chunk.LinkFrontmatter {
				r.Provenance = "frontmatter"
			}
		case chunk.LinkEmbed:
			r.Type, r.Provenance, r.Target = RelEmbeds, "embed", NameKey(l.Target)
			if strings.Contains(l.Target, "/") && !strings.HasPrefix(l.Target, "/") && isMarkdownLinkPath(l.Target) {
				r.Target = NameKey(path.Join(dir, l.Target))
			}
		case chunk.LinkMarkdown:
			target := l.Target // already URL-decoded by the chunker
			r.Type, r.Provenance, r.Raw = RelLinksTo, "markdown", target
			if strings.HasPrefix(target, "/") {
				r.Target = NameKey(target)
			} else {
				r.Target = NameKey(path.Join(dir, target))
			}
		case chunk.LinkTag:
			r.Type, r.Provenance, r.Target = RelTagged, "tag", TagKey(l.Target)
		default:
			continue
		}
		if r.Target == "" || r.Target == "#" {
			if l.Kind != chunk.LinkWiki || l.Heading == "" && l.Block == "" {
				continue
			}
			r.Target = self // [[#Heading]]: a link within the note
		}
		r.Chunk, r.Line = locate(cd.Chunks, l.Start)
		out = append(out, r)
	}
	return out
}
