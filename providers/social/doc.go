// Package social holds social.search (spec section 4.6): posts or profiles on the short-post
// network (platform_a, the X API v2) or the forum network (platform_b, Reddit's Data API).
//
// Upstream endpoints:
//   - X (provider x, https://api.x.com, key required, sent as "Authorization: Bearer <key>", an
//     app-only token): GET /2/tweets/search/recent with query, max_results (10..100),
//     next_token, tweet.fields=created_at,public_metrics,author_id,lang, expansions=author_id and
//     user.fields=username,name,verified,public_metrics,location ({data, includes.users, meta
//     {result_count, next_token, newest_id, oldest_id}, errors}); GET /2/users/by with usernames
//     (up to 100) and user.fields (+description,created_at) for profiles; the details action reads
//     GET /2/tweets/{id} (tweet.fields incl. note_tweet, conversation_id, referenced_tweets;
//     expansions=author_id) and GET /2/users/{id} (the full public profile fields).
//   - Reddit (provider reddit, https://oauth.reddit.com, key required): application-only OAuth.
//     PROVIDER_REDDIT_KEY is "<client id>:<client secret>:<reddit username>" (one key field, so
//     the console's key input and the generic PROVIDER_<ID>_KEY setting carry it). A token comes
//     from POST https://www.reddit.com/api/v1/access_token (HTTP Basic client id:secret, body
//     grant_type=client_credentials, form-encoded) answering {"access_token", "token_type":
//     "bearer", "expires_in", "scope"}; it is cached per deployment key until a minute before
//     expires_in runs out, and an API 401 drops it and retries once. Every call sends
//     "Authorization: Bearer <token>" and the User-Agent Reddit requires,
//     "server:capgate:<version> (by /u/<reddit username>)". GET /search with q, type=link (posts)
//     or type=user (profiles), limit, after and raw_json=1 (a Listing {kind, data {after, dist,
//     children [{kind: t3|t2, data}]}}); the details action reads GET /comments/{id} (raw_json=1,
//     limit=10, depth=1, sort=top: an array of two listings, the post and its comment tree) and
//     GET /user/{name}/about ({kind: t2, data}). A base URL other than the OAuth host (a mirror,
//     a test fake, the sandbox) serves the token at <base>/api/v1/access_token.
//
// Decisions where the spec is silent:
//   - Profiles on platform_a are looked up by handle with /2/users/by. X's /2/users/search exists
//     but its OpenAPI document (xdevplatform/xdk specs/openapi.json, API version 2.167) allows only
//     OAuth2UserToken and UserToken for it, never the app-only BearerToken this gateway holds
//     (older docs also restricted it to Pro access with user auth); an app token gets 403
//     "Unsupported Authentication". So with kind profiles the platform_a query is a list of 1 to
//     100 X handles (spaces, commas or semicolons between them, optional @), checked as a rule
//     beyond the schema at /query (the spec lists no rules for social.search; this one is the
//     upstream's). Handles are deduplicated case-insensitively; records follow the query's order;
//     handles X has no account for are named in a note with X's reason. Paging walks the handle
//     list num at a time (state {"offset": n}).
//   - Profiles on platform_b are Reddit users (type=user); communities (type=sr) are not searched,
//     so /r/{name}/about.json is not used. The subreddit of a post is the post's subreddit key.
//   - X's recent search takes max_results 10..100 while num is 1..25. A page asks X for
//     max(num still missing, 10) posts, shows num and keeps the posts not shown (with their
//     expanded authors, as X sent them) in the paging state {"next_token", "buffer"}; `more`
//     serves the buffer without a new, billed read and calls X again with next_token only when
//     the buffer holds fewer than num posts. This keeps the cursor correct without re-reading a
//     page (the first page of a recent search changes as new posts arrive, so an offset into a
//     re-read page would skip or repeat posts).
//   - Reddit pages follow its after cursor (state {"after": fullname}); limit is num. Should
//     Reddit answer more children than limit, the page shows num and continues after the last
//     record shown.
//   - Charging: every search page (execute, more, update) costs the spec's typical 2 credits on
//     both platforms, including platform_a pages served from the buffer. Details (ActionLookup,
//     Action.Credits 5): a platform_a post 5 credits (X pay-per-use "Posts: Read" $0.005 per
//     resource), a platform_a profile 10 credits via Detail.Credits (X "User: Read" $0.010), a
//     platform_b lookup 0 via Detail.Credits (Reddit is free). The prices are those of X's public
//     pricing page (docs.x.com/x-api/getting-started/pricing); X says the binding rates are the
//     ones its Developer Console shows for the deployment's account, so a deployment on other
//     rates must change xPostReadCredits / xUserReadCredits.
//   - Availability: both networks are keyed and each serves its own platform, so
//     Capability.Providers is empty (neither gates the other); a platform_a call without
//     PROVIDER_X_KEY, or a platform_b call without PROVIDER_REDDIT_KEY, answers
//     capability_unavailable naming the variable, and the catalog description says so (for
//     Reddit: it serves API clients only with OAuth).
//   - Reddit's allowance: 100 queries a minute per OAuth client id (averaged over 10 minutes),
//     reported in X-Ratelimit-Used, X-Ratelimit-Remaining and X-Ratelimit-Reset (seconds to the
//     end of the window). The provider is spaced to 100/60 requests a second per process; when an
//     answer reports nothing remaining, calls answer rate_limited (Retry-After: the reset) without
//     calling until the reset; a 429 without Retry-After waits for that reset when known, else
//     60 s. A refused token request (401 {"message": "Unauthorized", "error": 401}, or HTTP 200
//     {"error": "unsupported_grant_type" | "invalid_grant"}) is a non-retryable provider_error
//     whose hint gives the key's format.
//   - Record keys. platform_a posts: author = username, author_name = display name, created_at,
//     likes = like_count, reposts = retweet_count (quotes are in the details), replies =
//     reply_count, views = impression_count. platform_a profiles: author, author_name,
//     created_at (account creation), followers, following, posts = tweet_count (post_count, the
//     name in X's newest OpenAPI, is read when tweet_count is absent), verified, location.
//     platform_b posts: author, created_at (created_utc), subreddit, score, comments =
//     num_comments, subscribers = subreddit_subscribers, link_url = the linked page of a link post
//     (url_overridden_by_dest, absent for text posts); likes/replies/views are left out on
//     platform_b (score and comments are its engagement keys; Reddit's view_count is always
//     null). platform_b profiles: author, author_name = the profile title when it differs from
//     the name, created_at, karma = total_karma (link + comment karma when total is absent),
//     followers = subscribers of the profile subreddit, verified = Reddit's verified flag.
//     Deleted or removed authors and bodies ("[deleted]", "[removed]") count as absent.
//   - Titles: a post's text on one line cut to 100 characters (snippet: the whole text); "Name
//     (@handle)" for X accounts; the Reddit post title; "u/<name>" for Reddit accounts. Fallbacks
//     ("Post by @handle", "Reddit post <id>") keep titles non-empty. created_at is RFC 3339 in UTC
//     at second precision. URLs are the public sites (x.com, www.reddit.com), never the configured
//     base URL.
//   - Details bodies: platform_a post {platform, kind, id, text (note_tweet's full text for long
//     posts), created_at, lang, conversation_id, possibly_sensitive, reply_settings, engagement
//     {likes, reposts, replies, quotes, bookmarks, views}, referenced_posts, author, url};
//     platform_a profile {id, username, name, description, location, created_at, verified,
//     verified_type, protected, website, profile_image_url, pinned_post_id, counts {followers,
//     following, posts, listed, likes, media}, url}; platform_b post {title, author, subreddit,
//     created_at, text, score, upvote_ratio, comments, crossposts, subscribers, link_url, domain,
//     flair, over_18, spoiler, locked, video, edited_at, removed_by, url, top_comments (up to 10
//     top-level comments, text cut to 1,000 characters)}; platform_b profile {name, id,
//     created_at, karma {total, posts, comments, awardee, awarder}, verified, has_verified_email,
//     is_employee, is_moderator, premium, suspended, accepts_followers, icon_url, title,
//     description, followers, over_18, url}. Keys are left out when the source has no value.
//   - X errors: 400 on a search → invalid_request at /query with X's message (also an HTTP 200
//     answer holding only an invalid-request problem); 401 → provider_error (not retryable,
//     names PROVIDER_X_KEY); 402 → provider_allowance (the deployment's X credits are used up);
//     403 → provider_error (not retryable; client-forbidden says the app needs API access); 404
//     on a lookup and an HTTP 200 lookup answer with only errors → not_found; 429 with the
//     usage-capped problem → provider_allowance, any other 429 → rate_limited (retryable);
//     5xx → retryable provider_error; malformed JSON → provider_error.
//   - Reddit errors: a 403, or any answer that is not JSON (its HTML "blocked" page, sometimes
//     with HTTP 200) → provider_error, not retryable, saying Reddit blocks some datacenter
//     networks (the spec's caveat); a 403 with a JSON reason (private, quarantined) or a 404 on a
//     lookup → not_found; 429 → rate_limited; 400 on a search → invalid_request at /query; 5xx →
//     retryable provider_error; a listing without data → provider_error.
//   - Throttling waits: the shared client keeps only Retry-After from an error answer, while X
//     sends x-rate-limit-reset; without Retry-After an X throttle answers rate_limited with
//     Retry-After 60 s (Reddit: see its allowance above).
//   - Upstream JSON is decoded leniently: absent, null or mistyped fields count as absent (never a
//     panic), numeric strings are read as numbers, list elements and listing children of other
//     kinds are skipped. Records without a usable id offer no record action.
//   - Sandbox: fixed recorded-shape data. The users/by fixture holds NASA, SpaceX, NASAArtemis and
//     esa, so a sandbox profile lookup of other handles finds nothing and says so in a note; the
//     lookups answer the first record of each example (a fixed post, profile, thread, account).
//
// providers.md marks nothing "check" for social.search. What could and could not be confirmed:
//   - Confirmed: recent search parameters, max_results 10..100 and the response envelope
//     (docs.x.com recent-search reference; tweepy's recorded cassettes); Post and User fields and
//     public_metrics names (X's data dictionary, xdevplatform/xdk OpenAPI); users/search being
//     user-context only (xdk OpenAPI security); the pay-per-use prices ($0.005 post read, $0.010
//     user read, 24-hour de-duplication: a post already read by a search is usually not billed
//     again that UTC day, yet the spec's per-post charge is kept); the problem bodies for invalid
//     requests, unsupported authentication, client-forbidden and usage-capped (client libraries'
//     tests and issue reports); Reddit's Listing, t3 and t2 shapes (reddit-api-doc-notes, client
//     models) and that Reddit answers some networks 403 "Blocked" (libreddit and redlib issues);
//     Reddit's OAuth rules (the Data API wiki on support.reddithelp.com and reddit-archive/reddit
//     wiki "API" and "OAuth2": OAuth required, the User-Agent form, the X-Ratelimit-* headers,
//     100 queries a minute per client id for OAuth clients and about 10 for others since July
//     2023; the application-only client_credentials grant and the token answer).
//   - Not confirmed: the body of X's HTTP 402 (credits depleted; only the status and a 185-byte
//     JSON length were seen in reports), the exact wording of Reddit's blocked page (the adapter
//     only checks that the answer is not JSON), whether Reddit's X-Ratelimit-Reset counts from
//     the request or the window start (it is read as seconds from the answer), and whether X bills the author user
//     expanded into a post lookup as a separate user read.
package social
