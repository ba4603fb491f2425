// Package reviewers speaks the chat APIs of the model vendors that sharpen uses as second-opinion
// reviewers: OpenAI-compatible chat completions (OpenAI, xAI, Mistral, DeepSeek, Meta's Llama API
// compatibility endpoint), Anthropic messages and Gemini generateContent. Each family is an
// upstream provider (PROVIDER_<FAMILY>_KEY) called through the one upstream client, and each has
// a sandbox answering in the vendor's real response shape with a deterministic review.
package reviewers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/capgate/capgate/providers"
)

// Tiers of sharpen.
const (
	TierSharpen = "sharpen"
	TierPlus    = "plus"
	TierUltra   = "ultra"
	TierUltra2x = "ultra2x"
)

// Prompt is what a reviewer is asked.
type Prompt struct {
	System    string
	User      string
	MaxTokens int
}

// Family is one model vendor.
type Family struct {
	ID       string
	Provider *providers.Provider
	// Models are the default model per tier (ultra2x uses the ultra model); the admin overrides them.
	Models map[string]string
	call   func(ctx context.Context, u *providers.Upstream, model string, p Prompt) (string, error)
}

// Review asks the family's model for a review and returns its text.
func (f *Family) Review(ctx context.Context, u *providers.Upstream, model string, p Prompt) (string, error) {
	return f.call(ctx, u, model, p)
}

func bearer(r *http.Request, key string) { r.Header.Set("Authorization", "Bearer "+key) }

func models(sharpen, plus, ultra string) map[string]string {
	return map[string]string{TierSharpen: sharpen, TierPlus: plus, TierUltra: ultra, TierUltra2x: ultra}
}

// Families lists the vendors in routing preference order.
func Families() []*Family {
	return []*Family{
		{ID: "anthropic", Models: models("claude-3-5-haiku-latest", "claude-sonnet-4-0", "claude-opus-4-1"),
			Provider: &providers.Provider{ID: "anthropic", Title: "Anthropic", BaseURL: "https://api.anthropic.com", KeyRequired: true,
				Authorize: func(r *http.Request, key string) { r.Header.Set("x-api-key", key) },
				Sandbox:   sandbox("anthropic", anthropicSandbox)},
			call: anthropicReview},
		{ID: "openai", Models: models("gpt-4.1-mini", "gpt-4.1", "o3"),
			Provider: &providers.Provider{ID: "openai", Title: "OpenAI", BaseURL: "https://api.openai.com/v1", KeyRequired: true,
				Authorize: bearer, Sandbox: sandbox("openai", chatSandbox)},
			call: chatReview("max_completion_tokens")},
		{ID: "google", Models: models("gemini-2.5-flash-lite", "gemini-2.5-flash", "gemini-2.5-pro"),
			Provider: &providers.Provider{ID: "google", Title: "Google Gemini", BaseURL: "https://generativelanguage.googleapis.com", KeyRequired: true,
				Authorize: func(r *http.Request, key string) { r.Header.Set("x-goog-api-key", key) },
				Sandbox:   sandbox("google", geminiSandbox)},
			call: geminiReview},
		{ID: "xai", Models: models("grok-3-mini", "grok-3", "grok-4"),
			Provider: &providers.Provider{ID: "xai", Title: "xAI", BaseURL: "https://api.x.ai/v1", KeyRequired: true,
				Authorize: bearer, Sandbox: sandbox("xai", chatSandbox)},
			call: chatReview("max_tokens")},
		{ID: "mistral", Models: models("mistral-small-latest", "mistral-medium-latest", "mistral-large-latest"),
			Provider: &providers.Provider{ID: "mistral", Title: "Mistral AI", BaseURL: "https://api.mistral.ai/v1", KeyRequired: true,
				Authorize: bearer, Sandbox: sandbox("mistral", chatSandbox)},
			call: chatReview("max_tokens")},
		{ID: "deepseek", Models: models("deepseek-chat", "deepseek-chat", "deepseek-reasoner"),
			Provider: &providers.Provider{ID: "deepseek", Title: "DeepSeek", BaseURL: "https://api.deepseek.com/v1", KeyRequired: true,
				Authorize: bearer, Sandbox: sandbox("deepseek", chatSandbox)},
			call: chatReview("max_tokens")},
		{ID: "meta", Models: models("Llama-4-Scout-17B-16E-Instruct-FP8", "Llama-4-Maverick-17B-128E-Instruct-FP8", "Llama-4-Maverick-17B-128E-Instruct-FP8"),
			Provider: &providers.Provider{ID: "meta", Title: "Meta Llama API", BaseURL: "https://api.llama.com/compat/v1", KeyRequired: true,
				Authorize: bearer, Sandbox: sandbox("meta", chatSandbox)},
			call: chatReview("max_tokens")},
	}
}

// Providers lists the vendor providers.
func Providers() []*providers.Provider {
	var out []*providers.Provider
	for _, f := range Families() {
		out = append(out, f.Provider)
	}
	return out
}

