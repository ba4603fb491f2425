// Package github adapts the GitHub REST API (provider `github`, PROVIDER_GITHUB_URL /
// PROVIDER_GITHUB_KEY) to repo.search, named only in the spec and designed here like its
// siblings: page paging, 0 credits, deadline 15 s, record action details (the README, free,
// cached by the gateway on repeat).
//
// # Upstream endpoints
//
//   - GET {base}/search/repositories?q=&sort=&order=&per_page=&page= (docs.github.com, "Search
//     repositories"): {total_count, incomplete_results, items[repo-search-result-item]}. sort is
//     stars, forks or updated (help-wanted-issues is not offered); best_match sends no sort, which
//     is GitHub's relevance ranking. GitHub serves only the first 1,000 results of a search and
//     answers 422 "Only the first 1000 search results are available" past them.
//   - GET {base}/repos/{owner}/{repo}/readme ("Get a repository README"): a content-file object
//     with base64 `content`; for files over 1 MB `content` is empty and `encoding` is "none", so
//     the adapter asks again with Accept application/vnd.github.raw+json for the file itself.
//
// Every request sends Accept application/vnd.github+json and X-GitHub-Api-Version 2022-11-28.
// The key is optional: a token raises the search allowance from 10 to 30 requests a minute.
//
// # Decisions where the spec is silent
//
//   - Body: query (1..256, qualifiers passed through as written, at most five AND/OR/NOT
//     operators outside quotes, a rule GitHub documents), sort (best_match, stars, forks,
//     updated; default best_match; descending), num (1..50, default 10 = per_page).
//   - Paging state {"page": P}; has_more while total_count > P*num and the next whole page lies
//     within the first 1,000 results; past that a note says how to narrow the query.
//     incomplete_results (GitHub's search timed out) adds a note.
//   - Records: title and full_name owner/name, url the repository page, snippet the description,
//     description, language, stars, forks, open_issues, topics, license (SPDX id, else the
//     licence's name; NOASSERTION counts as no id), updated_at, archived (always).
//   - Errors: 422 for a query GitHub cannot run is invalid_request at /query; GitHub's primary and
//     secondary rate limits (403 or 429) are rate_limited with Retry-After (60 s when GitHub sends
//     none the client can read); 401 and other 4xx are provider_error, not retryable. A README 404
//     is not_found ("the repository has no README").
//   - details: {full_name, path, markdown (up to 100,000 characters, valid UTF-8, byte-order mark
//     dropped), truncated, html_url}, links to the repository and the README page.
//
// # Sandbox
//
// A query mentioning "router" answers two pages of Go routers; any other query the static-site
// generator fixture; README routes exist for every repository those fixtures list.
package github
