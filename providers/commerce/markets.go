package commerce

import (
	"context"
	"encoding/json"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/upstream/serpapi"
)

const (
	financeEngine   = "google_finance"
	financeSource   = "google_finance"
	quoteConcurrent = 4    // upstream calls in flight for one request
	maxSeriesPoints = 2000 // graph points stored for details
	financeQuoteURL = "https://www.google.com/finance/quote/"
)

// MarketsQuote is markets.quote (named only in the spec; designed from its nearest siblings).
var MarketsQuote = &providers.Capability{
	ID:      "markets.quote",
	Fresh:   time.Minute,
	Title:   "Market quotes",
	Summary: "Latest quotes of stocks, indexes, funds, currencies and futures (Google Finance), with a price series for details.",
	Description: "Quotes up to 10 instruments from Google Finance (through SerpApi). Body: `symbols` (required, 1 to 10 " +
		"distinct symbols, each TICKER or TICKER:EXCHANGE, e.g. \"GOOGL:NASDAQ\", \"EUR-USD\", \".INX:INDEXSP\"; " +
		"letters, digits, '.' and '-', up to 15 characters per part; compared case-insensitively) and `window` " +
		"(1D, 5D, 1M, 6M, YTD, 1Y, 5Y or MAX; default 1D): the time range of the stored price series. One " +
		"record per symbol found, in the order asked: title (instrument name with its symbol), url (its Google " +
		"Finance page) and the keys symbol (string, always: the symbol as asked, upper-cased), price (number), " +
		"currency (string, ISO code when known), change and change_percent (numbers, signed, over the current " +
		"session as Google Finance shows it), previous_close (number; only with window 1D, the only window for " +
		"which Google Finance serves its key statistics), market_state (string: open, closed, pre_market, " +
		"after_hours or Google's own wording), as_of (string: the quote time as Google Finance shows it, else " +
		"the last series point's date) when Google Finance has them, and source (always google_finance). A " +
		"symbol Google Finance does not know yields no record and a note. Single result: no more, no update. " +
		"Record action details (free, stored at search time; 410 session_expired once gone): {symbol, window, " +
		"series: [{price, currency, date, volume}], key_stats: [{label, value}] (window 1D only)}.",
	Topic:    "Commerce and markets",
	Request:  marketsSchema,
	Rules:    marketsRules,
	Paging:   providers.PagingSingle,
	NoUpdate: true,
	Actions: []providers.Action{{
		Name: "details",
		Description: "The window's price series of the instrument ({price, currency, date, volume} points) and, for " +
			"window 1D, Google Finance's key statistics; stored at search time, free.",
		Kind: providers.ActionStored,
	}},
	Cost: providers.Cost{
		Typical: 1,
		Basis:   "1 credit per call, whatever the number of symbols (one SerpApi Google Finance search per symbol); stored details are free",
	},
	Deadline:  15 * time.Second,
	Providers: []string{serpapi.ProviderID},
	Examples: []providers.Example{
		{Title: "One stock today", Body: providers.ExampleBody(`{"symbols": ["GOOGL:NASDAQ"]}`)},
		{Title: "Several instruments over one month", Body: providers.ExampleBody(`{"symbols": ["AAPL:NASDAQ", "MSFT:NASDAQ", "EUR-USD"], "window": "1M"}`)},
	},
	Execute: quoteMarkets,
	Record:  QuoteRecord{},
}

// QuoteDetail is the details body of a quote, stored at search time; fields in key order (a
// detail is written by encoding/json, which keeps the declared order).
type QuoteDetail struct {
	// KeyStats are Google Finance's labelled figures (window 1D only; nil leaves the key out, an
	// empty list stays).
	KeyStats []KeyStat     `json:"key_stats,omitzero"`
	Series   []SeriesPoint `json:"series"`
	Symbol   string        `json:"symbol"`
	Window   string        `json:"window"`
}

// KeyStat is one of Google Finance's key figures ("Previous close", "Market cap").
type KeyStat struct {
	Label string `json:"label"`
	Value string `json:"value"`
}

// SeriesPoint is one point of a quote's price series.
type SeriesPoint struct {
	Currency string  `json:"currency,omitempty"`
	Date     string  `json:"date,omitempty"`
	Price    float64 `json:"price"`
	Volume   *int    `json:"volume,omitempty"`
}

// QuoteRecord is a markets.quote record (besides title and url); the details action has the
// price series.
type QuoteRecord struct {
	Symbol        string   `json:"symbol" doc:"as requested"`
	Source        string   `json:"source"`
	Price         *float64 `json:"price,omitempty"`
	Currency      string   `json:"currency,omitempty" doc:"ISO 4217"`
	Change        *float64 `json:"change,omitempty" doc:"since the previous close, signed"`
	ChangePercent *float64 `json:"change_percent,omitempty" doc:"signed"`
	PreviousClose *float64 `json:"previous_close,omitempty"`
	MarketState   string   `json:"market_state,omitempty"`
	AsOf          string   `json:"as_of,omitempty" doc:"the upstream's date of the price"`
}

const marketsSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "markets.quote request",
  "description": "Quote 1 to 10 instruments on Google Finance.",
  "type": "object",
  "additionalProperties": false,
  "required": ["symbols"],
  "properties": {
    "symbols": {
      "type": "array",
      "minItems": 1,
      "maxItems": 10,
      "uniqueItems": true,
      "items": {
        "type": "string",
        "pattern": "^[A-Za-z0-9.\\-]{1,15}(:[A-Za-z0-9.\\-]{1,15})?$",
        "description": "A Google Finance symbol: TICKER:EXCHANGE (e.g. GOOGL:NASDAQ, .INX:INDEXSP) or TICKER alone (e.g. EUR-USD, BTC-USD)."
      },
      "description": "The instruments to quote, 1 to 10 distinct symbols (compared case-insensitively)."
    },
    "window": {
      "type": "string",
      "enum": ["1D", "5D", "1M", "6M", "YTD", "1Y", "5Y", "MAX"],
      "default": "1D",
      "description": "Time range of the price series stored for details: 1D (one day), 5D, 1M, 6M, YTD, 1Y, 5Y or MAX. previous_close is only available with 1D."
    }
  }
}`

// marketsRules: the symbols must be distinct ignoring case (the schema's uniqueItems is exact).
func marketsRules(req providers.Request, _ *providers.Update) []providers.Violation {
	var vs []providers.Violation
	seen := map[string]int{}
	for i, s := range req.Strings("symbols") {
		k := strings.ToUpper(s)
		if j, dup := seen[k]; dup {
			vs = append(vs, providers.Violation{Path: "/symbols/" + strconv.Itoa(i),
				Message: "symbol " + s + " repeats symbols[" + strconv.Itoa(j) + "] (symbols are compared case-insensitively)"})
			continue
		}
		seen[k] = i
	}
	return vs
}

type quoteResult struct {
	rec  *providers.Record
	note string
}

// quoteLookup is the lookup each goroutine of a quote runs (a test swaps in one that panics).
var quoteLookup = quoteOne

func quoteMarkets(ctx context.Context, call *providers.Call) (*providers.Page, error) {
	symbols := call.Request.Strings("symbols")
	window := call.Request.Str("window")
	if window == "" {
		window = "1D"
	}
	results := make([]quoteResult, len(symbols))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The first failure fails the call and cancels the other lookups; it is kept apart so that a
	// lookup cancelled because of it does not mask it.
	var failOnce sync.Once
	var failure error
	sem := make(chan struct{}, quoteConcurrent)
	var fan providers.FanOut
	for i, s := range symbols {
		fan.Go(func() {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			if ctx.Err() != nil {
				return
			}
			rec, note, err := quoteLookup(ctx, call, strings.ToUpper(s), window)
			if err != nil {
				failOnce.Do(func() { failure = err; cancel() })
				return
			}
			results[i] = quoteResult{rec: rec, note: note}
		})
	}
	if err := fan.Wait(); err != nil {
		return nil, err
	}
	if failure != nil {
		return nil, failure
	}
	if err := ctx.Err(); err != nil {
		return nil, providers.Errorf(providers.CodeProviderTimeout, "Google Finance did not answer in time")
	}
	page := &providers.Page{Records: []providers.Record{}}
	for _, r := range results {
		if r.rec != nil {
			page.Records = append(page.Records, *r.rec)
		}
		if r.note != "" {
			page.Notes = append(page.Notes, r.note)
		}
	}
	return page, nil
}

type financeAnswer struct {
	Summary        json.RawMessage `json:"summary"`
	Graph          json.RawMessage `json:"graph"`
	KnowledgeGraph json.RawMessage `json:"knowledge_graph"`
}

// quoteOne fetches one symbol; an unknown symbol is a note, not an error.
func quoteOne(ctx context.Context, call *providers.Call, symbol, window string) (*providers.Record, string, error) {
	q := url.Values{"q": {symbol}}
	if window != "1D" {
		// 1D is SerpApi's default; sending window makes it serve only summary and graph, so for 1D
		// it is left out to keep knowledge_graph.key_stats (previous close).
		q.Set("window", window)
	}
	var ans financeAnswer
	meta, err := serpapi.Search(ctx, call, financeEngine, q, &ans)
	if err != nil {
		return nil, "", err
	}
	summary := objectOf(ans.Summary)
	if meta.NoResults() || summary == nil {
		return nil, "Google Finance has no quote for " + symbol + "; check the ticker and exchange (e.g. GOOGL:NASDAQ).", nil
	}
	rec := quoteRecord(symbol, window, summary, arrayOf(ans.Graph), objectOf(ans.KnowledgeGraph))
	return &rec, "", nil
}

// quoteRecord maps google_finance's summary (and graph, key_stats) to one record.
func quoteRecord(symbol, window string, summary map[string]json.RawMessage, graph []json.RawMessage, kg map[string]json.RawMessage) providers.Record {
	stock, exchange := stringOf(summary["stock"]), stringOf(summary["exchange"])
	code := symbol
	if stock != "" && exchange != "" {
		code = stock + ":" + exchange
	}
	title := stringOf(summary["title"])
	if title == "" {
		title = code
	} else {
		title += " (" + code + ")"
	}
	f := &QuoteRecord{Symbol: symbol, Source: financeSource}
	rec := providers.Record{Title: title, URL: financeQuoteURL + url.PathEscape(code), Data: f}
	num := func(v float64) *float64 { return &v }
	if p, ok := numberOf(summary["extracted_price"]); ok {
		f.Price = num(p)
	} else if p, ok := numberOf(summary["price"]); ok {
		f.Price = num(p)
	}
	series, seriesCurrency, lastDate := financeSeries(graph)
	if f.Currency = isoCurrency(stringOf(summary["currency"])); f.Currency == "" {
		f.Currency = seriesCurrency
	}
	if mv := objectOf(summary["price_movement"]); mv != nil {
		sign := 1.0
		if strings.EqualFold(stringOf(mv["movement"]), "down") {
			sign = -1
		}
		if v, ok := numberOf(mv["value"]); ok {
			f.Change = num(signed(v, sign))
		}
		if v, ok := numberOf(mv["percentage"]); ok {
			f.ChangePercent = num(signed(v, sign))
		}
	}
	stats := keyStats(kg)
	for _, s := range stats {
		if strings.EqualFold(s.Label, "Previous close") {
			if v, ok := parseDisplayNumber(s.Value); ok {
				f.PreviousClose = num(v)
			}
		}
	}
	f.MarketState = marketState(summary)
	if f.AsOf = stringOf(summary["date"]); f.AsOf == "" {
		f.AsOf = lastDate
	}
	detail := &QuoteDetail{Symbol: symbol, Window: window, Series: series}
	if window == "1D" {
		detail.KeyStats = stats
	}
	rec.Stored = map[string]*providers.Detail{"details": {Body: detail,
		Links: []providers.Link{{Label: "Google Finance", URL: rec.URL}}}}
	return rec
}

// signed applies the movement's direction to a magnitude (SerpApi gives magnitudes with "Up"/"Down";
// a value that already carries a minus sign keeps it).
func signed(v, sign float64) float64 {
	if v < 0 {
		return round(v, 6)
	}
	return round(v*sign, 6)
}

// financeSeries reads graph[{price, currency, date, volume}].
func financeSeries(graph []json.RawMessage) ([]SeriesPoint, string, string) {
	series := []SeriesPoint{}
	currency, last := "", ""
	for _, g := range graph {
		if len(series) >= maxSeriesPoints {
			break
		}
		m := objectOf(g)
		p, ok := numberOf(m["price"])
		if !ok {
			continue
		}
		pt := SeriesPoint{Price: p}
		if c := stringOf(m["currency"]); c != "" {
			pt.Currency = c
			if currency == "" {
				currency = isoCurrency(c)
			}
		}
		if d := stringOf(m["date"]); d != "" {
			pt.Date = d
			last = d
		}
		if v, ok := intOf(m["volume"]); ok {
			pt.Volume = &v
		}
		series = append(series, pt)
	}
	return series, currency, last
}

// keyStats reads knowledge_graph.key_stats.stats[{label, value}].
func keyStats(kg map[string]json.RawMessage) []KeyStat {
	out := []KeyStat{}
	for _, s := range arrayOf(objectOf(kg["key_stats"])["stats"]) {
		m := objectOf(s)
		label, value := stringOf(m["label"]), stringOf(m["value"])
		if label != "" && value != "" {
			out = append(out, KeyStat{Label: label, Value: value})
		}
	}
	return out
}

var isoCode = regexp.MustCompile(`^[A-Z]{3}$`)

// isoCurrency keeps a three-letter ISO code; symbols such as "$" are not currencies on their own.
func isoCurrency(s string) string {
	s = strings.ToUpper(strings.TrimSpace(s))
	if isoCode.MatchString(s) {
		return s
	}
	return ""
}

// marketState derives the session state from summary.market.trading ("After Hours", "Pre-market")
// or from the "Closed: …" / "Open" prefix of summary.extensions.
func marketState(summary map[string]json.RawMessage) string {
	if t := stringOf(objectOf(summary["market"])["trading"]); t != "" {
		return normalizeState(t)
	}
	for _, e := range stringsOf(summary["extensions"]) {
		head, _, _ := strings.Cut(e, ":")
		if st := normalizeState(head); st == "open" || st == "closed" || st == "pre_market" || st == "after_hours" {
			return st
		}
	}
	return ""
}

func normalizeState(s string) string {
	t := strings.ToLower(strings.TrimSpace(s))
	switch {
	case strings.HasPrefix(t, "pre"):
		return "pre_market"
	case strings.HasPrefix(t, "after") || strings.HasPrefix(t, "post"):
		return "after_hours"
	case strings.HasPrefix(t, "closed"):
		return "closed"
	case strings.HasPrefix(t, "open"):
		return "open"
	}
	return strings.TrimSpace(s)
}