func postJSON(ctx context.Context, u *providers.Upstream, path string, body any, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := u.NewRequest(ctx, http.MethodPost, path, nil, strings.NewReader(string(b)))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := u.Do(req)
	if err != nil {
		return vendorError(u.ID(), err)
	}
	return u.Decode(resp, out)
}

// vendorError puts the vendor's own error message (all three API styles use error.message)
// into the error, so the operator sees why a reviewer refused.
func vendorError(id string, err error) error {
	e, ok := providers.AsError(err)
	if !ok || len(e.Body) == 0 {
		return err
	}
	var body struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(e.Body, &body) == nil && body.Error.Message != "" {
		out := *e
		out.Cause = fmt.Errorf("%s: %s", id, body.Error.Message)
		return &out
	}
	return err
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// chatReview calls OpenAI-compatible chat completions; tokensField is the vendor's name of the
// output bound (OpenAI's reasoning models take only max_completion_tokens).
func chatReview(tokensField string) func(ctx context.Context, u *providers.Upstream, model string, p Prompt) (string, error) {
	return func(ctx context.Context, u *providers.Upstream, model string, p Prompt) (string, error) {
		body := map[string]any{
			"model":     model,
			"messages":  []chatMessage{{Role: "system", Content: p.System}, {Role: "user", Content: p.User}},
			tokensField: p.MaxTokens,
		}
		var out struct {
			Choices []struct {
				Message struct {
					Content *string `json:"content"`
				} `json:"message"`
				FinishReason string `json:"finish_reason"`
			} `json:"choices"`
		}
		if err := postJSON(ctx, u, "/chat/completions", body, &out); err != nil {
			return "", err
		}
		if len(out.Choices) == 0 || out.Choices[0].Message.Content == nil || strings.TrimSpace(*out.Choices[0].Message.Content) == "" {
			return "", providers.Errorf(providers.CodeProviderError, "%s returned no review text", u.ID())
		}
		return *out.Choices[0].Message.Content, nil
	}
}

// anthropicReview calls the Messages API.
func anthropicReview(ctx context.Context, u *providers.Upstream, model string, p Prompt) (string, error) {
	body := map[string]any{
		"model":      model,
		"max_tokens": p.MaxTokens,
		"system":     p.System,
		"messages":   []chatMessage{{Role: "user", Content: p.User}},
	}
	var out struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StopReason string `json:"stop_reason"`
	}
	if err := postJSONWithHeader(ctx, u, "/v1/messages", body, &out, "anthropic-version", "2023-06-01"); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, c := range out.Content {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	if strings.TrimSpace(b.String()) == "" {
		return "", providers.Errorf(providers.CodeProviderError, "anthropic returned no review text (stop_reason %s)", out.StopReason)
	}
	return b.String(), nil
}

func postJSONWithHeader(ctx context.Context, u *providers.Upstream, path string, body, out any, k, v string) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := u.NewRequest(ctx, http.MethodPost, path, nil, strings.NewReader(string(b)))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(k, v)
	resp, err := u.Do(req)
	if err != nil {
		return vendorError(u.ID(), err)
	}
	return u.Decode(resp, out)
}

// geminiReview calls generateContent.
func geminiReview(ctx context.Context, u *providers.Upstream, model string, p Prompt) (string, error) {
	type part struct {
		Text string `json:"text"`
	}
	type content struct {
		Role  string `json:"role,omitempty"`
		Parts []part `json:"parts"`
	}
	body := map[string]any{
		"systemInstruction": content{Parts: []part{{Text: p.System}}},
		"contents":          []content{{Role: "user", Parts: []part{{Text: p.User}}}},
		"generationConfig":  map[string]any{"maxOutputTokens": p.MaxTokens},
	}
	var out struct {
		Candidates []struct {
			Content struct {
				Parts []struct {
					Text    string `json:"text"`
					Thought bool   `json:"thought"`
				} `json:"parts"`
			} `json:"content"`
			FinishReason string `json:"finishReason"`
		} `json:"candidates"`
		PromptFeedback struct {
			BlockReason string `json:"blockReason"`
		} `json:"promptFeedback"`
	}
	if err := postJSON(ctx, u, "/v1beta/models/"+model+":generateContent", body, &out); err != nil {
		return "", err
	}
	if len(out.Candidates) == 0 {
		return "", providers.Errorf(providers.CodeProviderError, "google returned no candidate (block reason %q)", out.PromptFeedback.BlockReason)
	}
	var b strings.Builder
	for _, pt := range out.Candidates[0].Content.Parts {
		if !pt.Thought {
			b.WriteString(pt.Text)
		}
	}
	if strings.TrimSpace(b.String()) == "" {
		return "", providers.Errorf(providers.CodeProviderError, "google returned no review text (finish reason %s)", out.Candidates[0].FinishReason)
	}
	return b.String(), nil
}
