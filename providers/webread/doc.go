// Package webread holds web.read (named only in the spec's section 1; shaped by the product's
// issue and DESIGN.md section 4, "design each like its nearest sibling"): one public web page
// read as Markdown. Single result, update not offered, no record actions, deadline 15 s, typical
// credits 5 ($0.005 per page).
//
// The reading itself (the Jina-style reader upstream, the SSRF guard, the redirect pre-flight,
// the record of a page, the sandbox) is providers/upstream/pageread, which web.search's and news.search's
// record action `read` use as well; its package documentation cites the upstream sources. This
// package declares the capability: its request schema and rules (pageread.Check, so a URL that
// fails the static checks is refused at validation) and its one record (pageread.Page.Record).
package webread
