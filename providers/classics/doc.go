// Package classics holds classics.search (spec section 4.14): public-domain ebooks from Project
// Gutenberg's catalog through Gutendex, with English Wikisource as the fallback source.
//
// Upstream endpoints:
//   - Gutendex (provider gutendex, https://gutendex.com, keyless): GET /books/ with search,
//     languages (when given) and page. Answers {count, next, previous, results}, 0 to 32 books
//     a page, most downloaded first; a book is {id, title, authors[{name, birth_year,
//     death_year}], summaries[], translators[], subjects[], bookshelves[], languages[],
//     copyright, media_type, formats{mime: url}, download_count}. Errors are Django REST
//     framework's {"detail": "..."}; a page past the last is 404 "Invalid page.".
//   - Wikisource (provider wikisource, https://en.wikisource.org/w, keyless, identifying
//     User-Agent sent by the client): GET /api.php, always format=json&formatversion=2, with
//     action=query&list=search&srsearch&srlimit&sroffset (the fallback search),
//     action=query&prop=links&pageids&plnamespace=102&pllimit=max (authors),
//     action=query&prop=extracts&explaintext=1&exsectionformat=plain&exlimit=1&pageids and
//     action=parse&pageid&prop=text&disableeditsection=1&disablelimitreport=1 (details).
//     Failures come with HTTP 200 as {error{code, info, docref}, servedby}.
//   - Project Gutenberg, through a mirror (provider gutenberg, https://gutenberg.pglaf.org,
//     keyless): GET /cache/epub/{id}/pg{id}.txt with Range: bytes=0-65535 (the details excerpt).
//     Project Gutenberg's terms of use say the site is for human users and that automated
//     downloading must use one of its mirrors (gutenberg.org/policy/terms_of_use and the mirror
//     list MIRRORS.ALL); PGLAF's mirror serves the same /cache/epub tree, and
//     PROVIDER_GUTENBERG_URL picks another mirror that does. Texts are read at most one every 2
//     seconds (fleet wide with Redis) and kept in process (ttlcache: 512 texts, a day; a missing
//     file an hour; failures not kept), so a repeated details lookup never calls again. Record
//     URLs and links still name www.gutenberg.org, the pages people read.
//
// Decisions where the spec is silent:
//   - Search terms: Gutendex's search splits its value on spaces and keeps books where every
//     word is in the title or an author's name, and searches nothing else. query and author are
//     therefore joined into one search value ("voyage Jules Verne"), whitespace normalized; a
//     book must match every word of both, each in its title or its authors. The fallback sends
//     the same words to Wikisource's full-text search.
//   - The list path is /books/ (with the slash): Django's router registers it so and the next
//     links Gutendex returns use it; /books redirects there.
//   - Paging maps num onto Gutendex's fixed 32-book pages: the state {"source":"gutendex",
//     "page":P,"offset":O} names the Gutendex page and the index of the next book on it. A page
//     of num books is sliced from one Gutendex page and, when it runs past its end and
//     Gutendex has a next page, completed from that page (one extra call at most, since num <=
//     25 < 32). has_more follows Gutendex's next (or books left on the page read). If the
//     completing call fails, the books already read are returned with the state of the failed
//     page, so `more` retries it. A 404 on a page after the first (the catalog shrank between
//     calls) is an empty last page. Wikisource pages by {"source":"wikisource","offset":N}
//     (srlimit=num, sroffset=N, has_more from continue.sroffset).
//   - Source choice: the capability lists only gutendex in Providers (the search starts there;
//     Wikisource stands in for it). The first page falls back to Wikisource when Gutendex is
//     not configured, its breaker is open, or it fails with provider_error, provider_timeout,
//     service_unavailable or provider_allowance; a short rate limit (rate_limited) is answered
//     as is. Gutendex gets at most 8 s (or half the remaining deadline) on the first page so a
//     timeout leaves the fallback time. A search continues on the source it started on: a
//     Gutendex failure on `more` is returned rather than mixing two result sets.
//   - Fallback pages carry one note naming the fallback, why it was used and the keys absent
//     from its records (snippet, languages, subjects, download counts) and, when a language
//     was given, that the language filter was not applied (English Wikisource is searched). A
//     second note appears when the authors lookup failed.
//   - Gutendex records: title (whitespace normalized; "Project Gutenberg ebook #<id>" when
//     null), url (https://www.gutenberg.org/ebooks/<id>), source ebook_library, authors as
//     catalogued ("Dickens, Charles": names are not reordered, since "Marcus Aurelius, Emperor
//     of Rome" shows that cannot be done safely), languages (lower case), subjects (first 10,
//     duplicates dropped), downloads (download_count; absent when null), snippet (the first
//     summary, whitespace normalized, cut at 600 characters). words is never set: Gutendex has
//     no word counts. Books with neither id nor title are dropped; books without an id offer
//     no details.
//   - Wikisource records: title, url (https://en.wikisource.org/wiki/<title>, spaces as
//     underscores), source wiki_library, words (wordcount) and authors: the Author: pages
//     (namespace 102) each result page links to, read with one prop=links call per page of
//     results. The header template links the work's author there, so this is how authors are
//     derived; translators, editors or illustrators credited in the header are linked the same
//     way and appear too (the note says so). No snippet: the spec lists it as absent.
//   - details (ActionLookup, 0 credits). Ebooks: the Ref carries the Gutenberg number and the
//     plain-text, EPUB and HTML URLs from the formats map (the bare media type first, then
//     UTF-8, then any charset; zip archives skipped). The excerpt reads the first 64 KiB of
//     /cache/epub/{id}/pg{id}.txt (the file the formats map's /ebooks/{id}.txt.utf-8 link
//     serves), drops the BOM, the licence header (up to "*** START OF THE/THIS PROJECT
//     GUTENBERG EBOOK ... ***", or the 1990s "*END*THE SMALL PRINT" line), the footer when
//     present and a leading "Produced by ..." credit, and keeps about 2,000 characters, cut at
//     a word boundary with an ellipsis (excerpt_truncated says so). A book without a plain-text
//     format is not fetched; a 404 gives a detail without excerpt and with a note; an HTML
//     answer (a block page) is a retryable provider_error. Links: Plain text, EPUB, HTML (those
//     the catalog lists) and the Project Gutenberg page.
//   - details of Wikisource pages: prop=extracts in plain text without exchars (TextExtracts
//     caps exchars at 1,200, below the 2,000-character excerpt; the excerpt is cut here). When
//     the extract is missing or shorter than 200 characters the page is rendered with
//     action=parse and its HTML turned into text (header and navigation in ws-noexport/noprint
//     blocks, edit links, footnote markers and references, scripts and styles dropped); the
//     longer text wins. Links: Plain text and EPUB through WS Export
//     (https://ws-export.wmcloud.org/?lang=en&page=<title>&format=txt|epub) and the page
//     itself as HTML. A missing page is not_found.
//   - MediaWiki error codes: ratelimited is rate_limited (Retry-After 5 s); maxlag and readonly
//     service_unavailable (Retry-After 5 s); internal_api_error_* a retryable provider_error;
//     missingtitle and nosuchpageid not_found; any other code a non-retryable provider_error.
//     A Gutendex refusal keeps the client's code and adds its "detail" to the message.
//   - Upstream JSON is decoded leniently: absent, null or mistyped fields count as absent
//     (never a panic), numbers may arrive as strings, list elements that do not decode are
//     skipped. An answer without its results list is a retryable provider_error.
//   - No request rate is set for Gutendex and Wikisource: neither publishes one (Wikimedia asks
//     for serial requests and an identifying User-Agent). The Gutenberg mirror is paced (above).
//
// What could and could not be confirmed (the brief's "check" items; providers.md marks none for
// this capability):
//   - Gutendex's list shape, parameters, 32-book pages, search semantics and {"detail"} errors
//     come from its README and source (github.com/garethbjohnson/gutendex: readme.md,
//     books/views.py, books/serializers.py, gutendex/settings.py PAGE_SIZE 32,
//     books/migrations/0004_summary.py); the summaries member and value shapes from recorded
//     answers quoted in client tests. Gutendex added editors[] (Persons, like authors; readme.md
//     and books/serializers.py): the fixtures carry it, and an ebook's editors travel in the
//     record's Ref to the details body ("editors"), since the spec's record keys have no place
//     for them. A cap of 32 search words is mentioned by a third-party summary but was not found in
//     the source; search values are sent whole.
//   - /cache/epub/{id}/pg{id}.txt is the path of the plain-text files widely used by clients;
//     that gutenberg.org honours Range on it (206) was not confirmed, so a full 200 answer is
//     handled too (up to the client's 8 MiB limit; larger files are a provider_error).
//   - TextExtracts on English Wikisource could not be confirmed either way. Its default
//     configuration removes every div, and Wikisource wraps transcluded text in divs, so the
//     extract is often empty there; that is why the rendered page backs it up. The Wikisource
//     header's ws-noexport class and the Author namespace number (102) follow Wikisource's
//     conventions as used by WS Export; the rendered-page fixture is shaped after them, not
//     recorded.
//   - WS Export's parameters (lang, page, format; formats epub and txt) come from its source
//     (github.com/wikimedia/ws-export: ExportController, GeneratorSelector).
//   - Fixture values (ids, counts, page ids, texts) are realistic but not recordings of today's
//     catalogs; the texts are shortened openings of the works.
package classics
