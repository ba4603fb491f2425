package scripture

// --- the parts of bible-api.com's and Quran.com's answers the sandbox writes (all fields always
// present)

// passageAnswer is bible-api.com's answer for a passage: its verses, their whole text and the
// translation's names.
type passageAnswer struct {
	Reference       string         `json:"reference"`
	Verses          []passageVerse `json:"verses"`
	Text            string         `json:"text"`
	TranslationID   string         `json:"translation_id"`
	TranslationName string         `json:"translation_name"`
	TranslationNote string         `json:"translation_note"`
}

// passageVerse is one verse of a bible-api.com passage.
type passageVerse struct {
	BookID   string `json:"book_id"`
	BookName string `json:"book_name"`
	Chapter  int    `json:"chapter"`
	Verse    int    `json:"verse"`
	Text     string `json:"text"`
}

// quranKeyAnswer is Quran.com's verses/by_key answer; the verse is a recorded one, edited.
type quranKeyAnswer struct {
	Verse map[string]any `json:"verse"`
}

// quranChapterAnswer is Quran.com's verses/by_chapter answer: a page of (recorded, edited) verses
// and its paging.
type quranChapterAnswer struct {
	Verses     []map[string]any `json:"verses"`
	Pagination quranPaging      `json:"pagination"`
}

// quranPaging is a verses/by_chapter answer's paging; next_page is null on the last page.
type quranPaging struct {
	PerPage      int  `json:"per_page"`
	CurrentPage  int  `json:"current_page"`
	NextPage     *int `json:"next_page"`
	TotalPages   int  `json:"total_pages"`
	TotalRecords int  `json:"total_records"`
}
