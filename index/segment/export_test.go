package segment

// SearchWordByWord is Search with the word-by-word scorer the streaming
// one replaced (taat_test.go): the benchmarks and tests compare the two.
func (v *View) SearchWordByWord(q Query, p Params) []NoteHit {
	return v.search(q, p, (*searcher).scoreSegmentTAAT)
}
