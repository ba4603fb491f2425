// Package realestate adapts a Zillow-data API, the "Zillow.com" API by apimaker on RapidAPI
// (provider `zillow`, PROVIDER_ZILLOW_URL / PROVIDER_ZILLOW_KEY; default base URL
// https://zillow-com1.p.rapidapi.com; the key goes in X-RapidAPI-Key and the API's host in
// X-RapidAPI-Host), to the capability realestate.search (spec section 4.25): page paging, deadline
// 15 s, typical credits 4 per page, record action details (a provider lookup, 4 credits when fresh,
// cached by the gateway on repeat).
//
// # Upstream endpoints
//
//   - GET {base}/propertyExtendedSearch?location=&status_type=ForSale|ForRent|RecentlySold&home_type=
//     &minPrice=&maxPrice= (ForSale, RecentlySold) or &rentMinPrice=&rentMaxPrice= (ForRent)&bedsMin=
//     &bathsMin=&sort=&page= . The answer is {props: [{zpid, address (one line), price, bedrooms,
//     bathrooms, livingArea, lotAreaValue, lotAreaUnit, propertyType, listingStatus, daysOnZillow,
//     dateSold, latitude, longitude, country, currency, imgSrc, detailUrl, variableData,
//     listingSubType, zestimate, rentZestimate, unit, units [{price, beds}], ...}], resultsPerPage,
//     totalPages, totalResultCount}. An exact address answers the property's zpid alone (a building,
//     a list of ids).
//   - GET {base}/property?zpid= : the property's facts {zpid, address {streetAddress, city, state,
//     zipcode, neighborhood}, homeType, homeStatus, price, currency, bedrooms, bathrooms, livingArea,
//     lotAreaValue, lotAreaUnits, lotSize, yearBuilt, description, zestimate, rentZestimate,
//     monthlyHoaFee, propertyTaxRate, county, daysOnZillow, brokerageName, lastSoldPrice, dateSold,
//     dateSoldString, latitude, longitude, url, hdpUrl, priceHistory [{date, time, price,
//     pricePerSquareFoot, priceChangeRate, event, source, ...}], ...}.
//   - Errors come from RapidAPI's gateway as {"message": "..."}: 401 invalid key, 403 not subscribed,
//     429 for the per-second rate limit and for the monthly quota.
//
// # Decisions where the spec is silent
//
//   - Paging: one caller page reads one API page (the API's pages hold about 40 listings; it serves
//     at most 20 pages) and holds the next `num` listings of it that pass the local home-type filter
//     (below); the state is {"page": P, "offset": I}, I being the index in API page P where the next
//     caller page starts reading. So a caller page never straddles two API pages, each page (also a
//     re-read of the same API page) is one API request billed the typical 4 credits, nothing is
//     skipped or repeated, and pages hold at most 20 listings (within the spec's cap of 24). The
//     next API page is read while P < totalPages (or, without totalPages, after a full page of
//     resultsPerPage listings) and P < 20; past page 20 a note tells the caller to narrow the search.
//     A page can be empty while has_more is true when the local filter drops every listing of the
//     rest of an API page.
//   - home_types: for sale and sold, house → Houses, condo → Condos, townhouse → Townhomes,
//     multi_family → Multi-family, apartment → Apartments, land → LotsLand, manufactured →
//     Manufactured (comma-separated). For rent the API knows only Houses, Townhomes and
//     Apartments_Condos_Co-ops: apartment and condo both send the latter, and when a requested type
//     has no rent value (land, multi_family, manufactured) no home_type is sent. Records are always
//     filtered here by their propertyType (SINGLE_FAMILY → house, CONDO → condo, TOWNHOUSE →
//     townhouse, MULTI_FAMILY → multi_family, APARTMENT → apartment, LOT → land, MANUFACTURED →
//     manufactured); a listing without a propertyType is kept.
//   - Prices: min_price → minPrice / rentMinPrice rounded up, max_price → maxPrice / rentMaxPrice
//     rounded down (the API takes whole dollars); min_price 0 sends nothing. The rule beyond the
//     schema refuses min_price above max_price at /min_price. min_beds → bedsMin, min_baths →
//     bathsMin. sort: relevance sends nothing (the API's default, Homes_for_You / Verified_Source);
//     newest → Newest, price_asc → Price_Low_High (rent: Payment_Low_High), price_desc →
//     Price_High_Low (Payment_High_Low), beds → Bedrooms, baths → Bathrooms, sqft → Square_Feet.
//     query is sent trimmed as `location`.
//   - Records: title is the one-line address (else "Zillow property <zpid>"), url the listing page
//     (detailUrl on zillow.com, else /homedetails/<zpid>_zpid/). street, city, state and zipcode are
//     read from the address "street, city, ST 12345" (parts that do not fit are left out);
//     home_type as above (other types lower-cased); home_status for_sale, for_rent, sold
//     (RECENTLY_SOLD) or Zillow's other status lower-cased; status_text, broker, date_price_changed
//     (YYYY-MM-DD) and is_showcase from statusText, brokerName, datePriceChanged and
//     isShowcaseListing when present; price (> 0), beds (>= 0: 0 is a studio), baths, sqft
//     (livingArea), lot_sqft (lotAreaValue, acres converted at 43,560 sqft), days_on_zillow (>= 0;
//     Zillow writes -1 for sold homes), latitude/longitude (not 0,0). price_label is "$649,000",
//     "$2,450/mo" for rents, "300,000 CAD" in another currency, or a rental building's first unit
//     price as Zillow writes it ("$2,850+/mo"). price_kind follows the listing's status, else the
//     requested listing_status: listing_price, monthly_rent, reported_sold_price, or unknown. An item
//     without a numeric zpid is dropped. fetched_at is the time of the answer (RFC 3339 UTC).
//   - details body: zpid, url, address {street, city, state, zipcode, neighborhood}, home_type,
//     home_status, price, currency, beds, baths, sqft, lot {value, unit}, year_built, description
//     (at most 3,000 characters), zestimate, rent_zestimate, monthly_hoa_fee, property_tax_rate,
//     county, brokerage, days_on_zillow, latitude, longitude; last_sale {status: reported | unknown,
//     price, date}: from lastSoldPrice (> 0) and dateSoldString / dateSold, else from the newest
//     "Sold" event of the history; a zero or absent price or date is left out, never written as 0;
//     price_history (up to 30 events, newest first as Zillow lists them: date, event, price,
//     price_per_sqft, source) with price_history_total. Link: the listing on Zillow. A 404, or an
//     answer without a zpid, address or price, is not_found.
//   - Errors: 401/403 → provider_error, not retryable (key or subscription refused); 429 whose
//     message names the per-second rate limit → rate_limited (retryable, Retry-After 1 s unless
//     given); another 429 keeps the client's mapping (provider_allowance without Retry-After: the
//     monthly quota); 5xx provider_error with RapidAPI's message. A 200 answer without props but with
//     a message or error string is a provider_error carrying it; without either, an empty result.
//
// # Not confirmed from an official page
//
// The API's parameters and their values (status_type, home_type for sale and for rent, the sort
// values per listing kind, minPrice/maxPrice vs rentMinPrice/rentMaxPrice, bedsMin, bathsMin, page
// up to 20, location up to 100 characters) are from the API's RapidAPI documentation as republished
// in public tool definitions; the RapidAPI pages themselves could not be read. Not confirmed: (1)
// the full props item and /property shapes (fixtures follow field names seen in public client code;
// their listings are illustrative), in particular statusText, brokerName, datePriceChanged and
// isShowcaseListing in props, which may be absent (the keys are then omitted); (2) resultsPerPage
// (about 41); (3) the exact shape of the exact-address answer and of a building's list of ids; (4)
// how the API answers an unknown location (an empty props list is assumed), a location over 100
// characters (the spec allows 300: it is sent as given and the API's refusal is passed on) or an
// unknown zpid (404 assumed); (5) the RapidAPI error wordings used in the test fixtures.
package realestate
