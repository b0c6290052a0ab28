package query

import (
	"regexp"
	"slices"
	"strings"

	"github.com/ragd/ragd/index"
)

// A relationship question asks which notes link to, embed or list a note
// it names ("which page links to the Glossary", "which category page lists
// the Kanban plugin"). Its answer is not the named note, which the words
// of the question match best, but the notes pointing at it: the engine
// then adds the notes that link to the named notes (the links channel,
// through the graph) and ranks the named notes below them. English only.
var relationRE = regexp.MustCompile(`(?i)\b(?:which|what|who|whose)\b.*?\b(embed(?:s|ded|ding)?|transclude[sd]?|links?\s+(?:to|from|in)|linking\s+to|linked\s+(?:to|from|in)|lists|listed|mentions?|mentioned|references?|referenced|refers?\s+to|points?\s+to)\b|\bback-?links?\b`)

// Relations a question can ask about.
const (
	relNone   = ""
	relLinks  = "links"
	relEmbeds = "embeds"
)

// relationOf classifies a query's text.
func relationOf(text string) string {
	m := relationRE.FindStringSubmatch(text)
	switch {
	case m == nil:
		return relNone
	case strings.HasPrefix(strings.ToLower(m[1]), "embed"), strings.HasPrefix(strings.ToLower(m[1]), "transclu"):
		return relEmbeds
	}
	return relLinks
}

// Weights of a relationship question's evidence: the notes linking to a
// named note join the fusion at linkWeight (lexical is 1), and a named
// note itself keeps subjectShare of its fused score.
const (
	linkWeight   = 0.6
	subjectShare = 0.5
)

// demote ranks the notes a relationship question names below the notes
// that answer it: they keep subjectShare of their score, unless they link
// to another named note themselves.
func demote(cs []*cand, subjects []index.DocID) {
	for _, c := range cs {
		if c.ranks[chGraph] == 0 && slices.Contains(subjects, c.doc) {
			c.fused *= subjectShare
		}
	}
	sortCands(cs, func(c *cand) float64 { return c.fused })
}
