package query

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func TestParsePlan(t *testing.T) {
	tests := []struct {
		name string
		q    string
		want Plan
	}{
		{"empty", "", Plan{}},
		{"blank", " \t\n ", Plan{}},
		{"plain words", "  restic   retention\tpolicy ", Plan{Text: "restic retention policy"}},
		{"phrase", `how "retention policy" works`, Plan{Text: "how retention policy works", Phrases: []string{"retention policy"}}},
		{"phrase whitespace collapsed", `"  keep   daily "`, Plan{Text: "keep daily", Phrases: []string{"keep daily"}}},
		{"empty phrase dropped", `a "" b`, Plan{Text: "a b"}},
		{"curly phrase", `“keep daily” snapshots`, Plan{Text: "keep daily snapshots", Phrases: []string{"keep daily"}}},
		{"repeated phrase kept once", `"a b" "a b"`, Plan{Text: "a b a b", Phrases: []string{"a b"}}},
		{"filter inside phrase is text", `"path:x #tag"`, Plan{Text: "path:x #tag", Phrases: []string{"path:x #tag"}}},
		{"word glued to phrase end", `"a b"c`, Plan{Text: "a b c", Phrases: []string{"a b"}}},
		{"unbalanced quote", `restic "keep daily`, Plan{Text: "restic keep daily",
			Problems: []string{`"keep daily: unclosed quote, read as plain words`}}},
		{"unbalanced quote then filter", `"keep path:notes/`, Plan{Text: "keep", Paths: []string{"notes/"},
			Problems: []string{`"keep path:notes/: unclosed quote, read as plain words`}}},
		{"quote inside word is text", `foo"bar`, Plan{Text: `foo"bar`}},

		{"path", "backups path:homelab/", Plan{Text: "backups", Paths: []string{"homelab/"}}},
		{"path quoted", `path:"Daily Notes/" standup`, Plan{Text: "standup", Paths: []string{"Daily Notes/"}}},
		{"path partly quoted", `path:"My Notes"/2024`, Plan{Paths: []string{"My Notes/2024"}}},
		{"path leading slash and dot", "path:/a/ path:./b", Plan{Paths: []string{"a/", "b"}}},
		{"paths OR, deduplicated", "path:a/ path:b/ path:a/", Plan{Paths: []string{"a/", "b/"}}},
		{"uppercase key", "PATH:Projects/ Vault:Work", Plan{Paths: []string{"Projects/"}, Vaults: []string{"Work"}}},
		{"path empty value", "path: notes", Plan{Text: "path: notes", Problems: []string{"path:: empty value"}}},
		{"path empty quoted", `path:"" x`, Plan{Text: `path:"" x`, Problems: []string{`path:"": empty value`}}},
		{"path root", "path:/ x", Plan{Text: "path:/ x", Problems: []string{"path:/: empty path (the whole vault needs no filter)"}}},
		{"path escapes", "path:a/../../b", Plan{Text: "path:a/../../b", Problems: []string{`path:a/../../b: path must stay inside the vault (no "..")`}}},
		{"path unclosed quote", `path:"Daily Notes`, Plan{Text: `path:"Daily Notes`, Problems: []string{`path:"Daily: unclosed quote`}}},
		{"unicode path", "path:Notizen/Über/ Grüße", Plan{Text: "Grüße", Paths: []string{"Notizen/Über/"}}},

		{"vaults", "vault:notes vault:work vault:notes", Plan{Vaults: []string{"notes", "work"}}},

		{"hash tag", "#Homelab backups #projects/ragd", Plan{Text: "backups", Tags: []string{"homelab", "projects/ragd"}}},
		{"tag filter", "tag:Todo tag:#done", Plan{Tags: []string{"todo", "done"}}},
		{"tag dedupe across forms", "#todo tag:TODO", Plan{Tags: []string{"todo"}}},
		{"tag trailing punctuation", "#todo, #a/b/.", Plan{Tags: []string{"todo", "a/b"}}},
		{"tag with text after", "#todo's", Plan{Text: "'s", Tags: []string{"todo"}}},
		{"unicode tag", "#Ärger #日本語", Plan{Tags: []string{"ärger", "日本語"}}},
		{"not tags", "#1 C# issue#4 https://x.org/page#anchor ## #", Plan{Text: "#1 C# issue#4 https://x.org/page#anchor ## #"}},
		{"tag filter invalid", "tag:2024 tag:", Plan{Text: "tag:2024 tag:",
			Problems: []string{"tag:2024: " + tagWant, "tag:: empty value"}}},

		{"unknown keys stay text", "http://x.org 10:30 re:something foo: C:", Plan{Text: "http://x.org 10:30 re:something foo: C:"}},
		{"filter not at word start", "(path:x) xpath:y", Plan{Text: "(path:x) xpath:y"}},

		{"after day", "after:2024-01-31", Plan{After: day(2024, 1, 31)}},
		{"after month", "after:2024-01", Plan{After: day(2024, 1, 1)}},
		{"after year", "after:2024", Plan{After: day(2024, 1, 1)}},
		{"before month", "before:2024-03 x", Plan{Text: "x", Before: day(2024, 3, 1)}},
		{"range", "AFTER:2024 before:2025", Plan{After: day(2024, 1, 1), Before: day(2025, 1, 1)}},
		{"repeated dates narrow", "after:2023 after:2024-06 after:2024 before:2026 before:2025-02 before:2025-03",
			Plan{After: day(2024, 6, 1), Before: day(2025, 2, 1)}},
		{"empty date range", "after:2025 before:2024", Plan{After: day(2025, 1, 1), Before: day(2024, 1, 1),
			Problems: []string{"after:2025 before:2024: empty date range"}}},
		{"bad date", "after:yesterdayish notes", Plan{Text: "after:yesterdayish notes",
			Problems: []string{"after:yesterdayish: " + dateWant}}},
		{"bad dates", "before:2024-02-30 after:2024-1-5 after:20240105 before:2024-13", Plan{
			Text: "before:2024-02-30 after:2024-1-5 after:20240105 before:2024-13",
			Problems: []string{"before:2024-02-30: " + dateWant, "after:2024-1-5: " + dateWant,
				"after:20240105: " + dateWant, "before:2024-13: " + dateWant}}},
		{"quoted date", `after:"2024-05"`, Plan{After: day(2024, 5, 1)}},

		{"mode", "mode:Vector restic", Plan{Text: "restic", Mode: "vector"}},
		{"mode bad", "mode:fast", Plan{Text: "mode:fast", Problems: []string{"mode:fast: " + modeWant}}},
		{"mode repeated", "mode:lexical mode:hybrid mode:hybrid", Plan{Mode: "hybrid",
			Problems: []string{"mode:hybrid: overrides mode:lexical"}}},

		{"only filters", "path:a/ vault:v #t after:2024 mode:lexical", Plan{Paths: []string{"a/"}, Vaults: []string{"v"},
			Tags: []string{"t"}, After: day(2024, 1, 1), Mode: "lexical"}},
		{"everything", `vault:notes "retention policy" for #restic path:"home lab/" since before:2025-01-01 mode:hybrid`, Plan{
			Text: "retention policy for since", Phrases: []string{"retention policy"}, Paths: []string{"home lab/"},
			Vaults: []string{"notes"}, Tags: []string{"restic"}, Before: day(2025, 1, 1), Mode: "hybrid"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ParsePlanIn(tc.q, time.UTC)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ParsePlanIn(%q)\n got %#v\nwant %#v", tc.q, got, tc.want)
			}
		})
	}
}

