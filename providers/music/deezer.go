package music

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

// Deezer API objects (https://developers.deezer.com/api: track, artist, album and the paged list
// {data, total, next, prev}), with only the fields this package reads. Shapes were checked against
// recorded answers in browniebroke/deezer-python's test cassettes.

type dzError struct {
	Type    lenient.Str `json:"type"`
	Message lenient.Str `json:"message"`
	Code    lenient.Int `json:"code"`
}

type dzList[T any] struct {
	Error lenient.Obj[dzError] `json:"error"`
	Data  lenient.List[T]      `json:"data"`
	Total lenient.Int          `json:"total"`
	Next  lenient.Str          `json:"next"`
}

type dzArtist struct {
	Error         lenient.Obj[dzError] `json:"error"`
	ID            lenient.ID           `json:"id"`
	Name          lenient.Str          `json:"name"`
	Link          lenient.Str          `json:"link"`
	Picture       lenient.Str          `json:"picture"`
	PictureSmall  lenient.Str          `json:"picture_small"`
	PictureMedium lenient.Str          `json:"picture_medium"`
	PictureBig    lenient.Str          `json:"picture_big"`
	PictureXL     lenient.Str          `json:"picture_xl"`
	NbAlbum       lenient.Int          `json:"nb_album"`
	NbFan         lenient.Int          `json:"nb_fan"`
	Radio         lenient.Bool         `json:"radio"`
	Role          lenient.Str          `json:"role"`
}

type dzGenre struct {
	Name lenient.Str `json:"name"`
}

type dzAlbum struct {
	Error          lenient.Obj[dzError]         `json:"error"`
	ID             lenient.ID                   `json:"id"`
	Title          lenient.Str                  `json:"title"`
	Link           lenient.Str                  `json:"link"`
	Cover          lenient.Str                  `json:"cover"`
	CoverSmall     lenient.Str                  `json:"cover_small"`
	CoverMedium    lenient.Str                  `json:"cover_medium"`
	CoverBig       lenient.Str                  `json:"cover_big"`
	CoverXL        lenient.Str                  `json:"cover_xl"`
	UPC            lenient.Str                  `json:"upc"`
	Label          lenient.Str                  `json:"label"`
	Genres         lenient.Obj[dzList[dzGenre]] `json:"genres"`
	NbTracks       lenient.Int                  `json:"nb_tracks"`
	Duration       lenient.Int                  `json:"duration"`
	Fans           lenient.Int                  `json:"fans"`
	ReleaseDate    lenient.Str                  `json:"release_date"`
	RecordType     lenient.Str                  `json:"record_type"`
	ExplicitLyrics lenient.Bool                 `json:"explicit_lyrics"`
	Contributors   lenient.List[dzArtist]       `json:"contributors"`
	Artist         lenient.Obj[dzArtist]        `json:"artist"`
	Tracks         lenient.Obj[dzList[dzTrack]] `json:"tracks"`
}

type dzTrack struct {
	Error          lenient.Obj[dzError]   `json:"error"`
	ID             lenient.ID             `json:"id"`
	Readable       lenient.Bool           `json:"readable"`
	Title          lenient.Str            `json:"title"`
	TitleShort     lenient.Str            `json:"title_short"`
	ISRC           lenient.Str            `json:"isrc"`
	Link           lenient.Str            `json:"link"`
	Duration       lenient.Int            `json:"duration"`
	TrackPosition  lenient.Int            `json:"track_position"`
	DiskNumber     lenient.Int            `json:"disk_number"`
	Rank           lenient.Int            `json:"rank"`
	ReleaseDate    lenient.Str            `json:"release_date"`
	ExplicitLyrics lenient.Bool           `json:"explicit_lyrics"`
	Preview        lenient.Str            `json:"preview"`
	BPM            lenient.Float          `json:"bpm"`
	Gain           lenient.Float          `json:"gain"`
	Contributors   lenient.List[dzArtist] `json:"contributors"`
	Artist         lenient.Obj[dzArtist]  `json:"artist"`
	Album          lenient.Obj[dzAlbum]   `json:"album"`
}

// deezerQuotaWait is the Retry-After of Deezer's quota error: Deezer allows 50 requests per 5 s.
const deezerQuotaWait = 5 * time.Second

// deezerPaths are the search endpoints by kind.
var deezerPaths = map[string]string{"track": "/search", "artist": "/search/artist", "album": "/search/album"}

