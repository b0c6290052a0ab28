package uselite

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"unicode/utf16"

	"golang.org/x/text/unicode/norm"
)

// wordSeparator is SentencePiece's meta symbol for a space.
const wordSeparator = "▁"

// reservedPieces is how many leading vocabulary entries (unknown, <s>,
// </s>, extra_token_id_1..3) the tokenizer never matches.
const reservedPieces = 6

// unknownID is the id of the unknown piece ("�", vocabulary entry 0).
const unknownID = 0

// Tokenizer is the SentencePiece unigram tokenizer of Universal Sentence
// Encoder Lite, a port of the one in @energetic-ai/embeddings 0.2.0 (itself
// the tfjs-models USE tokenizer) that reproduces its ids exactly,
// including its quirks: NFKC normalisation, every space (and the start of
// the text) turned into "▁", a Viterbi search that maximises the summed
// piece scores with later candidates winning ties, unknown characters
// mapped to id 0 and runs of them merged into one.
//
// A Tokenizer is immutable after LoadTokenizer and safe for concurrent use.
type Tokenizer struct {
	pieces []string // vocabulary, by id
	units  []int    // length of each piece in UTF-16 code units
	nodes  []trieNode
	edges  map[trieEdge]int32 // (node, rune) → child node
}

type trieNode struct {
	end   bool
	score float64
	id    int32
}

type trieEdge struct {
	node int32
	r    rune
}

// piece is a vocabulary match starting at some position of the input.
type piece struct {
	runes int // length in code points
	score float64
	id    int32
}

// LoadTokenizer reads a vocab.json: an array of [piece, score] pairs.
// A null score (five entries containing ":" have one) counts as 0, as it
// does in JavaScript.
func LoadTokenizer(path string) (*Tokenizer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var raw [][2]any
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("uselite: %s: %w", path, err)
	}
	pieces := make([]string, len(raw))
	scores := make([]float64, len(raw))
	for i, e := range raw {
		s, ok := e[0].(string)
		if !ok {
			return nil, fmt.Errorf("uselite: %s: entry %d: piece is not a string", path, i)
		}
		pieces[i] = s
		switch v := e[1].(type) {
		case float64:
			scores[i] = v
		case nil:
			scores[i] = 0
		default:
			return nil, fmt.Errorf("uselite: %s: entry %d: score is not a number", path, i)
		}
	}
	return newTokenizer(pieces, scores)
}

func newTokenizer(pieces []string, scores []float64) (*Tokenizer, error) {
	if len(pieces) <= reservedPieces {
		return nil, fmt.Errorf("uselite: vocabulary has only %d entries", len(pieces))
	}
	t := &Tokenizer{pieces: pieces, nodes: []trieNode{{}}, edges: make(map[trieEdge]int32)}
	t.units = make([]int, len(pieces))
	for i, p := range pieces {
		t.units[i] = max(1, len(utf16.Encode([]rune(p))))
	}
	for i := reservedPieces; i < len(pieces); i++ {
		node := int32(0)
		for _, r := range pieces[i] {
			child, ok := t.edges[trieEdge{node, r}]
			if !ok {
				child = int32(len(t.nodes))
				t.nodes = append(t.nodes, trieNode{})
				t.edges[trieEdge{node, r}] = child
			}
			node = child
		}
		if node != 0 { // a later duplicate overwrites, as in the JS trie
			t.nodes[node] = trieNode{end: true, score: scores[i], id: int32(i)}
		}
	}
	return t, nil
}

// VocabSize is the number of pieces in the vocabulary.
func (t *Tokenizer) VocabSize() int { return len(t.pieces) }

// Normalize returns the text the Viterbi search runs on: NFKC, with "▁"
// before the text and in place of every space (other white space is left
// as it is and usually ends up unknown).
func Normalize(text string) string {
	s := norm.NFKC.String(text)
	if s == "" {
		return s
	}
	return wordSeparator + strings.ReplaceAll(s, " ", wordSeparator)
}

// Encode returns the piece ids of text, all of them: the model itself
// keeps only the first MaxTokens.
func (t *Tokenizer) Encode(text string) []int32 {
	symbols := []rune(Normalize(text))
	n := len(symbols)
	if n == 0 {
		return []int32{}
	}
	// ends[e] lists the pieces ending at e, by increasing start.
	ends := make([][]piece, n+1)
	starts := make([][]int, n+1)
	for i := range n {
		t.prefixMatches(symbols[i:], func(p piece) {
			ends[i+p.runes] = append(ends[i+p.runes], p)
			starts[i+p.runes] = append(starts[i+p.runes], i)
		})
	}
	best := make([]float64, n+1)
	words := make([]int32, n+1)
	for end := 0; end <= n; end++ {
		for j, p := range ends[end] {
			score := p.score + best[starts[end][j]]
			// JS: best[endPos] === 0 doubles as "not set yet".
			if best[end] == 0 || score >= best[end] {
				best[end] = score
				words[end] = p.id
			}
		}
	}
	var rev []int32
	for i := n; i > 0; {
		id := words[i]
		rev = append(rev, id)
		i -= t.units[id] // the JS steps back by the piece's UTF-16 length
	}
	ids := make([]int32, 0, len(rev))
	prevUnknown := false
	for _, id := range rev {
		if !(prevUnknown && id == unknownID) {
			ids = append(ids, id)
		}
		prevUnknown = id == unknownID
	}
	for i, j := 0, len(ids)-1; i < j; i, j = i+1, j-1 {
		ids[i], ids[j] = ids[j], ids[i]
	}
	return ids
}

// prefixMatches calls fn for every vocabulary piece that is a prefix of
// ss, shortest first, or once for an unknown single character when none is.
func (t *Tokenizer) prefixMatches(ss []rune, fn func(piece)) {
	found := false
	node := int32(0)
	for i, r := range ss {
		child, ok := t.edges[trieEdge{node, r}]
		if !ok {
			break
		}
		node = child
		if n := t.nodes[node]; n.end {
			fn(piece{runes: i + 1, score: n.score, id: n.id})
			found = true
		}
	}
	if !found {
		fn(piece{runes: 1, score: 0, id: unknownID})
	}
}
