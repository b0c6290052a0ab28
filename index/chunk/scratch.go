package chunk

import (
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// scratch holds the buffers a chunking call uses and drops when it
// returns: the line index, the top-level nodes and blocks, the sections,
// the packing ranges, the substance bitmap and the link scanner's per-block
// lists. Nothing in a Document points into them, so they are pooled and an
// indexer working through a vault does not allocate them for every note.
type scratch struct {
	starts  []int // line starts
	entries []entry
	blocks  []block
	secs    []section
	groups  []sectionGroup

	heads, units, parents, cu, pieces []span

	bits []uint64
	cum  []int32

	excl, wiki []rng
	texts      []text.Segment
	mds        []Link
}

// entry is a top-level node of the body and its first line.
type entry struct {
	line int
	n    ast.Node
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

func getScratch() *scratch { return scratchPool.Get().(*scratch) }

// maxPooled bounds the elements a pooled buffer may keep: an unusually
// large note's buffers are left to the garbage collector.
const maxPooled = 1 << 16

// release returns s to the pool, without the references it holds into the
// note just chunked.
func (s *scratch) release() {
	if cap(s.starts) > maxPooled || cap(s.blocks) > maxPooled || cap(s.bits) > maxPooled ||
		cap(s.texts) > maxPooled || cap(s.units) > maxPooled {
		return
	}
	clear(s.entries[:cap(s.entries)])
	clear(s.blocks[:cap(s.blocks)])
	clear(s.secs[:cap(s.secs)])
	clear(s.mds[:cap(s.mds)])
	scratchPool.Put(s)
}
