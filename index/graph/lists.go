package graph

// pair is the key of a list: a vault's symbol and a name's.
func pair(vault, key uint32) uint64 { return uint64(vault)<<32 | uint64(key) }

func pairVault(k uint64) uint32 { return uint32(k >> 32) }
func pairKey(k uint64) uint32   { return uint32(k) }

// span is a list's place in its arena.
type span struct{ off, n, cap uint32 }

// lists is a multimap from a pair to a list of pointer-free values kept in
// insertion order, all lists in one arena: the adjacency of the graph
// (incoming edges per target, notes per name, entities per stem, facts per
// entity) without a slice header, a pointer or a map per key. A list that
// outgrows its room moves to the arena's end with twice the room; the
// arena is copied without the rooms left behind when they are more than
// half of it.
type lists[T comparable] struct {
	idx  map[uint64]span
	data []T
	dead int // values' room no list uses
}

func newLists[T comparable]() lists[T] { return lists[T]{idx: make(map[uint64]span)} }

// get returns the list of k, which the caller may read until the next
// change.
func (l *lists[T]) get(k uint64) []T {
	s, ok := l.idx[k]
	if !ok {
		return nil
	}
	return l.data[s.off : s.off+s.n : s.off+s.n]
}

// count is the length of the list of k.
func (l *lists[T]) count(k uint64) int { return int(l.idx[k].n) }

// add appends v to the list of k.
func (l *lists[T]) add(k uint64, v T) {
	s, ok := l.idx[k]
	switch {
	case ok && s.n < s.cap:
	case ok && int(s.off+s.cap) == len(l.data):
		// the last list grows in place
		l.data = extend(l.data, int(s.cap))
		s.cap *= 2
	default:
		c := max(1, 2*s.cap)
		off := uint32(len(l.data))
		l.data = extend(l.data, int(c))
		copy(l.data[off:], l.data[s.off:s.off+s.n])
		l.dead += int(s.cap)
		s.off, s.cap = off, c
	}
	l.data[s.off+s.n] = v
	s.n++
	l.idx[k] = s
	l.tidy()
}

// removeFunc drops the values of k's list that drop reports, keeping the
// others' order, and the list when it is left empty. It returns how many
// are left.
func (l *lists[T]) removeFunc(k uint64, drop func(T) bool) int {
	s, ok := l.idx[k]
	if !ok {
		return 0
	}
	vs := l.data[s.off : s.off+s.n]
	n := 0
	for _, v := range vs {
		if !drop(v) {
			vs[n] = v
			n++
		}
	}
	clear(vs[n:])
	s.n = uint32(n)
	if n == 0 {
		delete(l.idx, k)
		l.dead += int(s.cap)
	} else {
		l.idx[k] = s
	}
	l.tidy()
	return n
}

// contains reports whether k's list holds v.
func (l *lists[T]) contains(k uint64, v T) bool {
	for _, x := range l.get(k) {
		if x == v {
			return true
		}
	}
	return false
}

// tidy copies the arena without dead room once that is over half of it.
func (l *lists[T]) tidy() {
	if l.dead < 1024 || 2*l.dead < len(l.data) {
		return
	}
	l.trim()
}

// trim copies the arena with every list's room cut to its length, and
// room for an eighth more values at its end.
func (l *lists[T]) trim() {
	n := len(l.data) - l.dead
	for _, s := range l.idx {
		n -= int(s.cap - s.n)
	}
	data := make([]T, 0, room(n))
	for k, s := range l.idx {
		off := uint32(len(data))
		data = append(data, l.data[s.off:s.off+s.n]...)
		l.idx[k] = span{off: off, n: s.n, cap: s.n}
	}
	l.data, l.dead = data, 0
}
