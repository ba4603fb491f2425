// Package scripture holds scripture.search (spec section 4.5): Bible and Quran verses by reference
// or by phrase. Paging offset, deadline 15 s, typical credits 0, topic "Research and reading",
// record action details (a free provider lookup, cached by the gateway). The spec's neutral "the
// service" value of text is the Quran: the wire values of text are "bible" and "quran".
//
// # Upstream endpoints
//
//   - bible-api.com (provider bibleapi, https://bible-api.com, keyless; the service throttles each
//     client to 15 requests per 30 s, so the provider is bounded to 0.5 requests a second):
//     GET /{ref}?translation={code} answers {reference, verses[{book_id, book_name, chapter, verse,
//     text}], text, translation_id, translation_name, translation_note}; failures are 404
//     {"error": "not found"} (unknown passage), 404 {"error": "translation not found"} and, since
//     January 2026, 400 {"error": "too many chapters", "detail", "why"} for a verse range across
//     more than one chapter boundary (seven1m/bible_api app.rb display_verse_from and
//     spec/requests/*.rb). The service also blocks an address for an hour after more than 10 404s
//     in 30 s, answering every request with a plain-text 403 "Forbidden\n" (lib/abuse_middleware.rb:
//     limit 10, window 30, block_time 3600); fixture bibleapi_blocked_403.txt. That 403 is a
//     retryable provider_allowance with Retry-After one hour, and this process sends no further
//     bible-api.com call until the hour is over (the pypistats pause; per process, not per fleet):
//     references answer the same error with the rest of the hour, phrase search (API.Bible) is not
//     affected. A 400 "too many chapters" that still arrives is a violation at /reference. The
//     reference is sent with the book's USFM code ("JHN+3:16-18", "1CO+13"): the service's parser
//     (seven1m/bible_ref languages/base.rb) accepts a code in every translation's language, whereas
//     English names fail in the Spanish, Portuguese, Chinese … translations. Whole chapters (the
//     reference form "Book C" and the details lookup) add single_chapter_book_matching=indifferent
//     so that "JUD+1" is Jude's chapter, not its first verse.
//   - API.Bible (provider apibible, https://rest.api.bible, key in the api-key header, key
//     required): GET /v1/bibles/{bibleId}/search?query=&limit=&offset= answers {query, data:
//     {query, limit, offset, total, verseCount, verses[{id, orgId, bibleId, bookId, chapterId, text,
//     reference}], passages[…]}} (docs.api.bible/guides/search); errors are {"statusCode",
//     "error", "message"}. Only whole-Bible phrase search uses it. Answers with Scripture also
//     carry meta.fumsToken for API.Bible's Fair Use Management System (docs.api.bible/guides/
//     fair-use, resources/fair-use): web apps that display the text report each display with
//     API.Bible's JavaScript tracker, the token and a device and session id. The gateway displays
//     nothing, so it does not report; it hands the token to the caller in a page note (the app that
//     shows the verses can report them), and the fixtures carry meta in the documented shape.
//     Allowance (docs.api.bible API reference, "Rate Limiting", read 2026-11-26): "up to 500
//     consecutive verses at a time and ... 5,000 queries per day" per key. A search asks for num
//     verses (at most 25; the limit sent is clamped to 500 in any case) and passages are never
//     fetched from API.Bible, so the verse bound holds by construction. The daily bound is counted
//     here (apibible_quota.go): live calls per UTC day per base URL, in this process; the 5,001st
//     is not sent but answered provider_allowance (retryable, Retry-After until 00:00 UTC, a hint
//     to read by reference, which uses bible-api.com). An API.Bible 429 without a short
//     Retry-After is the same answer and ends the day's calls too. Not settled: docs.api.bible's
//     newer quick-start "Rate Limiting" page lists plans instead (Starter 5,000 calls a month, Pro
//     150,000 a month, reset monthly); a Starter key's monthly end arrives as that 429. Instances
//     of a fleet count apart, and when API.Bible's day starts is not documented (UTC assumed).
//   - Quran.com API v4 (provider quran). With PROVIDER_QURAN_KEY=<client_id>:<client_secret> it
//     is the Quran Foundation's Content API (https://apis.quran.foundation/content/api/v4,
//     api-docs.quran.foundation "Content APIs": OAuth2 client credentials with scope content,
//     then x-auth-token and x-client-id on every call; the token is taken once from
//     https://oauth2.quran.foundation/oauth2/token (provider quran_oauth, HTTP Basic, form
//     grant_type=client_credentials&scope=content, answer {access_token, expires_in, scope,
//     token_type}) and kept until 30 s before it expires; a 401 drops it. quranauth.go follows
//     quran/api-js sdk/fetcher.ts). Phrase search then uses the Content API's documented search
//     (GET /search, same parameters and {search{…}} answer). A refused client ({"error":
//     "invalid_client", "error_description"}) is a non-retryable provider_error whose hint names
//     the setting. Without the key the keyless legacy host https://api.quran.com/api/v4 is the
//     fallback, as before:
//     GET /verses/by_key/{s}:{a} and GET /verses/by_chapter/{s}?page=&per_page=50, both with
//     translations={id}&translation_fields=resource_name&fields=text_uthmani&words=false, answer
//     {verse{…}} and {verses[…], pagination{per_page, current_page, next_page, total_pages,
//     total_records}} with verses {id, verse_number, verse_key, …, text_uthmani, translations[{id,
//     resource_id, text, resource_name}]} (quran/quran.com-api app/views/api/v4/verses and
//     presenters); GET /search?q=&size=&page=&language=en&translations={id} answers {search: {query,
//     total_results, current_page, total_pages, results[{verse_key, verse_id, text, highlighted,
//     words, translations[{text, resource_id, name, language_name}]}]}} (the Content API search
//     reference and SearchPresenter). Errors are {"status": 404, "error": …}.
//
// # Decisions where the spec is silent
//
//   - Only bibleapi and quran are required providers (both keyless), so the capability is available
//     without an API.Bible key; a whole-Bible phrase search in a deployment without that key answers
//     capability_unavailable with a hint to search by reference (or within a passage) instead.
//   - translation defaults per text through the schema: an anyOf with one branch per text value
//     carries default "KJV" or "131" (the gateway follows the branch whose const matches). An
//     update that switches text without naming a translation drops the stored one (Merge), so the
//     new text's default applies instead of a KJV-for-the-Quran violation.
//   - Bible references: the 66 books of the Protestant canon with their English names and common
//     abbreviations (SBL-style and the ones bible-api.com documents, "Jn", "1 Cor", "Ps", "Song"),
//     roman and ordinal prefixes ("I Cor", "First John"), ":" or "." between chapter and verse, en
//     dashes. Forms: "Book C" (a chapter), "Book C:V", "Book C:V-V", "Book C:V-C:V". Every
//     reference is checked by the capability's rules, before any call, so that misses do not count
//     towards the block above: chapters against each book's chapter count (KJV division, which all
//     served translations share for these books), verses against the chapter's verse count
//     (verses.go: the KJV's 1,189 chapters and 31,102 verses, plus 3 John 1:15 and Revelation
//     12:18 which WEB and OEB number; the Vulgate, Douay-Rheims, Synodal and Kralice translations
//     number psalm titles and a few moved verses their own way, so they get 3 verses of slack).
//     "Ez" is refused as ambiguous (Ezra or Ezekiel). Chapter ranges ("Ps 23-24") are refused,
//     because bible-api.com refuses them ("too many chapters"); a verse range may cross one
//     chapter boundary ("John 3:16-4:2") and no more (a range over 3 or more chapters is refused). In one-chapter books a single number is a verse and the book alone the
//     chapter, as bible-api.com reads them. CHEROKEE has only the New Testament: an Old Testament
//     reference with it is refused at /reference.
//   - Bible translations are bible-api.com's 21 identifiers (case-insensitive); the record shows
//     the code upper-cased (KJV, OEB-CW). Whole-Bible phrase search needs the translation on API.Bible
//     too: KJV de4e12af7f28f599-02, ASV 06125adad2d5898a-01, WEB 9879dbb7cfe39e4d-04, WEBBE
//     7142879509583d59-04, DRA 179568874c45066f-01; other translations are refused at /translation
//     for a query without a reference. Quran translations are Quran.com resource ids (digits); an id
//     Quran.com does not know (it then returns no translations) is refused at /translation.
//   - query alone is the source's own full-text search: API.Bible matches verses containing all the
//     words in any order (it documents no exact-phrase operator; * and ? wildcards pass through),
//     Quran.com stems and boosts Arabic hits. The query is sent as given, trimmed.
//   - query with reference: the passage is fetched and its verses kept when they contain the phrase
//     as whole words, ignoring case and punctuation (the Quran's Arabic text is matched too); a note
//     says so and how many verses matched. Paging is then local by offset over the kept verses.
//   - Paging state is {"offset": N} everywhere. A Bible passage is fetched whole (one call; the
//     service returns the full range) and sliced by offset; a Quran passage is read by ayah window
//     (ayahs from+offset … +num-1) from the by_chapter pages of 50 that cover it (at most two calls;
//     one ayah uses by_key). API.Bible search pages by its own offset (limit = num); Quran.com search
//     maps the offset to its page (offset / num + 1, size = num). has_more follows the source's
//     total (API.Bible total, Quran.com total_pages) or the passage's end.
//   - Records: title "Book C:V (KJV)"; for the Quran "Surah-name S:A (translation name)". Keys text,
//     book, translation (string) and chapter, verse (integer) always; arabic (text_uthmani) for the
//     Quran; translation_name (an extra key) when the source names the translation; url only for the
//     Quran (https://quran.com/{s}/{a}). For the Quran, book is the surah's Quran.com name, chapter the
//     surah number and verse the ayah number. No snippet: text is the verse. Verse text is cleaned:
//     Quran.com footnote markers (<sup foot_note=…>n</sup>) removed with their number, other tags
//     (search <em> highlights) stripped, entities decoded, whitespace collapsed. A Quran.com search
//     hit (or an ayah) without text in the requested translation keeps the Arabic as text with
//     translation "arabic" and a page note, rather than being dropped. Verses without a chapter,
//     verse number or text are left out; fields of an unexpected JSON type are read as absent.
//   - details: bible-api.com GET /{BOOK}+{chapter}?translation=&single_chapter_book_matching=indifferent,
//     or the whole surah from by_chapter (up to 6 pages of 50 for Al-Baqarah). Body: text, book /
//     surah_name, chapter / surah, translation, translation_name, (translation_note, reference),
//     verse_count / ayah_count and verses[{verse, text, arabic}]; links: the bible-api.com chapter
//     URL or the surah's quran.com page. A chapter the source no longer has is not_found. An API.Bible
//     hit in a book outside the 66 (a deuterocanonical book of DRA) gets no details action.
//   - Errors: bible-api.com and Quran.com 404s are violations at /reference (or /translation); a
//     refused search is a violation at /query; API.Bible 401/403/404 and Quran.com 401/403 (the OAuth
//     host) are non-retryable provider_error; throttling, 5xx, timeouts and malformed JSON go
//     through the shared client (rate_limited / provider_allowance, retryable provider_error,
//     provider_timeout).
//
// # Checks
//
// providers.md marks the Quran.com authentication "check": confirmed from the Quran Foundation's
// Content API spec (quran/api-js content-v4.json) that the newer host apis.quran.foundation requires
// OAuth2 client-credentials tokens (x-auth-token, x-client-id); the adapter uses it when
// credentials are configured and keeps the keyless api.quran.com/api/v4 as the fallback (a
// 401/403 from a keyless call says which setting to use). The Quran Foundation also runs a Search
// API (apis.quran.foundation/search, GET /api/v1/search with mode=quick|advanced, scope search);
// its advanced answer's shape is not published beyond the field list, so the Content API's search,
// whose answer is documented, is used instead. The task's
// checks: API.Bible's current host is rest.api.bible (docs.api.bible); the KJV id
// de4e12af7f28f599-02 is confirmed by a recorded /v1/bibles answer in a client's fixtures
// (phillipsk/BibleBible); the ASV, WEB, WEBBE and DRA ids come from several client code bases, not
// an official list (API.Bible's Bible list needs a key). bible-api.com's translation list is the one
// its own test suite pins (spec/requests/data_api_spec.rb).
//
// Not confirmed from an official page: the exact message texts of API.Bible's 400/403 bodies (the
// fixtures' messages are illustrative; the {statusCode, error, message} shape is from a recorded
// 401), the members of API.Bible's passages entries, Quran.com's default for words (older docs say
// true, newer false; words=false is sent), and the per_page cap of 50 (the API's source and the
// search reference). Sandbox and test fixtures follow the shapes above; the Bible texts are the
// public-domain KJV and Almeida wording, the Clear Quran texts are reproduced for shape, and verse
// ids, translation row ids, footnote ids, page/hizb/ruku numbers and search totals are illustrative.
package scripture
