package music

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

// MusicBrainz web service v2 JSON (https://musicbrainz.org/doc/MusicBrainz_API and
// .../MusicBrainz_API/Search): search answers {created, count, offset, recordings|artists|releases}
// with a per-entity score; lookups answer the entity itself; errors answer {error, help}. Only the
// fields this package reads are declared.

type mbArtistCredit struct {
	Name       optStr           `json:"name"`
	JoinPhrase json.RawMessage  `json:"joinphrase"`
	Artist     obj[mbArtistRef] `json:"artist"`
}

type mbArtistRef struct {
	Name optStr `json:"name"`
}

type mbArea struct {
	Name optStr `json:"name"`
}

type mbLifeSpan struct {
	Begin optStr  `json:"begin"`
	End   optStr  `json:"end"`
	Ended optBool `json:"ended"`
}

type mbTag struct {
	Name  optStr `json:"name"`
	Count optInt `json:"count"`
}

type mbArtist struct {
	ID             optID           `json:"id"`
	Score          optInt          `json:"score"`
	Name           optStr          `json:"name"`
	SortName       optStr          `json:"sort-name"`
	Type           optStr          `json:"type"`
	Gender         optStr          `json:"gender"`
	Country        optStr          `json:"country"`
	Disambiguation optStr          `json:"disambiguation"`
	Area           obj[mbArea]     `json:"area"`
	BeginArea      obj[mbArea]     `json:"begin-area"` // search answers
	BeginAreaLU    obj[mbArea]     `json:"begin_area"` // lookup answers
	LifeSpan       obj[mbLifeSpan] `json:"life-span"`
	Genres         list[mbTag]     `json:"genres"`
}

type mbReleaseGroup struct {
	ID               optID        `json:"id"`
	Title            optStr       `json:"title"`
	PrimaryType      optStr       `json:"primary-type"`
	SecondaryTypes   list[optStr] `json:"secondary-types"`
	FirstReleaseDate optStr       `json:"first-release-date"`
}

type mbTrack struct {
	Number   optStr `json:"number"`
	Position optInt `json:"position"`
	Title    optStr `json:"title"`
	Length   optInt `json:"length"`
}

type mbMedium struct {
	Position   optInt        `json:"position"`
	Format     optStr        `json:"format"`
	TrackCount optInt        `json:"track-count"`
	Tracks     list[mbTrack] `json:"tracks"`
}

type mbLabelInfo struct {
	CatalogNumber optStr       `json:"catalog-number"`
	Label         obj[mbLabel] `json:"label"`
}

type mbLabel struct {
	Name optStr `json:"name"`
}

type mbCoverArt struct {
	Front optBool `json:"front"`
}

type mbRelease struct {
	ID              optID                `json:"id"`
	Score           optInt               `json:"score"`
	Title           optStr               `json:"title"`
	Status          optStr               `json:"status"`
	Disambiguation  optStr               `json:"disambiguation"`
	Date            optStr               `json:"date"`
	Country         optStr               `json:"country"`
	Barcode         optStr               `json:"barcode"`
	Packaging       optStr               `json:"packaging"`
	ArtistCredit    list[mbArtistCredit] `json:"artist-credit"`
	ReleaseGroup    obj[mbReleaseGroup]  `json:"release-group"`
	TrackCount      optInt               `json:"track-count"`
	Media           list[mbMedium]       `json:"media"`
	LabelInfo       list[mbLabelInfo]    `json:"label-info"`
	CoverArtArchive obj[mbCoverArt]      `json:"cover-art-archive"`
	Genres          list[mbTag]          `json:"genres"`
}

type mbRecording struct {
	ID               optID                `json:"id"`
	Score            optInt               `json:"score"`
	Title            optStr               `json:"title"`
	Length           optInt               `json:"length"`
	Disambiguation   optStr               `json:"disambiguation"`
	Video            optBool              `json:"video"`
	FirstReleaseDate optStr               `json:"first-release-date"`
	ArtistCredit     list[mbArtistCredit] `json:"artist-credit"`
	Releases         list[mbRelease]      `json:"releases"`
	ISRCs            list[optStr]         `json:"isrcs"`
	Genres           list[mbTag]          `json:"genres"`
}

type mbSearch struct {
	Count      optInt            `json:"count"`
	Offset     optInt            `json:"offset"`
	Recordings list[mbRecording] `json:"recordings"`
	Artists    list[mbArtist]    `json:"artists"`
	Releases   list[mbRelease]   `json:"releases"`
}

