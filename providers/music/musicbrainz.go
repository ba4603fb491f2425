package music

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

// MusicBrainz web service v2 JSON (https://musicbrainz.org/doc/MusicBrainz_API and
// .../MusicBrainz_API/Search): search answers {created, count, offset, recordings|artists|releases}
// with a per-entity score; lookups answer the entity itself; errors answer {error, help}. Only the
// fields this package reads are declared.

type mbArtistCredit struct {
	Name       lenient.Str              `json:"name"`
	JoinPhrase json.RawMessage          `json:"joinphrase"`
	Artist     lenient.Obj[mbArtistRef] `json:"artist"`
}

type mbArtistRef struct {
	Name lenient.Str `json:"name"`
}

type mbArea struct {
	Name lenient.Str `json:"name"`
}

type mbLifeSpan struct {
	Begin lenient.Str  `json:"begin"`
	End   lenient.Str  `json:"end"`
	Ended lenient.Bool `json:"ended"`
}

type mbTag struct {
	Name  lenient.Str `json:"name"`
	Count lenient.Int `json:"count"`
}

type mbArtist struct {
	ID             lenient.ID              `json:"id"`
	Score          lenient.Int             `json:"score"`
	Name           lenient.Str             `json:"name"`
	SortName       lenient.Str             `json:"sort-name"`
	Type           lenient.Str             `json:"type"`
	Gender         lenient.Str             `json:"gender"`
	Country        lenient.Str             `json:"country"`
	Disambiguation lenient.Str             `json:"disambiguation"`
	Area           lenient.Obj[mbArea]     `json:"area"`
	BeginArea      lenient.Obj[mbArea]     `json:"begin-area"` // search answers
	BeginAreaLU    lenient.Obj[mbArea]     `json:"begin_area"` // lookup answers
	LifeSpan       lenient.Obj[mbLifeSpan] `json:"life-span"`
	Genres         lenient.List[mbTag]     `json:"genres"`
}

type mbReleaseGroup struct {
	ID               lenient.ID                `json:"id"`
	Title            lenient.Str               `json:"title"`
	PrimaryType      lenient.Str               `json:"primary-type"`
	SecondaryTypes   lenient.List[lenient.Str] `json:"secondary-types"`
	FirstReleaseDate lenient.Str               `json:"first-release-date"`
}

type mbTrack struct {
	Number   lenient.Str `json:"number"`
	Position lenient.Int `json:"position"`
	Title    lenient.Str `json:"title"`
	Length   lenient.Int `json:"length"`
}

type mbMedium struct {
	Position   lenient.Int           `json:"position"`
	Format     lenient.Str           `json:"format"`
	TrackCount lenient.Int           `json:"track-count"`
	Tracks     lenient.List[mbTrack] `json:"tracks"`
}

type mbLabelInfo struct {
	CatalogNumber lenient.Str          `json:"catalog-number"`
	Label         lenient.Obj[mbLabel] `json:"label"`
}

type mbLabel struct {
	Name lenient.Str `json:"name"`
}

type mbCoverArt struct {
	Front lenient.Bool `json:"front"`
}

type mbRelease struct {
	ID              lenient.ID                   `json:"id"`
	Score           lenient.Int                  `json:"score"`
	Title           lenient.Str                  `json:"title"`
	Status          lenient.Str                  `json:"status"`
	Disambiguation  lenient.Str                  `json:"disambiguation"`
	Date            lenient.Str                  `json:"date"`
	Country         lenient.Str                  `json:"country"`
	Barcode         lenient.Str                  `json:"barcode"`
	Packaging       lenient.Str                  `json:"packaging"`
	ArtistCredit    lenient.List[mbArtistCredit] `json:"artist-credit"`
	ReleaseGroup    lenient.Obj[mbReleaseGroup]  `json:"release-group"`
	TrackCount      lenient.Int                  `json:"track-count"`
	Media           lenient.List[mbMedium]       `json:"media"`
	LabelInfo       lenient.List[mbLabelInfo]    `json:"label-info"`
	CoverArtArchive lenient.Obj[mbCoverArt]      `json:"cover-art-archive"`
	Genres          lenient.List[mbTag]          `json:"genres"`
}

