package segment

// Pruned returns q set to be scored note by note with MaxScore pruning (the
// benchmarks compare it with the default, word by word).
func Pruned(q Query) Query {
	q.prune = true
	return q
}
