package query

import "testing"

func TestKeywordShaped(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want bool
	}{
		{"excalidraw plugin", true},
		{"sync version history retention", true},
		{"espresso", true},
		{"history of obsidian", true},  // one function word
		{"canvas of the vault", false}, // two
		{"how do I export a note to pdf", false},
		{"which page embeds the lucide credits", false},
		{"daily notes?", false}, // a question mark
		{"open a surprise note from my vault to rediscover old ideas", false},
		{"one two three four five", false}, // more than four words
		{"東京タワー", true},
		{"", false},
	} {
		if got := keywordShaped(tc.q); got != tc.want {
			t.Errorf("keywordShaped(%q) = %v, want %v", tc.q, got, tc.want)
		}
	}
}
