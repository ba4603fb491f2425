// Package npm adapts the JavaScript package registry to three capabilities of topic "Dev", each
// with a 15 s deadline and typical credits 0:
//
//   - jspkg.package (spec 4.8): single result; the record action details is stored at lookup
//     time (the complete registry document, free).
//   - jspkg.search (spec 4.9): offset paging; the record action details is a free registry lookup.
//   - jspkg.downloads (spec 4.13): single result; update not offered; no record actions.
//
// # Providers
//
// Two keyless providers, neither with a built-in base URL (DESIGN.md section 5: a deployment sets
// PROVIDER_NPM_URL and PROVIDER_NPMDOWNLOADS_URL; both APIs belong to the registry's operator):
//
//   - "npm", the registry. MaxBody is providers.DefaultMaxBody (8 MiB), the spec's metadata limit.
//   - "npmdownloads", the registry's download counts API.
//
// Fixtures and tests use placeholder hosts (registry.example for tarballs, www.registry.example
// for the registry's website links a search answer carries); no source file names the real hosts.
//
// # Upstream endpoints
//
//   - GET /{name} (jspkg.package without version, and jspkg.search details): the full package
//     metadata document ("packument"): _id, _rev, name, description, dist-tags, versions {version:
//     manifest}, time {created, modified, version: date, unpublished?}, maintainers[], author,
//     repository, homepage, bugs, keywords, license, readme, readmeFilename, users. Sent with
//     Accept: application/json, which selects the full document (the abbreviated install form
//     needs application/vnd.npm.install-v1+json). Source: npm/registry docs/REGISTRY-API.md and
//     docs/responses/package-metadata.md; the dist members integrity, fileCount, unpackedSize and
//     signatures of current manifests from recorded registry answers quoted in public repositories.
//   - GET /{name}/{version-or-dist-tag} (jspkg.package with version): one version manifest; the
//     registry resolves dist-tags such as "latest" itself.
//     A scoped name is one path segment with its slash percent-encoded: /@babel%2Fparser/latest.
//   - GET /-/v1/search?text=&size=&from= (jspkg.search): {objects: [{package: {name, scope,
//     version, description, keywords, date, links {npm, homepage, repository, bugs}, author,
//     publisher, maintainers [{username, email}], license, sanitized_name}, score {final, detail
//     {quality, popularity, maintenance}}, searchScore, flags, downloads {monthly, weekly},
//     dependents, updated}], total, time}. Source: REGISTRY-API.md (the documented members and the
//     qualifiers) and the typings of public clients (velut/query-registry) and recorded answers for
//     the members the registry added later (downloads, dependents, updated, flags).
//   - GET /downloads/point/{period}/{name} and /downloads/range/{period}/{name} (jspkg.downloads):
//     point {downloads, start, end, package}; range {start, end, package, downloads [{downloads,
//     day}]}; refusals {"error": "..."}. A scoped name keeps its slash (/downloads/point/last-month/
//     @slack/client, as the API's documentation shows). Source: npm/registry docs/download-counts.md
//     (periods, shapes, the 18-month limit and the 2015-01-10 start), npm/download-counts
//     controllers/downloads.js (the error member, sometimes sent with HTTP 200) and a recorded 404
//     body {"error": "package @x/y not found"}.
//
// # Decisions where the spec is silent
//
//   - jspkg.package records: the full document is described by the version its "latest" dist-tag
//     names (when that tag is missing or names an absent version: the version published last by
//     the time map, else the last version key in lexical order). license and repository come from that manifest, else
//     from the document's hoisted values; maintainers from the document (current publishers) or,
//     for one manifest, the manifest's; dist keeps tarball, shasum, integrity, fileCount and
//     unpackedSize (signatures stay in the stored document); dist_tags and version_count exist for
//     the full document only. A dependencies object present in the manifest is kept even when empty
//     (the package declares none); an absent one is left out. license and repository are kept as
//     the package declares them (a non-blank string or a non-empty object); other types (for
//     example the legacy licenses array) are treated as absent. title is name@version (just the
//     name when no version is known), url the declared homepage when it is an http(s) URL, snippet
//     the description (at most 300 characters). Notes report a deprecated version, an unpublished
//     package and a document without installable versions.
//   - The stored details body is the registry's answer byte for byte (json.RawMessage, up to
//     8 MiB); its links are the homepage, the repository as a browsable URL (git+https, git://,
//     ssh, git@host: and the github:/gitlab:/bitbucket:/user/repo shorthands normalized) and the
//     tarball. jspkg.search details answers the same way.
//   - Errors: a 404 is invalid_request at /version when the registry's message says "version not
//     found" (a bare JSON string today, an {"error": ...} object in older answers), otherwise at
//     /package ("no such package: name"). In a search details lookup a 404 is not_found (the package
//     was removed since the search). An answer over 8 MiB is the shared client's provider_error
//     (recognized by its 2xx upstream status) with the hint to request a specific version, not
//     retryable. A document that is JSON but not an object is provider_error. 429, 5xx, malformed
//     JSON and transport failures keep the shared client's mapping.
//   - jspkg.search: text is sent as given (qualifiers pass through); paging state is {"from": N};
//     the offset advances by the number of hits the registry returned (usable or not); has_more is
//     from + hits < total and false on a page without hits. A hit without a name is dropped; a hit
//     whose name does not fit the package pattern keeps its record without the details action.
//     Record url is links.npm (the registry's website) when it is an http(s) URL; repository is
//     links.repository; published_at is package.date; score keeps only its numbers. A 400 or 422
//     carrying a message is invalid_request at /text (size and from are always within the
//     documented limits, so text is the only thing the registry can refuse).
//   - jspkg.downloads rules, all refused at /period before any call: dates must be real calendar
//     days; the end must not precede the start; a range must end before the same day 18 months
//     after its start (2023-01-01:2024-06-30 is allowed, 2023-01-01:2024-07-01 is not); a period
//     ending before 2015-01-10 has no data; a period starting after today (UTC) has none yet. A
//     period that starts before 2015-01-10 and ends after it is sent, with a note. last-* periods
//     pass through unchanged (last-month is the API's last 30 available days). The record's
//     package, start and end are the API's (start and end fall back to the requested dates when
//     the answer lacks them; for a last-* period their absence is provider_error); a point answer
//     without an integer count and a range answer without a days array are provider_error; day
//     entries without a day or an integer count are skipped. Titles: "name: 1,234 downloads, start
//     to end" (point), "name: daily downloads, start to end" with the total in the snippet (range).
//     Refusals: 404 is invalid_request at /package; a 400 (or a 200 with an error member) whose
//     message names the period, a date, a day or the range is invalid_request at /period, one
//     saying "not found" at /package, any other message provider_error (not retryable).
//
// # Checks
//
// providers.md marks nothing about these upstreams "check". Confirmed from the registry's own
// documentation: the three endpoints and their parameters, the search qualifiers and the size
// limit of 250, the full document and manifest members, the download counts periods, shapes,
// scoped-name form, the 18-month limit and the 2015-01-10 start. Not confirmed from an official
// page: the exact 404 body for a missing version today (both the bare string and the object form
// are handled); the body of a refused search (handled as {"error"}, {"message"} or a string); how
// the download counts API measures "18 months" and whether it refuses periods before 2015-01-10
// (the adapter refuses first, as above); the current wording of its period refusals (the older
// source answers "Invalid period specified" and "Date range requested is too large"). Sandbox and
// test fixtures follow these shapes; their versions, hashes, dates and counts are illustrative.
//
// # Sandbox
//
// The sandbox holds search pages for any text (from = 0 and from > 0), the full documents of the
// five packages they return (yargs, commander, minimist, meow, @types/yargs), manifests of those
// and of @babel/parser by version and "latest", the registry's 404 answers for another version of
// a known package and for any other package, and download counts of yargs and @babel/parser (the
// examples' periods exactly, any other period from a fixed fixture).
package npm