func TestParsePlanTimeZone(t *testing.T) {
	loc := time.FixedZone("UTC+2", 2*3600)
	p := ParsePlanIn("after:2024-05-06 before:2024-06", loc)
	if want := time.Date(2024, 5, 6, 0, 0, 0, 0, loc); !p.After.Equal(want) {
		t.Errorf("After = %v, want %v", p.After, want)
	}
	if want := time.Date(2024, 5, 31, 22, 0, 0, 0, time.UTC); !p.Before.Equal(want) {
		t.Errorf("Before = %v, want %v", p.Before, want)
	}
	if got := ParsePlanIn("after:2024", nil).After; !got.Equal(day(2024, 1, 1)) || got.Location() != time.UTC {
		t.Errorf("nil location: After = %v, want 2024-01-01 UTC", got)
	}
	if got, want := ParsePlan("after:2024").After, time.Date(2024, 1, 1, 0, 0, 0, 0, time.Local); !got.Equal(want) {
		t.Errorf("ParsePlan uses local time: After = %v, want %v", got, want)
	}
}

func TestPlanInDateRange(t *testing.T) {
	p := ParsePlanIn("after:2024-01 before:2024-02", time.UTC)
	for _, tc := range []struct {
		t    time.Time
		want bool
	}{
		{day(2023, 12, 31), false},
		{day(2024, 1, 1), true}, // after: includes the start of its period
		{day(2024, 1, 31).Add(23 * time.Hour), true},
		{day(2024, 2, 1).Add(-time.Nanosecond), true},
		{day(2024, 2, 1), false}, // before: excludes the start of its period
	} {
		if got := p.InDateRange(tc.t); got != tc.want {
			t.Errorf("InDateRange(%v) = %v, want %v", tc.t, got, tc.want)
		}
	}
	if !(Plan{}).InDateRange(time.Time{}) {
		t.Error("a plan without dates must keep everything")
	}
}