type mbRecording struct {
	ID               lenient.ID                   `json:"id"`
	Score            lenient.Int                  `json:"score"`
	Title            lenient.Str                  `json:"title"`
	Length           lenient.Int                  `json:"length"`
	Disambiguation   lenient.Str                  `json:"disambiguation"`
	Video            lenient.Bool                 `json:"video"`
	FirstReleaseDate lenient.Str                  `json:"first-release-date"`
	ArtistCredit     lenient.List[mbArtistCredit] `json:"artist-credit"`
	Releases         lenient.List[mbRelease]      `json:"releases"`
	ISRCs            lenient.List[lenient.Str]    `json:"isrcs"`
	Genres           lenient.List[mbTag]          `json:"genres"`
}

type mbSearch struct {
	Count      lenient.Int               `json:"count"`
	Offset     lenient.Int               `json:"offset"`
	Recordings lenient.List[mbRecording] `json:"recordings"`
	Artists    lenient.List[mbArtist]    `json:"artists"`
	Releases   lenient.List[mbRelease]   `json:"releases"`
}

type mbErrorBody struct {
	Error lenient.Str `json:"error"`
}

// musicbrainzThrottleWait is the Retry-After of MusicBrainz's throttling answer (HTTP 503): its
// documented limit is one request a second per client.
const musicbrainzThrottleWait = 2 * time.Second

// mbEntities maps the capability's kinds to MusicBrainz entities.
var mbEntities = map[string]string{"track": "recording", "artist": "artist", "album": "release"}

// mbLookupIncludes are the inc= subqueries of each details lookup (space separated: the query
// encoder writes them joined by '+', the documented form).
var mbLookupIncludes = map[string]string{
	"recording": "artist-credits releases isrcs genres",
	"artist":    "genres",
	"release":   "artist-credits labels recordings release-groups genres",
}

// mbWebsite is where MusicBrainz entity pages live (the API base may be a mirror).
const mbWebsite = "https://musicbrainz.org/"

// fallbackAbsent lists, by kind, the record keys only the primary source has.
var fallbackAbsent = map[string][]string{
	"track":  {"explicit", "preview_url"},
	"artist": {"fans", "albums", "picture"},
	"album":  {"cover", "explicit"},
}

// searchMusicBrainz fetches one page of MusicBrainz search results starting at offset.
func searchMusicBrainz(ctx context.Context, u *providers.Upstream, query, kind string, num, offset int) (*providers.Page, error) {
	entity := mbEntities[kind]
	q := url.Values{"query": {query}, "fmt": {"json"}, "limit": {strconv.Itoa(num)}, "offset": {strconv.Itoa(offset)}}
	resp, err := u.Get(ctx, "/ws/2/"+entity, q, acceptJSON())
	if err != nil {
		return nil, musicbrainzError(err, true)
	}
	var s mbSearch
	if err := u.Decode(resp, &s); err != nil {
		return nil, err
	}
	var records []providers.Record
	var count int
	var missing bool
	switch kind {
	case "artist":
		records, count, missing = mbRecords(s.Artists, mbArtistRecord)
	case "album":
		records, count, missing = mbRecords(s.Releases, mbReleaseRecord)
	default:
		records, count, missing = mbRecords(s.Recordings, mbRecordingRecord)
	}
	if missing {
		return nil, providers.Errorf(providers.CodeProviderError, "MusicBrainz answered without a list of %ss", entity)
	}
	start := offset
	if s.Offset.OK {
		start = int(s.Offset.V)
	}
	page := &providers.Page{Records: records}
	if count > 0 && s.Count.OK && int64(start+count) < s.Count.V {
		page.HasMore = true
		page.Next = encodeState(musicbrainzID, start+count)
	}
	return page, nil
}

