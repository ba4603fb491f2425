package console

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/providers"
)

// probe is one cheap, documented read of a provider: "test connection" makes it with the
// provider's configured base URL and key, through the provider client (breaker, limits, errors).
type probe struct {
	path   string
	header http.Header
}

// providerProbes lists the providers with a free call documented for this purpose; paths are
// relative to each provider's base URL as registered.
var providerProbes = map[string]probe{
	// Models API, list models: https://docs.anthropic.com/en/api/models-list
	"anthropic": {"/v1/models", http.Header{"Anthropic-Version": {"2023-06-01"}}},
	// List models: https://platform.openai.com/docs/api-reference/models/list
	"openai": {"/models", nil},
	// models.list: https://ai.google.dev/api/models#method:-models.list
	"google": {"/v1beta/models", nil},
	// List models: https://docs.x.ai/docs/api-reference#list-models
	"xai": {"/models", nil},
	// List models: https://docs.mistral.ai/api/#tag/models
	"mistral": {"/models", nil},
	// Lists models: https://api-docs.deepseek.com/api/list-models
	"deepseek": {"/models", nil},
	// Account API, free of searches: https://serpapi.com/account-api
	"serpapi": {"/account.json", nil},
	// Rate limit status, not counted against the limit: https://docs.github.com/en/rest/rate-limit/rate-limit
	"github": {"/rate_limit", http.Header{"Accept": {"application/vnd.github+json"}}},
}

const probeTimeout = 10 * time.Second

// testProvider makes the provider's probe and shows the answer's status. It changes no setting.
func (cn *Console) testProvider(c *fiber.Ctx) error {
	id := c.Params("id")
	pr, ok := providerProbes[id]
	if _, known := cn.opts.Client.Provider(id); !ok || !known {
		return cn.notFound(c)
	}
	ctx, cancel := context.WithTimeout(c.UserContext(), probeTimeout)
	defer cancel()
	start := time.Now()
	resp, err := cn.opts.Client.Upstream(id, providers.ModeLive).Get(ctx, pr.path, nil, pr.header)
	took := time.Since(start).Round(time.Millisecond)
	if err != nil {
		return back(c, "/console/admin/providers", "", fmt.Errorf("test of %s failed after %s: %s", id, took, providers.MessageOf(err)))
	}
	return back(c, "/console/admin/providers", fmt.Sprintf("Test of %s: GET %s answered HTTP %d in %s.", id, pr.path, resp.Status, took), nil)
}
