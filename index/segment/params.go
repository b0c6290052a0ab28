package segment

// Params are the ranking parameters. Field weights multiply a field's
// term frequency; the body, heading and title fields share one length
// normalisation (b = B over their weighted sum), the other note fields one
// of their own (BNote, over each field's length); anchors are not
// length-normalised. All of them apply at query time: changing them needs
// no reindex.
type Params struct {
	K1 float64
	B  float64
	// Chunk fields and the title, normalised together.
	Body, Heading, Title float64
	// Note fields, each normalised by its own length.
	BNote              float64
	Alias, Props, Tags float64
	// Anchor text: the words of links to the note (Anchor) and the
	// sentence around them (AnchorContext), from the notes that link to it.
	Anchor, AnchorContext float64
	// NoteBM25 weighs the whole note's BM25F (its chunks' fields summed,
	// normalised by the note's length) added to its best chunk's score: a
	// note that answers in three sections beats one line elsewhere.
	NoteBM25 float64
	// Proximity weighs the bonus for query words that stand close
	// together, in query order, in a chunk's body; ProxDepth is how many
	// of the best notes get it.
	Proximity float64
	ProxDepth int
}

// DefaultParams are ragd's defaults, chosen by measurement
// (docs/architecture.md, "Measurements").
var DefaultParams = Params{
	K1: 1.2, B: 0.75,
	Body: 1, Heading: 1.5, Title: 2,
	BNote: 0.5, Alias: 2, Props: 1, Tags: 1,
	Anchor: 0.5, AnchorContext: 0.1,
	NoteBM25:  0.3,
	Proximity: 0.3, ProxDepth: 30,
}

// proxWindow is the largest distance (in positions) at which two query
// words still count as close.
const proxWindow = 5

// maxGroups bounds the query words a search scores (masks are 32 bits).
const maxGroups = 32
