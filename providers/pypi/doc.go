// Package pypi holds the capabilities over the Python package index: pypkg.details (spec 4.19),
// pypkg.versions (named only by the spec), pypkg.downloads (spec 4.23, from pypistats) and
// pypkg.search (spec 4.30, a web search restricted to the index's project pages). Topic "Dev",
// deadline 15 s for all four.
//
// # Upstream endpoints
//
//   - The Python package index (provider pypi, keyless, NO default base URL: a deployment sets
//     PROVIDER_PYPI_URL; its host name is deliberately not written anywhere in this package).
//     JSON API: GET /pypi/{project}/json (latest release) and /pypi/{project}/{version}/json
//     (one release): {info{name, version, summary, description, description_content_type,
//     requires_python, requires_dist, license, license_expression, project_urls, home_page,
//     author, ...}, urls[{filename, url, digests{sha256, md5, blake2b_256}, packagetype, size,
//     upload_time_iso_8601, yanked, yanked_reason, requires_python}], vulnerabilities[{id,
//     aliases, details, summary, fixed_in, link, source, withdrawn}], last_serial, ownership}.
//     The deprecated releases, info.downloads, has_sig and bugtrack_url keys are never decoded
//     nor relayed. Simple API, JSON form: GET /simple/{project}/ with Accept
//     application/vnd.pypi.simple.v1+json (PEP 691, with PEP 700's versions, size and
//     upload-time): {meta{api-version}, name, files[{filename, url, hashes, requires-python,
//     yanked (bool or reason), upload-time, size, core-metadata}], versions[]}.
//   - pypistats (provider pypistats, https://pypistats.org, keyless): GET
//     /api/packages/{pkg}/recent ({data{last_day, last_week, last_month}, package, type}) and
//     /api/packages/{pkg}/overall?mirrors=false ({data[{category, date, downloads}], package,
//     type}).
//   - SerpApi (provider serpapi, the shared value of providers/upstream/serpapi): search.json with
//     engine=google, q="<query> site:<index host>/project/" and start; its sandbox answers any
//     site: query with providers/upstream/serpapi/sandbox/google/site.json (owned by this package).
//
// # Decisions where the spec is silent
//
//   - Names: package is validated by the spec's pattern, then PEP 503-normalized (lower case,
//     runs of - _ . to one -) for every upstream path, cache key and search candidate. The index
//     redirects a normalized JSON API path to the project's own spelling; the client follows.
//   - pypkg.details: one record titled "<name> <version>" (name as the index spells it), url the
//     release page (info.release_url), snippet the summary. vulnerabilities is left out when the
//     index lists none (no empty placeholder); the stored detail always carries files[] and
//     vulnerabilities[] (possibly empty) so "none known" is explicit there. file_count counts
//     urls[] entries that name a file. An answer without info, or whose info has no version (an
//     "always" key), is provider_error. A 404 without version is invalid_request at /package;
//     with a version, a second request for the project tells /version (the project exists, also
//     when it answered over the size limit) from /package. Over 8 MiB (the client's default
//     limit) is a non-retryable provider_error with a hint to ask for one release. URL fields of
//     the detail (home_page, docs_url, download_url, package_url, release_url) are kept only when
//     they are http(s) URLs (publishers write "UNKNOWN" and the like).
//   - pypkg.versions (design like pypkg.details; shape in its Description): body package,
//     include_yanked (default false), num (1..100, default 20, the local page size). One record
//     per release of versions[] plus any version only seen in file names; files are matched to
//     releases by the version in their names (wheel and egg: the second dash field; sdists and
//     installers: what follows the project name, with "1.0.win32"-style platform suffixes
//     matched to the known version; a wheel's build tag is ignored); files with no recognizable
//     version are not counted and a page note says how many. Order: PEP 440 precedence (a full
//     port of the PEP's version pattern: epochs, pre/post/dev releases, their alternative
//     spellings, local labels), newest first, ties by upload time; non-PEP 440 versions are
//     merged in by the upload time of their earliest file. A release is yanked when all its
//     files are (a release with no files is not yanked); yanked_reason is the first reason a
//     yanked file gives. upload_time and requires_python come from the earliest uploaded file
//     (its Requires-Python is the files' common value when they agree). Hidden yanked releases
//     are counted in a note. url is the release page under the configured base URL
//     (<base>/project/<name>/<version>/). A record action details (ActionLookup, 0 credits)
//     answers the release's JSON API metadata as pypkg.details stores it; a release gone by then
//     is not_found. An HTML-only Simple API (a mirror without PEP 691) or a major API version
//     other than 1 is a non-retryable provider_error.
//   - pypkg.downloads: the package is sent normalized. recent answers the three totals; overall
//     keeps the without_mirrors rows (the only ones mirrors=false returns), oldest first, and at
//     most 180 days counted back from the newest day in the answer (not from the clock, so a
//     cached or sandbox answer is never emptied by time). pypistats answers 404 for an unknown
//     project and for one without recorded downloads: not_found. The record links to
//     https://pypistats.org/packages/<name>; its snippet summarizes the counts.
//   - The pypistats cache (cache.go) is a mutex-guarded map, not bigcache: bigcache bounds shards
//     in bytes and evicts the oldest entries when a shard fills, whatever their age, so it cannot
//     say "at most 256 entries" or "never evict a fresh entry". Entries are keyed by kind and
//     normalized package, fresh for 24 h from retrieval; a miss reserves a slot before calling
//     pypistats (fetches in flight hold slots, failures free them), so the 257th distinct key
//     while all 256 are fresh is refused without an upstream call: service_unavailable
//     (retryable), Retry-After = time until the oldest entry expires. Expired entries are dropped
//     when a miss needs room. An upstream 429 pauses misses for its Retry-After, or one hour when
//     it is absent (the shared client reports an absent or unreadable header as
//     provider_allowance with no wait); a miss during the pause answers rate_limited (pause of a
//     minute or less) or provider_allowance, with Retry-After = the rest of the pause, while
//     cached answers are still served (cache_hit true). There is one cache per mode, so test keys
//     (sandbox) can neither fill nor read the live cache. The cache is a package-level value
//     behind an atomic pointer; tests swap in a fresh pair on their own clock.
//   - pypkg.search: the index host is the host (with port, if any) of
//     call.Upstream("pypi").BaseURL: the configured URL live, the sandbox host with test keys.
//     Without a configured index URL the capability is unavailable (Providers lists serpapi and
//     pypi) and Execute refuses with capability_unavailable before searching. Paging state is
//     {"page":N}; page N sends start=(N-1)*num (omitted for page 1) and num itself is not sent
//     (Google stopped honouring it in 2025, so a page holds about 10 results). At most num
//     organic results of an answer are used; has_more is true when SerpApi or Google report a
//     next page, or when the answer held more than num results. Google serves about 10 results a
//     request, so with num above 10 the results between a page's end and the next page's start
//     are skipped: the page carries a note saying so. Kept links: https, the index host (case
//     insensitive), path /project/<name>/ or /project/<name>/<version>/ (trailing slash,
//     fragment and query ignored); deduplicated within a page by normalized name, first result
//     wins. title falls back to the package name when the result has none. details
//     (ActionLookup, 0 credits) reads /pypi/{name}/json and answers {name, version, summary,
//     requires_python, project_urls, license, verified: true} with the release's links; a 404 is
//     not_found.
//   - Upstream JSON is decoded leniently (providers/internal/lenient): absent, null or mistyped fields
//     count as absent, list elements that do not decode are skipped; nothing panics.
//
// # Sources and what could not be confirmed
//
// providers.md marks nothing "check" for these rows. Shapes come from: the index's JSON API page
// in pypi/warehouse docs/user/api/json.md (the sampleproject example, the vulnerabilities and
// withdrawn examples, the deprecated keys, the ownership key) and its Index API page
// (docs/user/api/index-api.md, the beautifulsoup4 PEP 691 example); PEP 691 and PEP 700 for the
// Simple API fields; pypistats' own API page (psf/pypistats.org templates/api.html) and the
// hugovk/pypistats client tests for its answers; SerpApi's Google Search API and pagination
// pages for organic_results, serpapi_pagination and pagination. Not confirmed: the body of the
// index's JSON API 404 (fixtures use {"message": "Not Found"}; the adapter reads only the
// status); the bodies of pypistats' 404 and 429 answers and whether its 429 carries Retry-After
// (the adapter reads only status and header); that pypistats accepts every normalized name
// (it stores normalized names, as far as could be seen); the current Simple API api-version of
// the index (fixtures say 1.3; any 1.x is accepted). Sandbox fixture values (hashes, sizes,
// serials, upload times, download counts, advisory ids) are realistic but not recordings.
package pypi