// searchDeezer fetches one page of Deezer search results starting at offset.
func searchDeezer(ctx context.Context, u *providers.Upstream, query, kind string, num, offset int) (*providers.Page, error) {
	q := url.Values{"q": {query}, "index": {strconv.Itoa(offset)}, "limit": {strconv.Itoa(num)}}
	resp, err := u.Get(ctx, deezerPaths[kind], q, acceptJSON())
	if err != nil {
		return nil, err
	}
	var l dzPage
	switch kind {
	case "artist":
		l, err = deezerRecords(u, resp, deezerArtistRecord)
	case "album":
		l, err = deezerRecords(u, resp, deezerAlbumRecord)
	default:
		l, err = deezerRecords(u, resp, deezerTrackRecord)
	}
	if err != nil {
		return emptyOnNoData(err)
	}
	page := &providers.Page{Records: l.records}
	// Deezer sends `next` while more results follow; its index is the offset of the next page.
	if l.count > 0 && (l.next != "" || (l.total.OK && int64(offset+l.count) < l.total.V)) {
		page.HasMore = true
		page.Next = encodeState(deezerID, nextIndex(string(l.next), offset+l.count))
	}
	return page, nil
}

// dzPage is one decoded Deezer list page: its records and paging facts.
type dzPage struct {
	records []providers.Record
	count   int // items Deezer sent, usable or not
	total   lenient.Int
	next    lenient.Str
}

// deezerRecords decodes a Deezer list answer and maps its items to records.
func deezerRecords[T any](u *providers.Upstream, resp *providers.Response, record func(T) (providers.Record, bool)) (dzPage, error) {
	var l dzList[T]
	if err := decodeDeezer(u, resp, &l, &l.Error); err != nil {
		return dzPage{}, err
	}
	if l.Data == nil {
		return dzPage{}, providers.Errorf(providers.CodeProviderError, "Deezer answered without a data list")
	}
	p := dzPage{count: len(l.Data), total: l.Total, next: l.Next}
	for _, item := range l.Data {
		if r, ok := record(item); ok {
			p.records = append(p.records, r)
		}
	}
	return p, nil
}

// nextIndex reads the index parameter of Deezer's `next` URL, or returns fallback.
func nextIndex(next string, fallback int) int {
	if u, err := url.Parse(next); err == nil {
		if n, err := strconv.Atoi(u.Query().Get("index")); err == nil && n > 0 {
			return n
		}
	}
	return fallback
}

// noDataError marks Deezer's "no data" answer (code 800): a search reads it as no results, a
// lookup as not_found.
type noDataError struct{ notFound *providers.Error }

func (e noDataError) Error() string { return e.notFound.Error() }

// emptyOnNoData turns Deezer's "no data" into an empty last page and passes other errors on.
func emptyOnNoData(err error) (*providers.Page, error) {
	if _, ok := err.(noDataError); ok {
		return &providers.Page{}, nil
	}
	return nil, err
}

// decodeDeezer decodes a Deezer answer and maps the error object Deezer sends with HTTP 200.
func decodeDeezer(u *providers.Upstream, resp *providers.Response, out any, e *lenient.Obj[dzError]) error {
	if err := u.Decode(resp, out); err != nil {
		return err
	}
	if e.V != nil {
		return deezerError(e.V)
	}
	return nil
}

// deezerError maps Deezer's documented error codes (https://developers.deezer.com/api/errors).
func deezerError(e *dzError) error {
	msg := joinNonEmpty(": ", string(e.Type), string(e.Message))
	if msg == "" {
		msg = "unknown error"
	}
	code := e.Code.V
	switch code {
	case 4: // QUOTA: Deezer's request quota (50 requests / 5 s) is exceeded
		return &providers.Error{Code: providers.CodeRateLimited, Message: "Deezer's request quota is exceeded for a moment; retry shortly",
			RetryAfter: deezerQuotaWait, Cause: fmt.Errorf("deezer error %d: %s", code, msg)}
	case 700: // SERVICE_BUSY
		return providers.Errorf(providers.CodeProviderError, "Deezer is busy (%s)", msg).WithRetryable(true)
	case 800: // DATA_NOT_FOUND
		return noDataError{notFound: providers.Errorf(providers.CodeNotFound, "Deezer has no such item (%s)", msg)}
	case 600: // QUERY_INVALID: the caller's search syntax
		return providers.InvalidField("/query", "Deezer cannot parse this query: "+msg)
	default: // ITEMS_LIMIT_EXCEEDED, PERMISSION, TOKEN_INVALID, PARAMETER, PARAMETER_MISSING, ...
		return providers.Errorf(providers.CodeProviderError, "Deezer refused the request (error %d: %s)", code, msg).WithRetryable(false)
	}
}