// mbRecords maps a search answer's list to records; missing reports an answer without the list.
func mbRecords[T any](items lenient.List[T], record func(T) (providers.Record, bool)) (records []providers.Record, count int, missing bool) {
	for _, item := range items {
		if r, ok := record(item); ok {
			records = append(records, r)
		}
	}
	return records, len(items), items == nil
}

// musicbrainzError maps MusicBrainz's error answers: 503 is its documented throttling, 400 on a
// search is a query its Lucene parser refused, 404 on a lookup is a gone entity.
func musicbrainzError(err error, search bool) error {
	e, ok := providers.AsError(err)
	if !ok || e.UpstreamStatus == 0 {
		return err
	}
	var body mbErrorBody
	_ = json.Unmarshal(e.Body, &body)
	msg := string(body.Error)
	switch {
	case e.UpstreamStatus == 503:
		return &providers.Error{Code: providers.CodeRateLimited, Message: "MusicBrainz is throttling requests; retry shortly",
			RetryAfter: musicbrainzThrottleWait, UpstreamStatus: 503, Cause: err}
	case e.UpstreamStatus == 400 && search:
		if msg == "" {
			msg = "bad request"
		}
		return providers.InvalidField("/query", "MusicBrainz cannot parse this query: "+msg)
	case e.UpstreamStatus == 404 && !search:
		return &providers.Error{Code: providers.CodeNotFound, Message: "MusicBrainz no longer has this item", UpstreamStatus: 404, Cause: err}
	}
	if msg != "" {
		e.Message += ": " + msg
	}
	return e
}

// credit renders an artist credit as MusicBrainz displays it: names joined by their join phrases.
func credit(cs lenient.List[mbArtistCredit]) string {
	var b strings.Builder
	for _, c := range cs {
		name := string(c.Name)
		if name == "" && c.Artist.V != nil {
			name = string(c.Artist.V.Name)
		}
		b.WriteString(name)
		var join string
		if json.Unmarshal(c.JoinPhrase, &join) == nil {
			b.WriteString(join)
		}
	}
	return strings.TrimSpace(b.String())
}

// seconds converts MusicBrainz milliseconds to whole seconds, rounded.
func seconds(ms lenient.Int) (int64, bool) {
	if !ms.OK || ms.V <= 0 {
		return 0, false
	}
	return (ms.V + 500) / 1000, true
}

func mbRecordingRecord(r mbRecording) (providers.Record, bool) {
	if r.ID == "" {
		return providers.Record{}, false // no id: neither a link nor details are possible
	}
	title := string(r.Title)
	if title == "" {
		title = "MusicBrainz recording " + string(r.ID)
	}
	artist := credit(r.ArtistCredit)
	f := &MusicRecord{Kind: "track", MusicBrainzID: string(r.ID), Artist: artist, Disambiguation: string(r.Disambiguation)}
	if len(r.Releases) > 0 {
		// The first release MusicBrainz lists stands for the recording's album and country.
		f.Album, f.Country = string(r.Releases[0].Title), string(r.Releases[0].Country)
	}
	album := f.Album
	var dur string
	if s, ok := seconds(r.Length); ok {
		dur = clock(s)
		f.Duration = dur
	}
	return withRef(providers.Record{Title: title, URL: mbWebsite + "recording/" + string(r.ID),
		Snippet: joinNonEmpty(" · ", artist, album, dur), Data: f}, "track", musicbrainzID, r.ID), true
}

func mbArtistRecord(a mbArtist) (providers.Record, bool) {
	if a.ID == "" {
		return providers.Record{}, false
	}
	title := string(a.Name)
	if title == "" {
		title = "MusicBrainz artist " + string(a.ID)
	}
	f := &MusicRecord{Kind: "artist", MusicBrainzID: string(a.ID), Country: string(a.Country),
		Disambiguation: string(a.Disambiguation)}
	var area, span string
	if a.Area.V != nil {
		area = string(a.Area.V.Name)
	}
	if ls := a.LifeSpan.V; ls != nil && ls.Begin != "" {
		span = string(ls.Begin) + "–" + string(ls.End)
	}
	return withRef(providers.Record{Title: title, URL: mbWebsite + "artist/" + string(a.ID),
		Snippet: joinNonEmpty(" · ", string(a.Type), area, span), Data: f}, "artist", musicbrainzID, a.ID), true
}

