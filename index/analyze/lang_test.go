package analyze

import (
	"errors"
	"reflect"
	"testing"
)

func TestParseLang(t *testing.T) {
	for in, want := range map[string]Lang{"en": English, "English": English, " FR ": French, "es": Spanish,
		"ru": Russian, "sv": Swedish, "no": Norwegian, "nb": Norwegian, "hu": Hungarian, "none": None} {
		got, err := ParseLang(in)
		if err != nil || got != want {
			t.Errorf("ParseLang(%q) = %v, %v; want %v", in, got, err, want)
		}
		if back, err := ParseLang(got.String()); err != nil || back != got {
			t.Errorf("round trip of %v: %v, %v", got, back, err)
		}
	}
	for _, bad := range []string{"", "de", "german", "x"} {
		if _, err := ParseLang(bad); !errors.Is(err, ErrUnknownLang) {
			t.Errorf("ParseLang(%q) error %v", bad, err)
		}
	}
	if len(Langs()) != int(numLangs) || Langs()[len(Langs())-1] != None {
		t.Fatalf("Langs() = %v", Langs())
	}
}

func TestLanguageAnalysis(t *testing.T) {
	tests := []struct {
		lang Lang
		in   string
		want []string
	}{
		{English, "the gardens were blooming", []string{"garden", "bloom"}},
		{French, "les étudiants développent des applications", []string{"etudi", "developpent", "appliqu"}},
		{Spanish, "las canciones de los niños", []string{"cancion", "nin"}},
		{Russian, "красивые ёлки в лесу", []string{"красив", "елк", "лес"}},
		{Swedish, "vi läser böckerna och skriver", []string{"las", "bock", "skriv"}},
		{Norwegian, "jeg leser bøkene og skriver", []string{"les", "bok", "skriv"}},
		{Hungarian, "a könyvek és a házak", []string{"konyv", "haz"}},
		{None, "The gardens were blooming", []string{"the", "gardens", "were", "blooming"}},
	}
	a := New()
	for _, tt := range tests {
		if got := terms(a, tt.in, tt.lang); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %q → %q, want %q", tt.lang, tt.in, got, tt.want)
		}
	}
}

// TestStemFirstFolding: languages that stem before folding still match a
// word written without its accents when the stem does not hang on them.
func TestStemFirstFolding(t *testing.T) {
	words := map[Lang][]string{
		French:    {"café", "élève", "étudiants", "développement", "intéressant", "forêt", "réunion", "théâtre"},
		Spanish:   {"canción", "canciones", "árboles", "periódico", "música", "niño", "corazón", "rápido"},
		Swedish:   {"vägen", "mål", "björnar", "länder", "sjön", "köket"},
		Norwegian: {"kjære", "været", "møtet", "bøkene", "særlig", "løsninger"},
		Hungarian: {"könyvek", "szép", "házak", "kérdés", "ország", "város"},
		Russian:   {"ёлка", "тёмный", "шёлк"},
	}
	a := New()
	for l, ws := range words {
		for _, w := range ws {
			x, y := terms(a, w, l), terms(a, fold(w), l)
			if len(x) != 1 || !reflect.DeepEqual(x, y) {
				t.Errorf("%s: %q → %q but %q → %q", l, w, x, fold(w), y)
			}
		}
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		want Lang
		text string
	}{
		{English, "The backup runs every night and keeps the last thirty snapshots of the pool, which is enough for most of the things we need to restore."},
		{French, "La sauvegarde tourne chaque nuit et garde les trente derniers instantanés du pool, ce qui suffit pour la plupart des choses que nous devons restaurer."},
		{Spanish, "La copia de seguridad se ejecuta cada noche y guarda las últimas treinta instantáneas del grupo, lo que basta para la mayoría de las cosas que necesitamos restaurar."},
		{Russian, "Резервное копирование запускается каждую ночь и хранит последние тридцать снимков, чего хватает для большинства вещей, которые нам нужно восстановить."},
		{Swedish, "Säkerhetskopieringen körs varje natt och sparar de senaste trettio ögonblicksbilderna, vilket räcker för det mesta som vi behöver återställa."},
		{Norwegian, "Sikkerhetskopien kjøres hver natt og tar vare på de siste tretti øyeblikksbildene, noe som er nok for det meste av det vi trenger å gjenopprette."},
		{Hungarian, "A biztonsági mentés minden éjjel lefut, és megtartja az utolsó harminc pillanatképet, ami elég a legtöbb dologhoz, amit vissza kell állítanunk."},
		{None, "東京タワーは東京都港区芝公園にある電波塔です。高さは333メートルです。"},
		{None, "서울은 대한민국의 수도이며 가장 큰 도시입니다."},
		{English, ""},
		{English, "zpool scrub tank"}, // no stop words: unsure
		{English, "Kubernetes, Docker, Terraform, Ansible, Nix"}, // no stop words: unsure
		{English, "See the café on the Champs-Élysées for a croissant and a crème brûlée."},
	}
	for _, tt := range tests {
		if got := Detect(tt.text); got != tt.want {
			t.Errorf("Detect(%.40q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func TestQueryVariants(t *testing.T) {
	a := New()
	got := a.Query("Les étudiants running the café", English, French)
	type v struct {
		pos  int
		src  string
		vars []string
	}
	q := "Les étudiants running the café"
	var have []v
	for _, qt := range got {
		have = append(have, v{qt.Pos, q[qt.Start:qt.End], qt.Variants})
	}
	want := []v{
		{0, "Les", []string{"les"}}, // not an English stop word; a French one
		{1, "étudiants", []string{"etudi"}},
		{2, "running", []string{"run", "running"}},
		{4, "café", []string{"cafe", "caf"}}, // "the" (3) is an English stop word and no French word at all
	}
	// "the" is not a French stop word, so French keeps it.
	want = append(want[:3], v{3, "the", []string{"the"}}, want[3])
	if !reflect.DeepEqual(have, want) {
		t.Fatalf("got  %v\nwant %v", have, want)
	}
	// One language: the variants are exactly Analyze's terms, same positions.
	for _, l := range Langs() {
		text := "東京タワー and the gardens of München"
		qs := a.Query(text, l)
		ts := tokens(a, text, l)
		if len(qs) != len(ts) {
			t.Fatalf("%s: %d query terms, %d tokens", l, len(qs), len(ts))
		}
		for i := range qs {
			if qs[i].Pos != ts[i].Pos || qs[i].Start != ts[i].Start || !reflect.DeepEqual(qs[i].Variants, []string{ts[i].Term}) {
				t.Fatalf("%s: query term %+v, token %+v", l, qs[i], ts[i])
			}
		}
	}
	if qs := a.Query("running"); len(qs) != 1 || !reflect.DeepEqual(qs[0].Variants, []string{"run"}) {
		t.Fatalf("default language: %+v", qs)
	}
}
