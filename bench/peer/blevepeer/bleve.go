// Package blevepeer is the Bleve peer: a Bleve v2 index (scorch) of whole
// notes with a title and a body field, both analysed by Bleve's English
// analyzer (unicode tokenizer, possessives, lower case, English stop
// words, Snowball stemming) and gathered in the composite _all field, which
// a match query (OR of the query's terms) searches with BM25 scoring.
package blevepeer

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/ragd/ragd/bench/peer"
)

// batch is how many documents one Bleve batch indexes.
const batch = 1000

// Engine is a Bleve index.
type Engine struct{ idx bleve.Index }

// note is what is indexed per document; only the id is returned.
type note struct {
	Title string `json:"title"`
	Body  string `json:"body"`
}

// Open opens the index in dir/bleve, or creates it empty; existed says it
// was there.
func Open(dir string) (*Engine, bool, error) {
	path := filepath.Join(dir, "bleve")
	if _, err := os.Stat(path); err == nil {
		idx, err := bleve.Open(path)
		if err != nil {
			return nil, false, fmt.Errorf("bleve: %w", err)
		}
		return &Engine{idx}, true, nil
	}
	idx, err := bleve.New(path, indexMapping())
	if err != nil {
		return nil, false, fmt.Errorf("bleve: %w", err)
	}
	return &Engine{idx}, false, nil
}

// indexMapping indexes title and body for search only: nothing stored, no
// term vectors or doc values, since the peer returns document ids alone.
func indexMapping() mapping.IndexMapping {
	text := bleve.NewTextFieldMapping()
	text.Analyzer = en.AnalyzerName
	text.Store, text.IncludeTermVectors, text.DocValues = false, false, false
	doc := bleve.NewDocumentStaticMapping()
	doc.AddFieldMappingsAt("title", text)
	doc.AddFieldMappingsAt("body", text)
	im := bleve.NewIndexMapping()
	im.DefaultMapping = doc
	im.DefaultAnalyzer = en.AnalyzerName
	im.ScoringModel = index.BM25Scoring
	return im
}

// Build indexes every document, batch at a time.
func (e *Engine) Build(each func(func(peer.Doc) error) error) error {
	b := e.idx.NewBatch()
	err := each(func(d peer.Doc) error {
		if err := b.Index(d.ID, note{d.Title, d.Body}); err != nil {
			return fmt.Errorf("%s: %w", d.ID, err)
		}
		if b.Size() >= batch {
			err := e.idx.Batch(b)
			b.Reset()
			return err
		}
		return nil
	})
	if err == nil && b.Size() > 0 {
		err = e.idx.Batch(b)
	}
	return err
}

// Put replaces a document.
func (e *Engine) Put(d peer.Doc) error { return e.idx.Index(d.ID, note{d.Title, d.Body}) }

// Delete removes a document.
func (e *Engine) Delete(id string) error { return e.idx.Delete(id) }

// Search runs a match query (the query analysed by the English analyzer,
// its terms ORed) on the _all field.
func (e *Engine) Search(q string, k int) ([]string, error) {
	req := bleve.NewSearchRequestOptions(bleve.NewMatchQuery(q), k, 0, false)
	res, err := e.idx.Search(req)
	if err != nil {
		return nil, fmt.Errorf("bleve: %w", err)
	}
	out := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		out[i] = h.ID
	}
	return out, nil
}

// Count returns the number of documents.
func (e *Engine) Count() (int, error) {
	n, err := e.idx.DocCount()
	return int(n), err
}

// Close closes the index.
func (e *Engine) Close() error {
	if e.idx == nil {
		return errors.New("bleve: closed")
	}
	err := e.idx.Close()
	e.idx = nil
	return err
}