// releaseType is the release group's primary type in the primary source's lower case ("album").
func releaseType(r mbRelease) string {
	if rg := r.ReleaseGroup.V; rg != nil {
		return strings.ToLower(string(rg.PrimaryType))
	}
	return ""
}

// trackCount is the release's track count, or the sum over its media.
func trackCount(r mbRelease) lenient.Int {
	if r.TrackCount.OK {
		return r.TrackCount
	}
	var n lenient.Int
	for _, m := range r.Media {
		if m.TrackCount.OK {
			n = lenient.Int{V: n.V + m.TrackCount.V, OK: true}
		}
	}
	return n
}

func mbReleaseRecord(r mbRelease) (providers.Record, bool) {
	if r.ID == "" {
		return providers.Record{}, false
	}
	title := string(r.Title)
	if title == "" {
		title = "MusicBrainz release " + string(r.ID)
	}
	artist := credit(r.ArtistCredit)
	typ := releaseType(r)
	f := &MusicRecord{Kind: "album", MusicBrainzID: string(r.ID), Artist: artist, Tracks: intPtr(trackCount(r)), Type: typ,
		Country: string(r.Country), Disambiguation: string(r.Disambiguation)}
	return withRef(providers.Record{Title: title, URL: mbWebsite + "release/" + string(r.ID),
		Snippet: joinNonEmpty(" · ", artist, string(r.Date), typ), Data: f}, "album", musicbrainzID, r.ID), true
}

// musicbrainzDetail looks up a recording, artist or release for the details action.
func musicbrainzDetail(ctx context.Context, u *providers.Upstream, ref recordRef) (*providers.Detail, error) {
	entity := mbEntities[ref.Kind]
	q := url.Values{"fmt": {"json"}, "inc": {mbLookupIncludes[entity]}}
	resp, err := u.Get(ctx, "/ws/2/"+entity+"/"+url.PathEscape(ref.ID), q, acceptJSON())
	if err != nil {
		return nil, musicbrainzError(err, false)
	}
	page := mbWebsite + entity + "/" + ref.ID
	links := []providers.Link{{Label: "Open on MusicBrainz", URL: page}}
	var body *MusicDetail
	switch ref.Kind {
	case "artist":
		var a mbArtist
		if err := u.Decode(resp, &a); err != nil {
			return nil, err
		}
		body = mbArtistDetail(a)
	case "album":
		var r mbRelease
		if err := u.Decode(resp, &r); err != nil {
			return nil, err
		}
		body = mbReleaseDetail(r)
		if body.Cover != "" {
			links = append(links, providers.Link{Label: "Cover art", URL: body.Cover})
		}
	default:
		var r mbRecording
		if err := u.Decode(resp, &r); err != nil {
			return nil, err
		}
		body = mbRecordingDetail(r)
	}
	body.URL = page
	return &providers.Detail{Body: body, Links: links}, nil
}

func genreNames(gs lenient.List[mbTag]) []string {
	var out []string
	for _, g := range gs {
		if g.Name != "" {
			out = append(out, string(g.Name))
		}
	}
	return out
}

