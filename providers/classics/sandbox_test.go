package classics

import "testing"

func TestSplitTermsReadsTheAuthorBack(t *testing.T) {
	for _, c := range []struct{ terms, title, author string }{
		{"winter Leo Tolstoy", "winter", "Leo Tolstoy"},
		{"Jane Austen", "", "Jane Austen"},
		{"voyage Jules Verne", "voyage", "Jules Verne"},
		{"the orchard Ludwig van Beethoven", "the orchard", "Ludwig van Beethoven"},
		{"Lisbon", "Lisbon", ""},
		{"quantum computing", "quantum computing", ""},
		{"A Tale Of Two Cities", "A Tale Of Two Cities", ""},
	} {
		title, author := splitTerms(c.terms)
		if title != c.title || author != c.author {
			t.Errorf("splitTerms(%q) = %q, %q; want %q, %q", c.terms, title, author, c.title, c.author)
		}
	}
	if catalogName("Jane Austen") != "Austen, Jane" || catalogName("Homer") != "Homer" {
		t.Error(catalogName("Jane Austen"))
	}
}
