package graph

// SetCompactAfter has the graph compacted after n removals (and more than
// it holds) until restore is called.
func SetCompactAfter(n int) (restore func()) {
	old := compactAfter
	compactAfter = n
	return func() { compactAfter = old }
}

// Compactions counts the graph's compactions.
func (g *Graph) Compactions() int { return g.compactions }
