// Package music holds music.search (spec section 4.12): tracks, artists and albums from Deezer,
// with MusicBrainz as the fallback source.
//
// Upstream endpoints:
//   - Deezer (provider deezer, https://api.deezer.com, keyless): GET /search, /search/artist and
//     /search/album with q, index and limit (paged lists {data, total, next, prev}); the details
//     action reads GET /track/{id}, /artist/{id} and /album/{id}. Deezer reports failures with
//     HTTP 200 and {"error":{"type","message","code"}}.
//   - MusicBrainz (provider musicbrainz, https://musicbrainz.org, keyless, RequestsPerSecond 1
//     held fleet wide with Redis; musicbrainz.org/doc/MusicBrainz_API/Rate_Limiting asks for one
//     request a second per client and a User-Agent "Application/version ( contact )", so the
//     provider is ContactRequired: without GATEWAY_CONTACT the fallback is unavailable and
//     music.search answers from Deezer alone): GET /ws/2/recording, /ws/2/artist and
//     /ws/2/release with query, fmt=json, limit and offset ({created, count, offset,
//     recordings|artists|releases}); details read /ws/2/{recording|artist|release}/{mbid} with
//     fmt=json and inc=artist-credits+releases+isrcs+genres (recordings), genres (artists) and
//     artist-credits+labels+recordings+release-groups+genres (releases). Errors are
//     {"error","help"} bodies; 503 is MusicBrainz's throttling answer.
//
// Decisions where the spec is silent:
//   - The spec lists no rules beyond the schema for music.search, so Rules is nil; a blank
//     query is refused by the schema's "\S" pattern.
//   - Source choice: the capability needs only deezer. The first page falls back to MusicBrainz
//     when Deezer is not configured, its breaker is open, or it fails with provider_error,
//     provider_timeout, service_unavailable or provider_allowance (an upstream 429 without a short
//     Retry-After: the allowance will not come back soon). Deezer's quota error (code 4) and a
//     short 429 are answered as rate_limited (Retry-After 5 s for code 4, Deezer's window being
//     50 requests per 5 s) rather than switching sources. Deezer gets at most 8 s (or half the
//     remaining deadline) on the first page so a timeout still leaves the fallback time.
//   - Paging state is {"source","offset"}: a fallback search continues on MusicBrainz, and a
//     Deezer search continues on Deezer; a Deezer failure on `more` is returned (retryable where
//     the failure is) instead of mixing two sources' result sets in one session. The next
//     Deezer offset is the index of Deezer's `next` URL; has_more follows `next` (or total).
//   - Fallback pages carry one note naming the fallback, why it was used and the keys absent
//     from its records (tracks: explicit, preview_url; artists: fans, albums, picture; albums:
//     cover, explicit). MusicBrainz records carry kind, artist, album, duration, tracks and type
//     where it has them, plus country, disambiguation and musicbrainz_id. A recording's album and
//     country are those of the first release MusicBrainz lists; an album's type is its release
//     group's primary type in lower case (album, single, ep), like Deezer's record_type.
//   - Deezer error codes: 4 rate_limited; 600 (invalid query) invalid_request at /query; 700
//     (busy) a retryable provider_error; 800 (no data) an empty last page on a search and
//     not_found on a lookup; the others (100, 200, 300, 500, 501, ...) a non-retryable
//     provider_error. MusicBrainz: 503 rate_limited (Retry-After 2 s); 400 on a search
//     invalid_request at /query (its Lucene parser refused the query); 404 on a lookup
//     not_found.
//   - Images: picture and cover are the 500 px image (then 1000, 250, 56 px, then the API image
//     URL). Deezer's sized URLs with an empty hash ("images/artist//500x500-...") are its
//     generic placeholder and count as no image.
//   - Duration is m:ss with unwrapped minutes ("61:00"); MusicBrainz milliseconds are rounded to
//     the second. Deezer's 0 duration and 0 bpm mean unknown and are left out.
//   - Titles are never empty: Deezer's title_short stands in for a missing title; otherwise
//     "Deezer track <id>" / "MusicBrainz recording <mbid>". Entries with neither a title nor an
//     id are dropped; records whose id is unusable offer no record action.
//   - The details action (ActionLookup, 0 credits) answers a source-shaped object: kind, source,
//     title, artist, album, duration, release (date), preview_url, explicit, url and metadata
//     (Deezer: ISRC, bpm, gain, rank, position, contributors; album label, UPC, genres, track
//     list; MusicBrainz: ISRCs, genres, releases, life span, labels, track list, Cover Art
//     Archive front image when the release has one). Artist details carry title and name, equal.
//   - Upstream JSON is decoded leniently: absent, null or mistyped fields count as absent (never
//     a panic), numbers may arrive as strings (MusicBrainz scores used to), list elements that
//     do not decode are skipped. A MusicBrainz search answer without its list is provider_error.
//
// providers.md marks nothing "check" for music.search. What could and could not be confirmed:
//   - Deezer shapes (search lists with data/total/next, track, artist, album objects, the
//     DataException 800 body) mirror recorded answers in browniebroke/deezer-python's test
//     cassettes; the error code table is Deezer's errors page as quoted by client libraries. The
//     quota body {"error":{"type":"Exception","message":"Quota limit exceeded","code":4}} comes
//     from the brief and client code, not from a recorded answer.
//   - MusicBrainz search shapes follow captured live answers quoted in public client tests;
//     lookup shapes follow metabrainz/picard's test data (begin_area in lookups, begin-area in
//     search answers: both are read). inc=genres was confirmed only through client usage, and the
//     exact 400 body for an unparsable Lucene query was not confirmed (the {error, help} envelope
//     was).
//   - Fixture values (ids, preview URLs, counts) are realistic but not recordings of today's
//     catalog; Deezer now signs preview URLs, which the adapter passes through unchanged.
package music
