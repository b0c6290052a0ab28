package segment

import (
	"math/bits"
	"sort"
	"sync"
)

// A segment's id index is its notes' ids sorted, each with its note's
// number (FindNote). Ids are hashes, spread evenly over their range, so
// the rows holding ids of the same leading bits are found from a
// directory by those bits, about two rows a bucket: a search reads one
// entry of the directory and the row or two it points at, where a binary
// search of the 100,000 rows of a large segment made seventeen reads, most
// of them missing the processor's caches. Searches for the notes a link
// names are made by the ten thousand for a common word's anchor text the
// first time it is searched. The directory is built at a segment's first
// search for an id, 4 bytes a bucket (about 2 a note), and kept with it.

// idDir is the directory of an id index: first[b] is the first row whose
// id's leading bits (id >> shift) are b or more; first[len-1] is the
// number of rows.
type idDir struct {
	shift uint
	first []uint32
}

// lazyIDDir builds a segment's directory once.
type lazyIDDir struct {
	once sync.Once
	dir  idDir
}

// of returns the directory of id index x of n rows, building it first.
func (l *lazyIDDir) of(x []byte, n int) *idDir {
	l.once.Do(func() { l.dir = buildIDDir(x, n) })
	return &l.dir
}

// buildIDDir returns the directory of id index x of n rows: a power of two
// of buckets, about one for two rows.
func buildIDDir(x []byte, n int) idDir {
	lg := bits.Len(uint(n / 2)) // 2^lg buckets
	d := idDir{shift: uint(64 - lg), first: make([]uint32, 1<<lg+1)}
	b := 0
	for i := range n {
		top := int(le.Uint64(x[i*idRowSize:]) >> d.shift)
		for ; b <= top; b++ {
			d.first[b] = uint32(i)
		}
	}
	for ; b < len(d.first); b++ {
		d.first[b] = uint32(n)
	}
	return d
}

// find returns the first of the n rows of id index x whose id is at least
// id.
func (d *idDir) find(x []byte, n int, id uint64) int {
	b := id >> d.shift // 0 with one bucket (a shift by 64)
	lo, hi := int(d.first[b]), int(d.first[b+1])
	if lo > hi || hi > n {
		return sort.Search(n, func(i int) bool { return le.Uint64(x[i*idRowSize:]) >= id })
	}
	// Rows of later buckets hold greater ids: if no row of the bucket is
	// at least id, the next row is the first that is. A bucket holds a
	// row or two unless the ids are not hashes.
	if hi-lo > 4 {
		return lo + sort.Search(hi-lo, func(i int) bool { return le.Uint64(x[(lo+i)*idRowSize:]) >= id })
	}
	for lo < hi && le.Uint64(x[lo*idRowSize:]) < id {
		lo++
	}
	return lo
}
