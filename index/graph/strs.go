package graph

import (
	"hash/maphash"
	"unsafe"
)

// symtab interns the graph's strings (names, paths, titles, link targets,
// raw targets, headings, stems, …) into dense uint32 symbols, the way a
// search engine's term dictionary does: every string's bytes in one arena,
// an offset per symbol, and an open-addressing hash table of symbols. None
// of it holds a pointer, so the collector never scans it, and a string
// used by many relations is stored once. Symbol 0 is "". Symbols are never
// removed: the graph is rebuilt when too many are dead (Graph.compact).
type symtab struct {
	data  []byte   // every symbol's bytes
	offs  []uint32 // symbol i is data[offs[i]:offs[i+1]]
	slots []uint32 // symbol+1 per slot, 0 when empty; a power of two long
	seed  maphash.Seed
}

func newSymtab() symtab {
	t := symtab{offs: []uint32{0, 0}, slots: make([]uint32, 64), seed: maphash.MakeSeed()}
	return t
}

// len is the number of symbols, "" included.
func (t *symtab) len() int { return len(t.offs) - 1 }

// str returns symbol id's string without copying: the arena's bytes are
// never changed once written (it only grows, and a compaction builds a new
// one), so the string stays valid however the table changes.
func (t *symtab) str(id uint32) string {
	a, b := t.offs[id], t.offs[id+1]
	if a == b {
		return ""
	}
	return unsafe.String(&t.data[a], int(b-a))
}

// find returns the slot of s: the slot holding its symbol, or the empty
// slot where it would go.
func (t *symtab) find(s string) int {
	mask := len(t.slots) - 1
	i := int(maphash.String(t.seed, s)) & mask
	for {
		v := t.slots[i]
		if v == 0 || t.str(v-1) == s {
			return i
		}
		i = (i + 1) & mask
	}
}

// lookup returns the symbol of s, if s has one.
func (t *symtab) lookup(s string) (uint32, bool) {
	if s == "" {
		return 0, true
	}
	v := t.slots[t.find(s)]
	return v - 1, v != 0
}

// intern returns the symbol of s, giving it one if it has none.
func (t *symtab) intern(s string) uint32 {
	if s == "" {
		return 0
	}
	i := t.find(s)
	if v := t.slots[i]; v != 0 {
		return v - 1
	}
	id := uint32(t.len())
	t.data = append(grow(t.data, len(s)), s...)
	t.offs = append(grow(t.offs, 1), uint32(len(t.data)))
	t.slots[i] = id + 1
	if 2*t.len() > len(t.slots) {
		t.grow()
	}
	return id
}

// grow doubles the hash table.
func (t *symtab) grow() {
	t.slots = make([]uint32, 2*len(t.slots))
	for id := 1; id < t.len(); id++ {
		i := t.find(t.str(uint32(id)))
		t.slots[i] = uint32(id) + 1
	}
}