// deezerImage picks the 500 px image, then other sizes, then the API image URL. Deezer's sized
// URLs with an empty hash ("images/artist//500x500...") are its generic placeholder: no image.
func deezerImage(api, small, medium, big, xl lenient.Str) string {
	sized := []lenient.Str{big, xl, medium, small}
	seen := false
	for _, s := range sized {
		if s == "" {
			continue
		}
		seen = true
		if !emptyHash(string(s)) {
			return string(s)
		}
	}
	if seen {
		return ""
	}
	return string(api)
}

// emptyHash tells whether a Deezer CDN image URL lacks its image hash.
func emptyHash(u string) bool {
	return strings.Contains(u, "/images/artist//") || strings.Contains(u, "/images/cover//")
}

func deezerTrackRecord(t dzTrack) (providers.Record, bool) {
	title := firstOf(t.Title, t.TitleShort)
	if title == "" {
		if t.ID == "" {
			return providers.Record{}, false
		}
		title = "Deezer track " + string(t.ID)
	}
	f := &MusicRecord{Kind: "track"}
	var artist, album string
	if a := t.Artist.V; a != nil {
		artist = string(a.Name)
	}
	if al := t.Album.V; al != nil {
		album = string(al.Title)
	}
	f.Artist, f.Album = artist, album
	var dur string
	if t.Duration.OK && t.Duration.V > 0 {
		dur = clock(t.Duration.V)
		f.Duration = dur
	}
	f.Explicit = boolPtr(t.ExplicitLyrics)
	f.PreviewURL = string(t.Preview)
	return withRef(providers.Record{Title: title, URL: string(t.Link), Snippet: joinNonEmpty(" · ", artist, album, dur), Data: f},
		"track", deezerID, t.ID), true
}

func deezerArtistRecord(a dzArtist) (providers.Record, bool) {
	title := string(a.Name)
	if title == "" {
		if a.ID == "" {
			return providers.Record{}, false
		}
		title = "Deezer artist " + string(a.ID)
	}
	f := &MusicRecord{Kind: "artist", Fans: intPtr(a.NbFan), Albums: intPtr(a.NbAlbum),
		Picture: deezerImage(a.Picture, a.PictureSmall, a.PictureMedium, a.PictureBig, a.PictureXL)}
	var parts []string
	if a.NbFan.OK {
		parts = append(parts, plural(a.NbFan.V, "fan"))
	}
	if a.NbAlbum.OK {
		parts = append(parts, plural(a.NbAlbum.V, "album"))
	}
	return withRef(providers.Record{Title: title, URL: string(a.Link), Snippet: strings.Join(parts, " · "), Data: f},
		"artist", deezerID, a.ID), true
}

func deezerAlbumRecord(a dzAlbum) (providers.Record, bool) {
	title := string(a.Title)
	if title == "" {
		if a.ID == "" {
			return providers.Record{}, false
		}
		title = "Deezer album " + string(a.ID)
	}
	var artist string
	if ar := a.Artist.V; ar != nil {
		artist = string(ar.Name)
	}
	f := &MusicRecord{Kind: "album", Artist: artist, Tracks: intPtr(a.NbTracks), Type: string(a.RecordType),
		Cover:    deezerImage(a.Cover, a.CoverSmall, a.CoverMedium, a.CoverBig, a.CoverXL),
		Explicit: boolPtr(a.ExplicitLyrics)}
	var tracks string
	if a.NbTracks.OK {
		tracks = plural(a.NbTracks.V, "track")
	}
	return withRef(providers.Record{Title: title, URL: string(a.Link), Snippet: joinNonEmpty(" · ", artist, string(a.RecordType), tracks), Data: f},
		"album", deezerID, a.ID), true
}

// deezerDetail looks up a Deezer track, artist or album for the details action.
func deezerDetail(ctx context.Context, u *providers.Upstream, ref recordRef) (*providers.Detail, error) {
	resp, err := u.Get(ctx, "/"+ref.Kind+"/"+url.PathEscape(ref.ID), nil, acceptJSON())
	if err != nil {
		return nil, err
	}
	var body *MusicDetail
	var links []providers.Link
	switch ref.Kind {
	case "artist":
		var a dzArtist
		if err := decodeDeezer(u, resp, &a, &a.Error); err != nil {
			return nil, detailError(err)
		}
		body, links = deezerArtistDetail(a)
	case "album":
		var a dzAlbum
		if err := decodeDeezer(u, resp, &a, &a.Error); err != nil {
			return nil, detailError(err)
		}
		body, links = deezerAlbumDetail(a)
	default:
		var t dzTrack
		if err := decodeDeezer(u, resp, &t, &t.Error); err != nil {
			return nil, detailError(err)
		}
		body, links = deezerTrackDetail(t)
	}
	return &providers.Detail{Body: body, Links: links}, nil
}