type mbErrorBody struct {
	Error optStr `json:"error"`
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
func mbRecords[T any](items list[T], record func(T) (providers.Record, bool)) (records []providers.Record, count int, missing bool) {
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
func credit(cs list[mbArtistCredit]) string {
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
func seconds(ms optInt) (int64, bool) {
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
	f := map[string]any{"kind": "track", "musicbrainz_id": string(r.ID)}
	artist := credit(r.ArtistCredit)
	setStr(f, "artist", artist)
	var album string
	if len(r.Releases) > 0 {
		// The first release MusicBrainz lists stands for the recording's album and country.
		album = string(r.Releases[0].Title)
		setStr(f, "country", string(r.Releases[0].Country))
	}
	setStr(f, "album", album)
	var dur string
	if s, ok := seconds(r.Length); ok {
		dur = clock(s)
		f["duration"] = dur
	}
	setStr(f, "disambiguation", string(r.Disambiguation))
	return withRef(providers.Record{Title: title, URL: mbWebsite + "recording/" + string(r.ID),
		Snippet: joinNonEmpty(" · ", artist, album, dur), Fields: f}, "track", musicbrainzID, r.ID), true
}

func mbArtistRecord(a mbArtist) (providers.Record, bool) {
	if a.ID == "" {
		return providers.Record{}, false
	}
	title := string(a.Name)
	if title == "" {
		title = "MusicBrainz artist " + string(a.ID)
	}
	f := map[string]any{"kind": "artist", "musicbrainz_id": string(a.ID)}
	setStr(f, "country", string(a.Country))
	setStr(f, "disambiguation", string(a.Disambiguation))
	var area, span string
	if a.Area.V != nil {
		area = string(a.Area.V.Name)
	}
	if ls := a.LifeSpan.V; ls != nil && ls.Begin != "" {
		span = string(ls.Begin) + "–" + string(ls.End)
	}
	return withRef(providers.Record{Title: title, URL: mbWebsite + "artist/" + string(a.ID),
		Snippet: joinNonEmpty(" · ", string(a.Type), area, span), Fields: f}, "artist", musicbrainzID, a.ID), true
}

// releaseType is the release group's primary type in the primary source's lower case ("album").
func releaseType(r mbRelease) string {
	if rg := r.ReleaseGroup.V; rg != nil {
		return strings.ToLower(string(rg.PrimaryType))
	}
	return ""
}

// trackCount is the release's track count, or the sum over its media.
func trackCount(r mbRelease) optInt {
	if r.TrackCount.OK {
		return r.TrackCount
	}
	var n optInt
	for _, m := range r.Media {
		if m.TrackCount.OK {
			n = optInt{V: n.V + m.TrackCount.V, OK: true}
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
	f := map[string]any{"kind": "album", "musicbrainz_id": string(r.ID)}
	artist := credit(r.ArtistCredit)
	setStr(f, "artist", artist)
	setInt(f, "tracks", trackCount(r))
	typ := releaseType(r)
	setStr(f, "type", typ)
	setStr(f, "country", string(r.Country))
	setStr(f, "disambiguation", string(r.Disambiguation))
	return withRef(providers.Record{Title: title, URL: mbWebsite + "release/" + string(r.ID),
		Snippet: joinNonEmpty(" · ", artist, string(r.Date), typ), Fields: f}, "album", musicbrainzID, r.ID), true
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
	var body map[string]any
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
		if c, ok := body["cover"].(string); ok {
			links = append(links, providers.Link{Label: "Cover art", URL: c})
		}
	default:
		var r mbRecording
		if err := u.Decode(resp, &r); err != nil {
			return nil, err
		}
		body = mbRecordingDetail(r)
	}
	body["url"] = page
	return &providers.Detail{Body: body, Links: links}, nil
}

func genreNames(gs list[mbTag]) []string {
	var out []string
	for _, g := range gs {
		if g.Name != "" {
			out = append(out, string(g.Name))
		}
	}
	return out
}

func mbRecordingDetail(r mbRecording) map[string]any {
	d := map[string]any{"kind": "track", "source": musicbrainzID, "musicbrainz_id": string(r.ID)}
	setStr(d, "title", string(r.Title))
	setStr(d, "artist", credit(r.ArtistCredit))
	if len(r.Releases) > 0 {
		setStr(d, "album", string(r.Releases[0].Title))
		setStr(d, "country", string(r.Releases[0].Country))
	}
	if s, ok := seconds(r.Length); ok {
		d["duration"] = clock(s)
		d["duration_seconds"] = s
	}
	setStr(d, "release", string(r.FirstReleaseDate))
	setStr(d, "disambiguation", string(r.Disambiguation))
	m := map[string]any{}
	var isrcs []string
	for _, i := range r.ISRCs {
		if i != "" {
			isrcs = append(isrcs, string(i))
		}
	}
	if len(isrcs) > 0 {
		m["isrcs"] = isrcs
	}
	if g := genreNames(r.Genres); len(g) > 0 {
		m["genres"] = g
	}
	setBool(m, "video", r.Video)
	if len(r.Releases) > 0 {
		rels := make([]map[string]any, 0, len(r.Releases))
		for _, rel := range r.Releases {
			e := map[string]any{}
			setStr(e, "title", string(rel.Title))
			setStr(e, "date", string(rel.Date))
			setStr(e, "country", string(rel.Country))
			setStr(e, "status", string(rel.Status))
			setStr(e, "musicbrainz_id", string(rel.ID))
			rels = append(rels, e)
		}
		m["releases"] = rels
	}
	d["metadata"] = m
	return d
}

func mbArtistDetail(a mbArtist) map[string]any {
	d := map[string]any{"kind": "artist", "source": musicbrainzID, "musicbrainz_id": string(a.ID)}
	// The spec: artist details carry both title and name, equal.
	setStr(d, "title", string(a.Name))
	setStr(d, "name", string(a.Name))
	setStr(d, "country", string(a.Country))
	setStr(d, "disambiguation", string(a.Disambiguation))
	m := map[string]any{}
	setStr(m, "sort_name", string(a.SortName))
	setStr(m, "type", string(a.Type))
	setStr(m, "gender", string(a.Gender))
	if a.Area.V != nil {
		setStr(m, "area", string(a.Area.V.Name))
	}
	for _, ba := range []*mbArea{a.BeginAreaLU.V, a.BeginArea.V} {
		if ba != nil && ba.Name != "" {
			m["begin_area"] = string(ba.Name)
			break
		}
	}
	if ls := a.LifeSpan.V; ls != nil {
		span := map[string]any{}
		setStr(span, "begin", string(ls.Begin))
		setStr(span, "end", string(ls.End))
		setBool(span, "ended", ls.Ended)
		if len(span) > 0 {
			m["life_span"] = span
		}
	}
	if g := genreNames(a.Genres); len(g) > 0 {
		m["genres"] = g
	}
	d["metadata"] = m
	return d
}

func mbReleaseDetail(r mbRelease) map[string]any {
	d := map[string]any{"kind": "album", "source": musicbrainzID, "musicbrainz_id": string(r.ID)}
	setStr(d, "title", string(r.Title))
	setStr(d, "artist", credit(r.ArtistCredit))
	setStr(d, "release", string(r.Date))
	setStr(d, "country", string(r.Country))
	setInt(d, "tracks", trackCount(r))
	setStr(d, "type", releaseType(r))
	setStr(d, "disambiguation", string(r.Disambiguation))
	if ca := r.CoverArtArchive.V; ca != nil && ca.Front.OK && ca.Front.V {
		d["cover"] = "https://coverartarchive.org/release/" + string(r.ID) + "/front"
	}
	var tracks []map[string]any
	var totalMS int64
	complete := true
	for _, m := range r.Media {
		for _, t := range m.Tracks {
			e := map[string]any{}
			setInt(e, "disc", m.Position)
			setStr(e, "number", string(t.Number))
			setStr(e, "title", string(t.Title))
			if s, ok := seconds(t.Length); ok {
				e["duration"] = clock(s)
				totalMS += t.Length.V
			} else {
				complete = false
			}
			tracks = append(tracks, e)
		}
	}
	if len(tracks) > 0 {
		d["tracklist"] = tracks
		// The release's length is only known when every track's is.
		if s, ok := seconds(optInt{V: totalMS, OK: complete}); ok {
			d["duration"] = clock(s)
			d["duration_seconds"] = s
		}
	}
	m := map[string]any{}
	setStr(m, "status", string(r.Status))
	setStr(m, "barcode", string(r.Barcode))
	setStr(m, "packaging", string(r.Packaging))
	var labels []map[string]any
	for _, li := range r.LabelInfo {
		e := map[string]any{}
		if li.Label.V != nil {
			setStr(e, "name", string(li.Label.V.Name))
		}
		setStr(e, "catalog_number", string(li.CatalogNumber))
		if len(e) > 0 {
			labels = append(labels, e)
		}
	}
	if len(labels) > 0 {
		m["labels"] = labels
	}
	if rg := r.ReleaseGroup.V; rg != nil {
		setStr(m, "first_release_date", string(rg.FirstReleaseDate))
		var sec []string
		for _, s := range rg.SecondaryTypes {
			if s != "" {
				sec = append(sec, string(s))
			}
		}
		if len(sec) > 0 {
			m["secondary_types"] = sec
		}
	}
	if g := genreNames(r.Genres); len(g) > 0 {
		m["genres"] = g
	}
	d["metadata"] = m
	return d
}
