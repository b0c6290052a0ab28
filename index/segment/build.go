package segment

import (
	"encoding/binary"
	"slices"
	"strings"
)

// builder lays out a segment from notes added one at a time. Note and
// chunk rows go straight into the writer; every posting is appended to one
// flat slice per kind (no map or slice per term), and finish sorts the
// terms once, groups each kind's postings by term with a counting sort
// (stable, so chunks and notes stay ascending) and writes the dictionary.
// Positions are delta-coded as they arrive, so a builder holds about the
// bytes of the segment it will write, in a few large pointer-free slices.
type builder struct {
	w     *writer
	ids   map[string]uint32 // term → builder term number
	byKey []uint32          // Term.Key → builder term number + 1
	text  []byte            // addTermRecord's current term
	texts []string          // by builder term number
	df    []uint64          // by builder term number

	posts   []bpost
	spare   []bpost // the postings' other slice (postsInOrder)
	notePs  []bnote
	anchors []banchor
	pos     []byte // positions of posts, delta-coded varints

	fwdTerm []uint32 // forward entries of all notes: builder term numbers
	fwdDF   []uint32
	fwdEnd  []uint32 // per note: end of its entries in fwdTerm

	noteIDs map[uint64]uint32 // note id → note number, to find a note deleted before finish
	del     []uint32          // notes deleted before finish
	size    int64             // about the bytes the segment will take
}

// bpost is a chunk posting of term; its positions are pos[posOff:posEnd].
type bpost struct {
	term, chunk, body, head uint32
	posOff, posEnd          uint32
}

type bnote struct {
	term, note uint32
	tf         [NoteFields]uint32
}

type banchor struct {
	term, note, key, link, ctx uint32
}

func newBuilder() *builder {
	return &builder{w: newWriter(), ids: make(map[string]uint32), noteIDs: make(map[uint64]uint32)}
}

// Build lays out a segment of notes, in the order given.
func Build(notes []*Note) []byte {
	b := newBuilder()
	for _, n := range notes {
		b.add(n)
	}
	out, _ := b.finish()
	return out
}

// term returns t's builder term number, adding it if new.
func (b *builder) term(t string) uint32 {
	if i, ok := b.ids[t]; ok {
		return i
	}
	i := uint32(len(b.texts))
	b.ids[t] = i
	b.texts = append(b.texts, t)
	b.df = append(b.df, 0)
	b.size += int64(len(t)) + 8
	return i
}

// add appends note n (its chunks, postings and forward list).
func (b *builder) add(n *Note) {
	w := b.w
	first := w.chunks
	ni := w.addNote(&noteMeta{id: n.ID, vault: n.Vault, path: n.Path, title: n.Title, tags: n.Tags, aliases: n.Aliases,
		mtime: n.MTime, headings: n.Headings, fieldLen: n.FieldLen, nChunks: uint32(len(n.Chunks))})
	b.noteIDs[n.ID] = ni
	for ord := range n.Chunks {
		w.addChunk(ni, n.FieldLen[FieldTitle], &n.Chunks[ord])
	}
	b.size += noteRowSize + idRowSize + int64(len(n.Chunks))*(chunkRowSize+hashRowSize) + 64
	if n.Terms == nil && n.TermRecord != nil {
		b.addTermRecord(n, first, ni)
	}
	for i := range n.Terms {
		t := &n.Terms[i]
		id := b.keyedTerm(t)
		dfc := t.df(len(n.Chunks))
		b.df[id] += uint64(dfc)
		b.fwdTerm = append(b.fwdTerm, id)
		b.fwdDF = append(b.fwdDF, dfc)
		for _, p := range t.Postings {
			if int(p.Ord) >= len(n.Chunks) {
				continue
			}
			off := uint32(len(b.pos))
			last := uint32(0)
			for k := range int(p.Body) {
				v := uint32(0)
				if k < len(p.Pos) {
					v = p.Pos[k]
				}
				b.pos = binary.AppendUvarint(b.pos, uint64(v-last))
				last = v
			}
			b.posts = append(b.posts, bpost{id, first + p.Ord, p.Body, p.Head, off, uint32(len(b.pos))})
			b.size += int64(len(b.pos)-int(off)) + 4
		}
		if t.hasNote() {
			b.notePs = append(b.notePs, bnote{id, ni, t.Note})
			b.size += 6
		}
	}
	b.fwdEnd = append(b.fwdEnd, uint32(len(b.fwdTerm)))
	for _, a := range n.Anchors {
		k := w.key(a.Target)
		for _, at := range a.Terms {
			b.anchors = append(b.anchors, banchor{b.term(at.Text), ni, k, at.Link, at.Context})
			b.size += 6
		}
	}
}

// has reports whether the builder holds a note with id.
func (b *builder) has(id uint64) bool {
	_, ok := b.noteIDs[id]
	return ok
}

// delete marks the note with id, if the builder holds it, deleted in the
// segment it will make.
func (b *builder) delete(id uint64) {
	if i, ok := b.noteIDs[id]; ok {
		b.del = append(b.del, i)
		delete(b.noteIDs, id)
	}
}

