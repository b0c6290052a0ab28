package index

import "slices"

// unhash drops slot s from the hash → slots map. Callers hold mu.
func (m *memIndex) unhash(s uint32) {
	h := m.slots[s].hash
	ss := m.byHash[h]
	if i := slices.Index(ss, s); i >= 0 {
		ss = slices.Delete(ss, i, i+1)
	}
	if len(ss) == 0 {
		delete(m.byHash, h)
		return
	}
	m.byHash[h] = ss
}