func mbRecordingDetail(r mbRecording) *MusicDetail {
	d := &MusicDetail{Kind: "track", Source: musicbrainzID, MusicBrainzID: string(r.ID), Title: string(r.Title),
		Artist: credit(r.ArtistCredit), Release: string(r.FirstReleaseDate), Disambiguation: string(r.Disambiguation)}
	if len(r.Releases) > 0 {
		d.Album, d.Country = string(r.Releases[0].Title), string(r.Releases[0].Country)
	}
	if s, ok := seconds(r.Length); ok {
		d.Duration, d.DurationSeconds = clock(s), &s
	}
	m := Metadata{Genres: genreNames(r.Genres), Video: boolPtr(r.Video)}
	for _, i := range r.ISRCs {
		if i != "" {
			m.ISRCs = append(m.ISRCs, string(i))
		}
	}
	if len(r.Releases) > 0 {
		m.Releases = make([]ReleaseRef, 0, len(r.Releases))
		for _, rel := range r.Releases {
			m.Releases = append(m.Releases, ReleaseRef{Title: string(rel.Title), Date: string(rel.Date),
				Country: string(rel.Country), Status: string(rel.Status), MusicBrainzID: string(rel.ID)})
		}
	}
	d.Metadata = m
	return d
}

func mbArtistDetail(a mbArtist) *MusicDetail {
	// The spec: artist details carry both title and name, equal.
	d := &MusicDetail{Kind: "artist", Source: musicbrainzID, MusicBrainzID: string(a.ID), Title: string(a.Name),
		Name: string(a.Name), Country: string(a.Country), Disambiguation: string(a.Disambiguation)}
	m := Metadata{SortName: string(a.SortName), Type: string(a.Type), Gender: string(a.Gender), Genres: genreNames(a.Genres)}
	if a.Area.V != nil {
		m.Area = string(a.Area.V.Name)
	}
	for _, ba := range []*mbArea{a.BeginAreaLU.V, a.BeginArea.V} {
		if ba != nil && ba.Name != "" {
			m.BeginArea = string(ba.Name)
			break
		}
	}
	if ls := a.LifeSpan.V; ls != nil {
		span := LifeSpan{Begin: string(ls.Begin), End: string(ls.End), Ended: boolPtr(ls.Ended)}
		if span != (LifeSpan{}) {
			m.LifeSpan = &span
		}
	}
	d.Metadata = m
	return d
}

func mbReleaseDetail(r mbRelease) *MusicDetail {
	d := &MusicDetail{Kind: "album", Source: musicbrainzID, MusicBrainzID: string(r.ID), Title: string(r.Title),
		Artist: credit(r.ArtistCredit), Release: string(r.Date), Country: string(r.Country), Tracks: intPtr(trackCount(r)),
		Type: releaseType(r), Disambiguation: string(r.Disambiguation)}
	if ca := r.CoverArtArchive.V; ca != nil && ca.Front.OK && ca.Front.V {
		d.Cover = "https://coverartarchive.org/release/" + string(r.ID) + "/front"
	}
	var totalMS int64
	complete := true
	for _, m := range r.Media {
		for _, t := range m.Tracks {
			e := TrackEntry{Disc: intPtr(m.Position), Number: string(t.Number), Title: string(t.Title)}
			if s, ok := seconds(t.Length); ok {
				e.Duration = clock(s)
				totalMS += t.Length.V
			} else {
				complete = false
			}
			d.Tracklist = append(d.Tracklist, e)
		}
	}
	if len(d.Tracklist) > 0 {
		// The release's length is only known when every track's is.
		if s, ok := seconds(lenient.Int{V: totalMS, OK: complete}); ok {
			d.Duration, d.DurationSeconds = clock(s), &s
		}
	}
	m := Metadata{Status: string(r.Status), Barcode: string(r.Barcode), Packaging: string(r.Packaging),
		Genres: genreNames(r.Genres)}
	for _, li := range r.LabelInfo {
		e := LabelInfo{CatalogNumber: string(li.CatalogNumber)}
		if li.Label.V != nil {
			e.Name = string(li.Label.V.Name)
		}
		if e != (LabelInfo{}) {
			m.Labels = append(m.Labels, e)
		}
	}
	if rg := r.ReleaseGroup.V; rg != nil {
		m.FirstReleaseDate = string(rg.FirstReleaseDate)
		for _, s := range rg.SecondaryTypes {
			if s != "" {
				m.SecondaryTypes = append(m.SecondaryTypes, string(s))
			}
		}
	}
	d.Metadata = m
	return d
}
