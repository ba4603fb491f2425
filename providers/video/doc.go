// Package video holds video.search (spec section 4.21): videos from the YouTube Data API v3,
// with a free details lookup (videos.list) and a paid transcript lookup (Supadata).
//
// Upstream endpoints:
//   - YouTube Data API v3 (provider youtube, https://www.googleapis.com/youtube/v3, key required,
//     sent as the key query parameter):
//     GET /search?part=snippet&type=video&q=&maxResults=(1..50)[&pageToken=][&publishedAfter=]
//     [&videoDuration=short|medium|long] answers {kind, etag, nextPageToken, prevPageToken,
//     regionCode, pageInfo{totalResults, resultsPerPage}, items[{kind, etag, id{kind, videoId},
//     snippet{publishedAt, channelId, title, description, thumbnails{default, medium, high}
//     {url, width, height}, channelTitle, liveBroadcastContent, publishTime}}]}; the details action
//     reads GET /videos?part=snippet,contentDetails,statistics&id= ({items[{id, snippet{...,
//     tags}, contentDetails{duration (ISO 8601), definition, ...}, statistics{viewCount,
//     likeCount, commentCount, ... as numeric strings}}]}). Errors are Google's
//     {error: {code, message, errors[{message, domain, reason}], status?, details?}}.
//   - Supadata (provider transcripts, https://api.supadata.ai/v1, key required, sent in the
//     x-api-key header): GET /transcript?url=https://www.youtube.com/watch?v=<id>&mode=native
//     &text=false answers {content[{text, offset (ms), duration (ms), lang}], lang,
//     availableLangs}, or HTTP 202 {jobId} for a job polled at GET /transcript/{jobId}
//     ({status: queued|active|completed|failed, error, content, lang, availableLangs}). Errors
//     are {error (code), message, details, documentationUrl}; transcript-unavailable comes with
//     HTTP 206.
//
// Decisions where the spec is silent:
//   - The capability needs only youtube (Providers). When transcripts is not configured, the
//     records offer only details (Record.Actions) and each page carries a note saying so; a
//     transcript call made anyway answers capability_unavailable.
//   - The spec lists no rules beyond the schema, so Rules is nil. published_after is sent as UTC
//     with whole seconds (YouTube documents the form 1970-01-01T00:00:00Z): an offset is
//     converted, a fraction of a second rounds up (no earlier video is admitted), a lower-case
//     t/z and a leap second (…:60, read as the next second), which the schema's date-time format
//     admits, are accepted. The query is trimmed.
//   - Paging state is {"token": nextPageToken}; has_more follows nextPageToken, so a page may be
//     empty while has_more stays true (YouTube's search stops after a few hundred results).
//   - search.list HTML-escapes titles, descriptions and channel names ("&#39;", "&amp;",
//     "&quot;"); they are unescaped. videos.list does not escape, and details are kept as sent.
//   - Results that are not videos (id.kind other than youtube#video) or carry no usable video id
//     are dropped: nothing could be watched or looked up. A missing title becomes
//     "YouTube video <id>". snippet is the search description on one line (search.list already
//     shortens it); published_at is written as RFC 3339 UTC with whole seconds (publishTime
//     stands in when publishedAt is absent) and left out when it is not a date-time; thumbnail
//     is the medium image, else the default one, else absent.
//   - Details (0 credits): every key is optional. duration_seconds comes from the ISO 8601
//     duration (P#DT#H#M#S; weeks accepted; fractional seconds rounded); P0D (live or upcoming
//     broadcasts) is left out. views, likes and comments are integers (likeCount is absent when
//     likes are hidden, commentCount when comments are off). description is cut to 3,000
//     characters (Unicode code points); tags keep the first 10 distinct non-blank ones;
//     definition is hd or sd. An empty items list or videoNotFound is not_found. Links: the watch
//     page and the channel page.
//   - Transcript (4 credits, "$0.004 per video"): Supadata's universal endpoint with mode=native
//     fetches existing captions only (one Supadata credit per video); mode=auto could fall back
//     to AI generation, billed per minute, which the fixed price cannot cover. No lang is sent
//     (the action takes no parameters), so Supadata answers the first available language;
//     available_languages lists the others. segments is the number of chunks Supadata returned
//     (empty ones included); text joins the non-empty chunk texts with single spaces (white
//     space collapsed) and is cut to 60,000 characters; timestamps hold up to 2,000 entries
//     {start, duration, text} in seconds (Supadata's milliseconds / 1000; a chunk without an
//     offset is in text but not in timestamps; duration is left out when absent);
//     timestamps_truncated is true only when that 2,000 cap cut the list (the spec names no key
//     for a cut text). language falls back to the first chunk's lang, then the first available
//     language, then "und"; available_languages falls back to [language]. A plain-string content
//     (text=true shape) is read as text with 0 segments.
//   - Error mapping, YouTube: quotaExceeded / dailyLimitExceeded → provider_allowance (hint: the
//     quota resets at midnight Pacific Time); rateLimitExceeded / userRateLimitExceeded →
//     rate_limited (Retry-After 5 s unless the answer gave one); keyInvalid, keyExpired,
//     API_KEY_INVALID, accessNotConfigured, SERVICE_DISABLED, ipRefererBlocked, a missing key or
//     any "API key" message → non-retryable provider_error with an operator hint; videoNotFound
//     or 404 on a lookup → not_found; anything else keeps the client's mapping (5xx retryable,
//     4xx not) with YouTube's message, HTML tags removed. An error object inside a 200 answer is
//     mapped the same way; malformed JSON is provider_error.
//   - Error mapping, Supadata: transcript-unavailable (206) and not-found → not_found (the
//     gateway refunds, so a captionless video is not charged); unauthorized / forbidden →
//     non-retryable provider_error with a PROVIDER_TRANSCRIPTS_KEY hint; upgrade-required →
//     non-retryable provider_error; limit-exceeded → the client's 429 choice (rate_limited with
//     a short Retry-After, else provider_allowance); invalid-request → non-retryable
//     provider_error; internal-error → retryable provider_error. A 202 job is polled every
//     second until the action's deadline (provider_timeout when it passes).
//   - Upstream JSON is decoded leniently: absent, null or mistyped fields count as absent,
//     numbers may arrive as strings, list elements that do not decode are skipped.
//
// providers.md marks the transcript provider "check". Confirmed from Supadata's own
// documentation (docs.supadata.ai get-transcript, errors list and pages, and the v1 OpenAPI
// document in supadata-ai/supadata-docs): the endpoint, x-api-key, mode, the Transcript and
// TranscriptChunk shapes (offset and duration in milliseconds), the 202 job and its result, the
// error body and its codes, and the 206 status of transcript-unavailable. The
// YouTube-specific GET /v1/youtube/transcript?videoId= is marked deprecated in that OpenAPI
// document in favour of this universal endpoint, which is why it is not used. Not confirmed:
// whether mode=native can still answer 202 (handled anyway), and Supadata's per-plan rate limits
// (no RequestsPerSecond is set). The job result's transcript fields are read at the top level as
// the OpenAPI JobResult schema, the documented example and the official JS SDK show (a prose
// note on the same page mentions a result field).
//
// Fixture provenance: testdata/search_page1.json, search_page2.json and videos.json are recorded
// YouTube answers from sns-sdks/python-youtube's test data (trimmed to a few items);
// youtube_quota.json and youtube_key_invalid.json are bodies quoted in public issue reports
// (googleapis/google-api-php-client#2055, SkyTubeTeam/SkyTube#612); youtube_key_invalid_v2.json
// combines the badRequest entry YouTube reports today with Google's API_KEY_INVALID ErrorInfo
// detail (the detail is confirmed for other Google APIs, not captured from YouTube);
// youtube_rate_limit.json and youtube_backend_error.json follow Google's usageLimits/global error
// shape with the documented reasons but are not captures. The Supadata fixtures follow its
// documented shapes; their transcript text is sandbox prose. Sandbox videos reuse real video
// ids, titles and channels, but their statistics, durations, publish times, tags and captions
// are illustrative.
package video
