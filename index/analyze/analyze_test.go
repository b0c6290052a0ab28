package analyze

import (
	"reflect"
	"testing"
)

func TestTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Hello, World!", []string{"hello", "world"}},
		{"don't stop", []string{"dont", "stop"}},
		{"it’s fine", []string{"its", "fine"}},
		{"ZFS pool: zpool-scrub 2024", []string{"zfs", "pool", "zpool", "scrub", "2024"}},
		{"Café Ünïcode", []string{"café", "ünïcode"}},
		{"東京タワー visit", []string{"東", "京", "タ", "ワ", "ー", "visit"}},
		{"'quoted'", []string{"quoted"}},
		{"[[Wiki Link|alias]] #tag/nested", []string{"wiki", "link", "alias", "tag", "nested"}},
		{"", nil},
	}
	for _, tt := range tests {
		var got []string
		Tokens(tt.in, func(s string) { got = append(got, s) })
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Tokens(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTokensDropsOverlongRuns(t *testing.T) {
	long := "a"
	for len(long) < 200 {
		long += "b"
	}
	var got []string
	Tokens("x "+long+" y", func(s string) { got = append(got, s) })
	if !reflect.DeepEqual(got, []string{"x", "y"}) {
		t.Fatalf("got %q", got)
	}
}

func TestTerms(t *testing.T) {
	a := New()
	got := a.AppendTerms(nil, "The runners were running quickly through the gardens")
	want := []string{"runner", "run", "quick", "garden"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	// Memoised path gives the same answer.
	if again := a.AppendTerms(nil, "running gardens"); !reflect.DeepEqual(again, []string{"run", "garden"}) {
		t.Fatalf("memo: got %q", again)
	}
}

func BenchmarkTerms(b *testing.B) {
	text := "Alterations of the architecture of cerebral white matter in the developing human brain can affect cortical development and result in functional disabilities."
	a := New()
	b.SetBytes(int64(len(text)))
	for i := 0; i < b.N; i++ {
		a.Terms(text, func(string) {})
	}
}
