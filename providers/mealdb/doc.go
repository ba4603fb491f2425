// Package mealdb adapts TheMealDB (https://www.themealdb.com, provider id "mealdb") to the
// capability recipes.search (spec section 4.31): local paging, deadline 15 s, typical credits 0,
// record action details (a free provider lookup that is answered from the search when it can).
//
// # Upstream endpoints
//
// Base URL https://www.themealdb.com/api/json/v1; the API key is the next path segment, put there
// (path-escaped) by apiPath, so there is no Authorize hook. TheMealDB's API page
// (www.themealdb.com/api.php) reserves the public test key "1" for development and educational
// use and asks apps released to the public to use a supporter key. So the provider is
// KeyRequired: live calls wait for PROVIDER_MEALDB_KEY, and recipes.search is unavailable to live
// keys until it is set, the reason naming the setting and the supporter key. A development
// deployment sets PROVIDER_MEALDB_KEY=1 explicitly; test keys use the sandbox.
//
//   - GET /{key}/search.php?s={query}: meals whose name contains the words; full meal objects
//     {idMeal, strMeal, strMealAlternate (formerly strDrinkAlternate), strCategory, strArea,
//     strInstructions, strMealThumb, strTags ("Pasta,Curry"), strYoutube, strIngredient1..20,
//     strMeasure1..20, strSource, strImageSource, strCreativeCommonsConfirmed, dateModified}.
//     Unused ingredient and measure slots are "", " " or null.
//   - GET /{key}/filter.php?i={ingredient} | ?c={category} | ?a={area}: only
//     {strMeal, strMealThumb, idMeal} per meal.
//   - GET /{key}/lookup.php?i={idMeal}: {"meals": [one full meal]}.
//
// Every endpoint answers {"meals": [...]} and {"meals": null} when nothing matches.
//
// Where the shapes come from: the official page https://www.themealdb.com/api.php is not in the
// search corpus, so the shapes were taken from recorded answers. The search fixture's Arrabiata
// meal and the filter fixture are the recorded examples of github.com/api-evangelist/mealdb
// (examples/search-meal-by-name.json, examples/filter-by-category.json; that repository's
// json-schema/meal.json and Postman collections give the parameters and the
// "i=chicken_breast" form). The Toad In The Hole meal (older shape with strDrinkAlternate) and
// the Croatian Bean Stew lookup (slashes escaped, " " measures) are recordings kept as test
// fixtures in public client code on GitHub. The {"meals": null} empty answer is described by
// the educative.io TheMealDB course and every client library looked at.
//
// # Decisions where the spec is silent
//
//   - Exactly one selector: a body with none gets a violation at "" ("exactly one of query,
//     ingredient, category or cuisine is required"); a body with several gets one violation
//     for each selector after the first (in the order query, ingredient, category, cuisine),
//     at that selector's path, naming the one kept ("/cuisine: cuisine cannot be combined with
//     category ..."). Every selector also has "pattern": "\\S" in the schema, so a blank value
//     is refused at its own path.
//   - Update uses Capability.Merge: when params carry any non-null selector, the stored
//     selector is dropped first, so one supplied selector replaces the previous one; num and
//     everything else merge as usual (null removes a key); empty params leave the query as it
//     was, so the search is simply run again.
//   - Values are trimmed. Ingredient values have each run of spaces replaced by "_", as
//     TheMealDB documents ingredient filters (i=chicken_breast). Category and cuisine are sent as
//     given (TheMealDB names cuisines "areas"). TheMealDB's premium keys read a comma-separated
//     ingredient value as several ingredients; the adapter passes commas through unchanged.
//   - Local paging: the whole answer is one page (HasMore false, no Next); the gateway holds it
//     in the session and slices it by num. Meals are kept in TheMealDB's order; repeated ids
//     are dropped.
//   - Records: title is strMeal with whitespace collapsed ("Meal {id}" when the name is
//     missing; a meal with neither is dropped). url is the meal's page,
//     https://www.themealdb.com/meal/{idMeal}, always on the public site whatever base URL is
//     configured (strSource, when present, is in the details links instead: many meals have
//     none, and the page exists for every meal). attribution is always "Recipe data from
//     TheMealDB (https://www.themealdb.com), a free crowd-sourced recipe database." For name
//     searches (search.php) the record also has snippet (the instructions on one line, cut at a
//     word boundary to at most 240 characters with the "…"), category (strCategory) and cuisine
//     (strArea). TheMealDB files meals of no known cuisine under the area "Unknown"; that value
//     is left out like a missing one. filter.php lists no category, area or instructions, so
//     its records have no snippet, category or cuisine (the adapter does not echo the filter
//     value back as data), and the page carries a note saying so; an empty filter answer
//     carries a note that TheMealDB matches names exactly. Ids must be numeric strings (a JSON
//     number is accepted too); a meal without one has no url, and when it also has no full
//     data (a filter result) no record actions.
//   - details is an ActionLookup with Credits 0. A name search returns full meals, so their
//     details are built at search time and kept in Record.Stored["details"]; Run answers from
//     there without calling TheMealDB. Filter records (and any record whose stored detail is
//     gone) are looked up with lookup.php?i={id} from Ref {"id": ...}, free; the gateway caches
//     the answer. A meal TheMealDB no longer lists (null, or a different meal answered) is
//     not_found, and so is a record without a numeric id.
//   - Detail body: {id, name, category, cuisine, ingredients: [{ingredient, measure}],
//     instructions, tags, thumbnail, links: {source, video}}. ingredients pairs
//     strIngredientN with strMeasureN (N = 1..20), whitespace collapsed, dropping empty slots
//     and measures without an ingredient (measure is left out when blank); it is always an
//     array. instructions keeps TheMealDB's line breaks (\r\n become \n). tags splits strTags
//     on commas (trimmed, de-duplicated). thumbnail, links.source (strSource) and links.video
//     (strYoutube) are kept only when they are absolute http(s) URLs. Other keys are left out
//     when TheMealDB has no value. Detail links: "Recipe source" and "Video", when present.
//   - Odd upstream JSON: a field of an unexpected type reads as absent; array elements that
//     are not objects are skipped; "meals" as a "no data found"-style string is an empty result
//     (some clients report TheMealDB answering that way); any other string, a missing "meals",
//     or "meals" of another type is provider_error. HTML or truncated JSON is provider_error
//     (malformed JSON); upstream HTTP errors and 429 are mapped by the shared client.
//
// # Checks
//
// providers.md marks nothing about TheMealDB as "check". Its row (search.php?s=,
// filter.php?i=|c=|a=, lookup.php?i=, key in the path, "1" as the public test key) agrees
// with every source above. Not confirmed from an official page: the exact current field list
// (recent recordings carry strMealAlternate and strCountry instead of strDrinkAlternate; the
// adapter reads neither), the "no data found" string answer, how TheMealDB answers an invalid
// key (handled generically: a non-2xx status is provider_error and an HTML page is malformed
// JSON), and any request-rate limit (none is documented, so none is set). Third-party pages say
// free-key answers of listing endpoints are capped at 100 meals. The sandbox fixtures follow the
// recorded shape (strMealAlternate, strCountry); apart from the recorded Arrabiata and Croatian
// Bean Stew meals, their ids, texts, pictures and links are illustrative and may not match the
// live catalog.
//
// A supporter key travels in the request path, so transport errors that the shared client
// records (they quote the URL) can contain it; the public key "1" is not a secret.
package mealdb
