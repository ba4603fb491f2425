package video

// --- the parts of YouTube's and Supadata's answers the sandbox writes (all fields always present)

// pageInfo is a YouTube list answer's paging summary.
type pageInfo struct {
	TotalResults   int `json:"totalResults"`
	ResultsPerPage int `json:"resultsPerPage"`
}

// snippetThumbnails are a snippet's thumbnails in the three sizes every video has.
type snippetThumbnails struct {
	Default thumbnailImage `json:"default"`
	Medium  thumbnailImage `json:"medium"`
	High    thumbnailImage `json:"high"`
}

// thumbnailImage is one thumbnail: its URL and its size in pixels.
type thumbnailImage struct {
	URL    string `json:"url"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
}

// localizedSnippet is a snippet's title and description in the viewer's language.
type localizedSnippet struct {
	Title       string `json:"title"`
	Description string `json:"description"`
}

// videoStatistics is a videos.list statistics part as YouTube sends it: counts as numeric strings.
type videoStatistics struct {
	ViewCount     string `json:"viewCount"`
	LikeCount     string `json:"likeCount"`
	FavoriteCount string `json:"favoriteCount"`
	CommentCount  string `json:"commentCount"`
}

// transcriptAnswer is Supadata's transcript answer with its captions as segments.
type transcriptAnswer struct {
	Content        []transcriptSegment `json:"content"`
	Lang           string              `json:"lang"`
	AvailableLangs []string            `json:"availableLangs"`
}

// transcriptSegment is one caption line: its text, start and length in milliseconds, and language.
type transcriptSegment struct {
	Text     string `json:"text"`
	Offset   int    `json:"offset"`
	Duration int    `json:"duration"`
	Lang     string `json:"lang"`
}
