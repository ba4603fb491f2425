package legalread

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
)

const (
	// primaryBudget is the most a direct source gets before the scraper fallback must start.
	primaryBudget = 15 * time.Second
	// scraperCreditCost converts scraper credits to gateway credits: $0.005 per scraper credit.
	scraperCreditCost = 5
	// defaultScraperCost is what a render_js=false request costs when Spb-cost is missing.
	defaultScraperCost = 1
)

// pageSpec is an HTML page read directly from its source, with the scraper as the fallback.
type pageSpec struct {
	primary   string     // provider id of the direct source
	name      string     // the source as the caller knows it ("EUR-Lex")
	path      string     // path under the source's base URL
	query     url.Values // query of the direct request
	publicURL string     // the page's public address, which the scraper fetches
	missing   string     // message of not_found when the source has no such page
}

// fetched is an HTML page as read.
type fetched struct {
	body       []byte
	viaScraper bool
	scraperCr  int // scraper credits spent (Spb-cost)
	note       string
}

// fetchPage reads the page from its source; when the source is not configured, is paused by its
// breaker, fails in a way a fallback should absorb (providers.FallbackWorthy) or answers a
// challenge page, it reads the public page through the scraper instead (when one is
// configured). A page the source does not have (404) is not_found and never spends scraper
// credits; a challenge or error page is provider_error and never becomes text.
func fetchPage(ctx context.Context, call *providers.Call, spec pageSpec) (*fetched, error) {
	u := call.Upstream(spec.primary)
	var why string
	var primaryErr error
	switch {
	case !u.Available():
		why = spec.name + " is not configured in this deployment"
		primaryErr = providers.Errorf(providers.CodeCapabilityUnavailable, "%s", why)
	case u.BreakerOpen():
		why = spec.name + " is failing and calls to it are paused"
		primaryErr = providers.Errorf(providers.CodeServiceUnavailable, "%s", why)
	default:
		pctx, cancel := context.WithTimeout(ctx, providers.PrimaryBudget(ctx, primaryBudget))
		resp, err := u.Get(pctx, spec.path, spec.query, http.Header{"Accept": {"text/html,application/xhtml+xml"}})
		cancel()
		if err == nil {
			reason := blockedPage(resp.Body)
			if reason == "" {
				return &fetched{body: resp.Body}, nil
			}
			err = providers.Errorf(providers.CodeProviderError, "%s answered %s instead of the document", spec.name, reason).WithRetryable(true)
		}
		if status(err) == http.StatusNotFound || status(err) == http.StatusGone {
			return nil, providers.Errorf(providers.CodeNotFound, "%s", spec.missing)
		}
		if !providers.FallbackWorthy(err) || ctx.Err() != nil {
			return nil, err
		}
		primaryErr, why = err, providers.MessageOf(err)
	}
	s := call.Upstream(scrapeID)
	if !s.Available() {
		return nil, primaryErr
	}
	resp, err := s.Get(ctx, "/api/v1/", url.Values{"url": {spec.publicURL}, "render_js": {"false"}}, nil)
	if err != nil {
		return nil, scraperError(err, spec, why)
	}
	if st, _ := strconv.Atoi(resp.Header.Get("Spb-initial-status-code")); st == http.StatusNotFound || st == http.StatusGone {
		return nil, providers.Errorf(providers.CodeNotFound, "%s", spec.missing)
	} else if st >= 400 {
		return nil, providers.Errorf(providers.CodeProviderError, "%s could not be read (%s), and through the scraper it answered HTTP %d",
			spec.name, why, st).WithRetryable(st >= 500)
	}
	if reason := blockedPage(resp.Body); reason != "" {
		return nil, providers.Errorf(providers.CodeProviderError, "%s could not be read (%s), and through the scraper it answered %s instead of the document",
			spec.name, why, reason).WithRetryable(true)
	}
	cost, err := strconv.Atoi(strings.TrimSpace(resp.Header.Get("Spb-cost")))
	if err != nil || cost < 0 {
		cost = defaultScraperCost
	}
	note := fmt.Sprintf("%s could not be read directly (%s); the text was read through the scraper fallback for %d scraper credit(s), charged at $0.005 each.",
		spec.name, why, cost)
	return &fetched{body: resp.Body, viaScraper: true, scraperCr: cost, note: note}, nil
}

// scraperError maps a failed scraper call: its 404/410 say the page does not exist, its 401
// that its credits or key are gone (ScrapingBee answers 401 for both); anything else keeps the
// client's mapping, with both failures in the message.
func scraperError(err error, spec pageSpec, why string) error {
	e, ok := providers.AsError(err)
	if !ok {
		return err
	}
	switch e.UpstreamStatus {
	case http.StatusNotFound, http.StatusGone:
		return providers.Errorf(providers.CodeNotFound, "%s", spec.missing)
	case http.StatusUnauthorized:
		return &providers.Error{Code: providers.CodeProviderAllowance, Cause: err,
			Message: fmt.Sprintf("%s could not be read (%s), and the scraper fallback refused the call: its credits are used up or its key is not valid", spec.name, why)}
	}
	out := *e
	out.Message = fmt.Sprintf("%s could not be read (%s), and the scraper fallback failed: %s", spec.name, why, e.Message)
	return &out
}

// status is the upstream HTTP status of an error (0 when none).
func status(err error) int {
	if e, ok := providers.AsError(err); ok {
		return e.UpstreamStatus
	}
	return 0
}