// groupBy returns, for n items of terms 0..nTerms-1 (term(i) gives item
// i's), the item numbers grouped by term in input order and where each
// term's group starts (start[t]..start[t+1]).
func groupBy(n, nTerms int, term func(i int) uint32) (order, start []uint32) {
	start = make([]uint32, nTerms+1)
	for i := range n {
		start[term(i)+1]++
	}
	for t := range nTerms {
		start[t+1] += start[t]
	}
	next := slices.Clone(start[:nTerms])
	order = make([]uint32, n)
	for i := range n {
		t := term(i)
		order[next[t]] = uint32(i)
		next[t]++
	}
	return order, start
}

// postsInOrder returns the chunk postings grouped by term in dictionary
// order (sorted: builder term numbers), each term's in the order added (a
// counting sort), and where the i-th term's begin. It moves the postings
// into b.spare, swapped with b.posts: reading them in order then is a pass
// over one slice, where gathering them through a list of indexes read the
// postings of a segment of a few million in random order.
func (b *builder) postsInOrder(sorted []uint32) ([]bpost, []uint32) {
	nt := len(sorted)
	rank := make([]uint32, nt)
	for r, id := range sorted {
		rank[id] = uint32(r)
	}
	start := make([]uint32, nt+1)
	for i := range b.posts {
		start[rank[b.posts[i].term]+1]++
	}
	for r := range nt {
		start[r+1] += start[r]
	}
	next := slices.Clone(start[:nt])
	out := b.spare[:0]
	if cap(out) < len(b.posts) {
		out = make([]bpost, 0, len(b.posts)+len(b.posts)/4)
	}
	out = out[:len(b.posts)]
	for i := range b.posts {
		r := rank[b.posts[i].term]
		out[next[r]] = b.posts[i]
		next[r]++
	}
	b.posts, b.spare = out, b.posts
	return out, start
}

// finish lays out the segment and returns it with the numbers of the notes
// deleted since they were added.
func (b *builder) finish() ([]byte, []uint32) {
	w := b.w
	nt := len(b.texts)
	sorted := make([]uint32, nt)
	for i := range sorted {
		sorted[i] = uint32(i)
	}
	slices.SortFunc(sorted, func(x, y uint32) int { return strings.Compare(b.texts[x], b.texts[y]) })
	posts, postStart := b.postsInOrder(sorted)
	noteOrd, noteStart := groupBy(len(b.notePs), nt, func(i int) uint32 { return b.notePs[i].term })
	anchOrd, anchStart := groupBy(len(b.anchors), nt, func(i int) uint32 { return b.anchors[i].term })
	ord := make([]uint32, nt) // builder term → dictionary number + 1 (0: no entry)
	for r, id := range sorted {
		w.beginTerm()
		for k := postStart[r]; k < postStart[r+1]; k++ {
			p := &posts[k]
			w.postingRaw(p.chunk, p.body, p.head, b.pos[p.posOff:p.posEnd])
		}
		for _, k := range noteOrd[noteStart[id]:noteStart[id+1]] {
			p := &b.notePs[k]
			w.notePosting(p.note, &p.tf)
		}
		for _, k := range anchOrd[anchStart[id]:anchStart[id+1]] {
			a := &b.anchors[k]
			w.anchorPosting(a.note, a.key, a.link, a.ctx)
		}
		before := w.terms
		w.endTerm(b.texts[id], b.df[id])
		if w.terms != before {
			ord[id] = before + 1
		}
	}
	// Forward lists, in dictionary order (a note's terms come sorted, so
	// their numbers ascend already; sorting keeps it so for any input).
	from := uint32(0)
	for n, end := range b.fwdEnd {
		es := make([]fwdEntry, 0, end-from)
		for k := from; k < end; k++ {
			if o := ord[b.fwdTerm[k]]; o != 0 {
				es = append(es, fwdEntry{o - 1, b.fwdDF[k]})
			}
		}
		if !slices.IsSortedFunc(es, func(x, y fwdEntry) int { return int(x.term) - int(y.term) }) {
			slices.SortFunc(es, func(x, y fwdEntry) int { return int(x.term) - int(y.term) })
		}
		w.fwd[n] = es
		from = end
	}
	del := b.del
	out := w.finish()
	return out, del
}

// reuse returns an empty builder that reuses b's lists (b is finished):
// in bulk mode one builder's lists are as large as the next one needs, and
// growing them again would allocate their size twice over.
func (b *builder) reuse() *builder {
	n := newBuilder()
	n.byKey = b.byKey
	clear(n.byKey)
	n.posts, n.notePs, n.anchors, n.pos = roomFor(b.posts), roomFor(b.notePs), roomFor(b.anchors), roomFor(b.pos)
	n.spare = b.spare
	n.fwdTerm, n.fwdDF, n.fwdEnd = roomFor(b.fwdTerm), roomFor(b.fwdDF), roomFor(b.fwdEnd)
	for i := range n.w.sec {
		n.w.sec[i] = roomFor(b.w.sec[i])
	}
	*b = builder{}
	return n
}

// roomFor returns s emptied, with room for at least an eighth more than it
// held (a quarter when it must grow): the next bulk segment's lists are
// about as long as the last one's, often a little longer, and a list that
// outgrows its room is copied whole.
func roomFor[T any](s []T) []T {
	if cap(s) < len(s)+len(s)/8 {
		return make([]T, 0, len(s)+len(s)/4)
	}
	return s[:0]
}
