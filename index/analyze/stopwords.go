package analyze

// frenchExtra are French stop words missing from the Snowball package's
// list ("les" is the most frequent word of French text).
func frenchExtra(w string) bool { return w == "les" || w == "ils" }

// norwegianStopWord reports whether w is in the Snowball Norwegian stop
// list (bokmål and nynorsk function words). The snowball package's own
// Norwegian list is a different one that drops content words such as
// "tid", "navn" and "arbeid", which a search index must keep.
func norwegianStopWord(w string) bool {
	switch w {
	case "og", "i", "jeg", "det", "at", "en", "et", "den", "til", "er", "som", "på", "de", "med",
		"han", "av", "ikke", "ikkje", "der", "så", "var", "meg", "seg", "men", "ett", "har", "om",
		"vi", "min", "mitt", "ha", "hadde", "hun", "nå", "over", "da", "ved", "fra", "du", "ut",
		"sin", "dem", "oss", "opp", "man", "kan", "hans", "hvor", "eller", "hva", "skal", "selv",
		"sjøl", "her", "alle", "vil", "bli", "ble", "blei", "blitt", "kunne", "inn", "når", "være",
		"kom", "noen", "noe", "ville", "dere", "deres", "kun", "ja", "etter", "ned", "skulle",
		"denne", "for", "deg", "si", "sine", "sitt", "mot", "å", "meget", "hvorfor", "dette",
		"disse", "uten", "hvordan", "ingen", "din", "ditt", "blir", "samme", "hvilken", "hvilke",
		"sånn", "inni", "mellom", "vår", "hver", "hvem", "vors", "hvis", "både", "bare", "enn",
		"fordi", "før", "mange", "også", "slik", "vært", "båe", "begge", "siden", "dykk",
		"dykkar", "dei", "deira", "deires", "deim", "di", "då", "eg", "ein", "eit", "eitt", "elles",
		"honom", "hjå", "ho", "hoe", "henne", "hennar", "hennes", "hoss", "hossen", "ingi", "inkje",
		"korleis", "korso", "kva", "kvar", "kvarhelst", "kven", "kvi", "kvifor", "me", "medan",
		"mi", "mine", "mykje", "no", "nokon", "noka", "nokor", "noko", "nokre", "sia", "sidan",
		"so", "somt", "somme", "um", "upp", "vere", "vore", "verte", "vort", "varte", "vart":
		return true
	}
	return false
}