// TestParsePlanNeverLosesWords checks, over odd inputs, that parsing never
// panics, that Text never holds a recognised filter and that every plain
// word of the query survives in Text.
func TestParsePlanNeverLosesWords(t *testing.T) {
	for _, q := range []string{
		`"`, `“`, `”`, `#`, `:`, `path:`, `path:"`, `"path:"`, `a"b"c`, `#ä`, "\u00a0path:x\u00a0y",
		"é \"ü", `tag:"#a b"`, `vault:"a"b"c`, "mode:", "\xff path:\xfe",
	} {
		p := ParsePlanIn(q, time.UTC)
		for _, w := range []string{"y", "é", "ü"} {
			if containsWord(q, w) && !containsWord(p.Text, w) {
				t.Errorf("ParsePlanIn(%q).Text = %q lost %q", q, p.Text, w)
			}
		}
	}
}

func containsWord(s, w string) bool {
	for _, f := range splitFields(s) {
		if f == w {
			return true
		}
	}
	return false
}

func splitFields(s string) []string {
	var out []string
	start := -1
	for i, r := range s {
		sp := r == ' ' || r == '\t' || r == '\n' || r == '\u00a0' || r == '"'
		if sp && start >= 0 {
			out = append(out, s[start:i])
			start = -1
		} else if !sp && start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// FuzzParsePlan checks invariants that hold for any query: no panic, Text
// normalised, every phrase in Text, tags lower-cased, paths relative.
func FuzzParsePlan(f *testing.F) {
	for _, q := range []string{`"a b" path:"c d/" #e tag:f after:2024 before:2025-01-02 mode:vector vault:v`,
		`"`, `path:"`, "#\u0301", "#a\u0301", `“x” “y`, "AFTER:2024-02-29 before:2023-02-29"} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		p := ParsePlanIn(q, time.UTC)
		if p.Text != strings.Join(strings.Fields(p.Text), " ") && !strings.ContainsAny(p.Text, "\"“") {
			t.Errorf("Text %q is not normalised", p.Text)
		}
		for _, ph := range p.Phrases {
			if ph == "" || !strings.Contains(p.Text, ph) {
				t.Errorf("phrase %q missing from Text %q", ph, p.Text)
			}
		}
		for _, tag := range p.Tags {
			if tag == "" || tag != strings.ToLower(tag) || strings.HasPrefix(tag, "#") {
				t.Errorf("tag %q", tag)
			}
		}
		for _, path := range p.Paths {
			if path == "" || strings.HasPrefix(path, "/") {
				t.Errorf("path %q", path)
			}
		}
		if p.Mode != "" && p.Mode != "lexical" && p.Mode != "vector" && p.Mode != "hybrid" {
			t.Errorf("mode %q", p.Mode)
		}
	})
}
