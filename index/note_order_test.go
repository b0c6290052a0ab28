package index

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestPrefixOrderIsStringOrder: ordering by prefix8, then by text, is the
// order of strings.Compare, for texts sharing long prefixes, shorter than
// eight bytes, holding zero bytes and non-ASCII; and so is sortTerms's.
func TestPrefixOrderIsStringOrder(t *testing.T) {
	alphabet := []string{"a", "b", "z", "\x00", "\xff", "é", "ab", "abcdefgh"}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 200 {
		var texts []string
		for range 1 + rng.IntN(60) {
			var sb strings.Builder
			for range rng.IntN(6) {
				sb.WriteString(alphabet[rng.IntN(len(alphabet))])
			}
			texts = append(texts, sb.String())
		}
		got := slices.Clone(texts)
		slices.SortFunc(got, func(x, y string) int {
			if px, py := prefix8(x), prefix8(y); px != py {
				return cmp.Compare(px, py)
			}
			return strings.Compare(x, y)
		})
		want := slices.Clone(texts)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("prefix order %q, string order %q", got, want)
		}
		// sortTerms, on the distinct texts as a note has them.
		distinct := slices.Compact(slices.Clone(want))
		rng.Shuffle(len(distinct), func(i, j int) { distinct[i], distinct[j] = distinct[j], distinct[i] })
		var order []termOrder
		for i, s := range distinct {
			order = append(order, termOrder{prefix8(s), int32(i)})
		}
		var sorted []string
		for _, o := range sortTerms(make([]termOrder, len(order)), order, distinct) {
			sorted = append(sorted, distinct[o.term])
		}
		if want := slices.Compact(want); !slices.Equal(sorted, want) {
			t.Fatalf("sortTerms %q, string order %q", sorted, want)
		}
	}
}