// detailError unwraps Deezer's "no data" for a lookup: the item is gone (not_found).
func detailError(err error) error {
	if nd, ok := err.(noDataError); ok {
		return nd.notFound
	}
	return err
}

func deezerTrackDetail(t dzTrack) (*MusicDetail, []providers.Link) {
	d := &MusicDetail{Kind: "track", Source: deezerID, Title: firstOf(t.Title, t.TitleShort)}
	links := appendLink(appendLink([]providers.Link{}, "Track on Deezer", string(t.Link)), "30-second preview", string(t.Preview))
	if a := t.Artist.V; a != nil {
		d.Artist = string(a.Name)
	}
	if al := t.Album.V; al != nil {
		d.Album = string(al.Title)
		d.Cover = deezerImage(al.Cover, al.CoverSmall, al.CoverMedium, al.CoverBig, al.CoverXL)
		links = appendLink(links, "Album on Deezer", string(al.Link))
	}
	if t.Duration.OK && t.Duration.V > 0 {
		d.Duration, d.DurationSeconds = clock(t.Duration.V), &t.Duration.V
	}
	d.Release, d.PreviewURL, d.URL = string(t.ReleaseDate), string(t.Preview), string(t.Link)
	d.Explicit = boolPtr(t.ExplicitLyrics)
	m := Metadata{DeezerID: string(t.ID), ISRC: string(t.ISRC), Gain: floatPtr(t.Gain), Rank: intPtr(t.Rank),
		TrackPosition: intPtr(t.TrackPosition), DiskNumber: intPtr(t.DiskNumber), Readable: boolPtr(t.Readable),
		Contributors: contributors(t.Contributors)}
	if t.BPM.OK && t.BPM.V > 0 { // Deezer reports 0 when it has no tempo
		m.BPM = &t.BPM.V
	}
	d.Metadata = m
	return d, links
}

func deezerArtistDetail(a dzArtist) (*MusicDetail, []providers.Link) {
	// The spec: artist details carry both title and name, equal.
	d := &MusicDetail{Kind: "artist", Source: deezerID, Title: string(a.Name), Name: string(a.Name),
		Fans: intPtr(a.NbFan), Albums: intPtr(a.NbAlbum), URL: string(a.Link),
		Picture: deezerImage(a.Picture, a.PictureSmall, a.PictureMedium, a.PictureBig, a.PictureXL)}
	d.Metadata = Metadata{DeezerID: string(a.ID), Radio: boolPtr(a.Radio)}
	return d, appendLink([]providers.Link{}, "Artist on Deezer", string(a.Link))
}

func deezerAlbumDetail(a dzAlbum) (*MusicDetail, []providers.Link) {
	d := &MusicDetail{Kind: "album", Source: deezerID, Title: string(a.Title), Release: string(a.ReleaseDate),
		Tracks: intPtr(a.NbTracks), Type: string(a.RecordType), Explicit: boolPtr(a.ExplicitLyrics), URL: string(a.Link),
		Cover: deezerImage(a.Cover, a.CoverSmall, a.CoverMedium, a.CoverBig, a.CoverXL)}
	if ar := a.Artist.V; ar != nil {
		d.Artist = string(ar.Name)
	}
	if a.Duration.OK && a.Duration.V > 0 {
		d.Duration, d.DurationSeconds = clock(a.Duration.V), &a.Duration.V
	}
	if tl := a.Tracks.V; tl != nil && len(tl.Data) > 0 {
		d.Tracklist = make([]TrackEntry, 0, len(tl.Data))
		for i, t := range tl.Data {
			e := TrackEntry{Position: i + 1, Title: firstOf(t.Title, t.TitleShort), Explicit: boolPtr(t.ExplicitLyrics),
				PreviewURL: string(t.Preview)}
			if t.Duration.OK && t.Duration.V > 0 {
				e.Duration = clock(t.Duration.V)
			}
			d.Tracklist = append(d.Tracklist, e)
		}
	}
	m := Metadata{DeezerID: string(a.ID), UPC: string(a.UPC), Label: string(a.Label), Fans: intPtr(a.Fans),
		Contributors: contributors(a.Contributors)}
	if g := a.Genres.V; g != nil {
		for _, x := range g.Data {
			if x.Name != "" {
				m.Genres = append(m.Genres, string(x.Name))
			}
		}
	}
	d.Metadata = m
	return d, appendLink([]providers.Link{}, "Album on Deezer", string(a.Link))
}

// contributors lists credited artists with their roles.
func contributors(cs lenient.List[dzArtist]) []Contributor {
	var out []Contributor
	for _, c := range cs {
		if c.Name == "" {
			continue
		}
		out = append(out, Contributor{Name: string(c.Name), Role: string(c.Role)})
	}
	return out
}
