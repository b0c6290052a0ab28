package index

import (
	"sync/atomic"
	"time"
)

// anchorWarmQuiet is how long the index goes without a change before the
// link target keys of its lexical segments are warmed (a variable for the
// tests).
var anchorWarmQuiet = time.Second

// warmHook, if set (by tests), is told after each warm whether it went
// through every segment.
var warmHook atomic.Pointer[func(done bool)]

// kickWarm asks for the link target keys to be warmed once the index has
// been quiet for anchorWarmQuiet.
func (s *Store) kickWarm() {
	select {
	case s.warm <- struct{}{}:
	default:
	}
}

// warmAnchors, until Close, resolves the lexical segments' link target
// keys after each quiet spell that follows a change
// (segment.View.WarmAnchors): the first search for a common word then
// finds them ready instead of resolving tens of thousands of them. A
// change or a new generation of the graph's names stops a warm under way;
// the next quiet spell starts again.
func (s *Store) warmAnchors() {
	defer s.gcDone.Done()
	for {
		select {
		case <-s.stopGC:
			return
		case <-s.warm:
		}
		if !s.quiet() {
			return
		}
		v := s.lex.View()
		gen := s.resolveGen()
		start := time.Now()
		done := v.WarmAnchors(s.resolveAnchor, gen, func() bool {
			return s.closed.Load() || len(s.warm) > 0 || s.resolveGen() != gen
		})
		v.Release()
		s.log.Debug("anchor keys warmed", "through", done, "took", time.Since(start))
		if h := warmHook.Load(); h != nil {
			(*h)(done)
		}
	}
}

// quiet waits until no change has come for anchorWarmQuiet; false when the
// store closes first.
func (s *Store) quiet() bool {
	t := time.NewTimer(anchorWarmQuiet)
	defer t.Stop()
	for {
		select {
		case <-s.stopGC:
			return false
		case <-s.warm:
			t.Reset(anchorWarmQuiet)
		case <-t.C:
			return true
		}
	}
}
