package scripture

import (
	"sort"
	"strings"
)

// bibleTranslation is one translation bible-api.com serves (its /data list, checked by the
// service's own data_api_spec.rb in seven1m/bible_api).
type bibleTranslation struct {
	Code     string // bible-api.com identifier, lower case
	Name     string
	Language string
	NTOnly   bool
}

var bibleTranslations = []bibleTranslation{
	{"cherokee", "Cherokee New Testament", "Cherokee", true},
	{"cuv", "Chinese Union Version", "Chinese", false},
	{"bkr", "Bible kralická", "Czech", false},
	{"asv", "American Standard Version (1901)", "English", false},
	{"bbe", "Bible in Basic English", "English", false},
	{"darby", "Darby Bible", "English", false},
	{"dra", "Douay-Rheims 1899 American Edition", "English", false},
	{"kjv", "King James Version", "English", false},
	{"web", "World English Bible", "English", false},
	{"ylt", "Young's Literal Translation (NT only)", "English", false}, // name as the service lists it; it serves 66 books
	{"oeb-cw", "Open English Bible, Commonwealth Edition", "English (UK)", false},
	{"webbe", "World English Bible, British Edition", "English (UK)", false},
	{"oeb-us", "Open English Bible, US Edition", "English (US)", false},
	{"clementine", "Clementine Latin Vulgate", "Latin", false},
	{"almeida", "João Ferreira de Almeida", "Portuguese", false},
	{"rccv", "Protestant Romanian Corrected Cornilescu Version", "Romanian", false},
	{"synodal", "Russian Synodal Translation", "Russian", false},
	{"bes", "La Biblia en Español Sencillo", "Spanish", false},
	{"pddpt", "Palabra de Dios para ti / God's Word for You", "Spanish", false},
	{"rv1909", "Reina Valera 1909", "Spanish", false},
	{"vbl", "Versión Biblia Libre / Spanish Free Bible Version", "Spanish", false},
}

var bibleTranslationByCode = func() map[string]bibleTranslation {
	m := make(map[string]bibleTranslation, len(bibleTranslations))
	for _, t := range bibleTranslations {
		m[t.Code] = t
	}
	return m
}()

// apiBibleIDs maps the bible-api.com translations that API.Bible also publishes (public domain
// texts available to a free API.Bible key) to API.Bible's Bible ids. Phrase search needs one of
// them. The ids were taken from API.Bible client code and fixtures on GitHub (the KJV id
// de4e12af7f28f599-02 from a recorded /v1/bibles answer); API.Bible's own Bible list needs a key
// and could not be read, so the others are not confirmed from an official page.
var apiBibleIDs = map[string]string{
	"kjv":   "de4e12af7f28f599-02", // King James (Authorised) Version
	"asv":   "06125adad2d5898a-01", // The Holy Bible, American Standard Version
	"web":   "9879dbb7cfe39e4d-04", // World English Bible
	"webbe": "7142879509583d59-04", // World English Bible, British Edition
	"dra":   "179568874c45066f-01", // Douay-Rheims American 1899
}

// bibleCode normalizes a translation as a caller writes it ("KJV", " oeb-CW ") to bible-api.com's
// identifier.
func bibleCode(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// bibleLabel is the translation as records show it ("KJV", "OEB-CW").
func bibleLabel(code string) string { return strings.ToUpper(code) }

// bibleCodes lists the accepted Bible translations for messages.
func bibleCodes() string {
	out := make([]string, 0, len(bibleTranslations))
	for _, t := range bibleTranslations {
		out = append(out, bibleLabel(t.Code))
	}
	return strings.Join(out, ", ")
}

// searchableCodes lists the Bible translations phrase search supports.
func searchableCodes() string {
	out := make([]string, 0, len(apiBibleIDs))
	for c := range apiBibleIDs {
		out = append(out, bibleLabel(c))
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}
