package reviewers_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
	"github.com/capgate/capgate/providers/upstream/reviewers"
)

// Response bodies in each vendor's documented shape.
const (
	openAIAnswer = `{"id":"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT","object":"chat.completion","created":1741569952,"model":"gpt-4.1-2025-04-14",
"choices":[{"index":0,"message":{"role":"assistant","content":"1. The draft misstates the boiling point.","refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"stop"}],
"usage":{"prompt_tokens":19,"completion_tokens":10,"total_tokens":29},"service_tier":"default"}`
	anthropicAnswer = `{"id":"msg_013Zva2CMHLNnXjNJJKqJ2EF","type":"message","role":"assistant","model":"claude-sonnet-4-20250514",
"content":[{"type":"text","text":"1. The second claim is unsupported."}],"stop_reason":"end_turn","stop_sequence":null,
"usage":{"input_tokens":2095,"output_tokens":503}}`
	geminiAnswer = `{"candidates":[{"content":{"parts":[{"text":"1. The draft omits the unit."}],"role":"model"},"finishReason":"STOP","index":0}],
"usageMetadata":{"promptTokenCount":8,"candidatesTokenCount":12,"totalTokenCount":20},"modelVersion":"gemini-2.5-flash","responseId":"abc"}`
	openAIError    = `{"error":{"message":"Incorrect API key provided: sk-xxx.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`
	anthropicError = `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`
	geminiBlocked  = `{"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":8,"totalTokenCount":8}}`
	// DeepSeek's non-thinking answer (api-docs.deepseek.com chat completion response, with its
	// prompt cache counters).
	deepSeekAnswer = `{"id":"930c60df-bf64-41c9-a88e-3ec75f81e00e","object":"chat.completion","created":1795000000,"model":"deepseek-flash",
"choices":[{"index":0,"message":{"role":"assistant","content":"1. The draft mixes up two numbers."},"logprobs":null,"finish_reason":"stop"}],
"usage":{"prompt_tokens":16,"completion_tokens":10,"total_tokens":26,"prompt_tokens_details":{"cached_tokens":0},"prompt_cache_hit_tokens":0,"prompt_cache_miss_tokens":16},
"system_fingerprint":"fp_flash"}`
)

func family(t *testing.T, id string) *reviewers.Family {
	t.Helper()
	for _, f := range reviewers.Families() {
		if f.ID == id {
			return f
		}
	}
	t.Fatalf("no family %s", id)
	return nil
}

type seen struct {
	path   string
	header http.Header
	body   map[string]any
}

func fake(t *testing.T, status int, answer string, got *seen) http.Handler {
	t.Helper()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.path, got.header = r.URL.Path, r.Header.Clone()
		_ = json.Unmarshal(b, &got.body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, answer)
	})
}

var prompt = reviewers.Prompt{System: "review critically", User: "## Task\nboil water\n\n## Draft to review\n90 °C", MaxTokens: 1500}

func TestVendorAdapters(t *testing.T) {
	cases := []struct {
		family, answer, wantPath, wantText string
		check                              func(t *testing.T, s seen)
	}{
		{"openai", openAIAnswer, "/chat/completions", "boiling point", func(t *testing.T, s seen) {
			if s.header.Get("Authorization") != "Bearer k-openai" || s.body["max_completion_tokens"] != float64(3500) || s.body["max_tokens"] != nil ||
				s.body["reasoning_effort"] != "low" {
				t.Errorf("openai request: %v %v", s.header, s.body)
			}
			msgs := s.body["messages"].([]any)
			if msgs[0].(map[string]any)["role"] != "system" || msgs[1].(map[string]any)["role"] != "user" {
				t.Errorf("messages %v", msgs)
			}
		}},
		{"xai", openAIAnswer, "/chat/completions", "boiling point", func(t *testing.T, s seen) {
			if s.header.Get("Authorization") != "Bearer k-xai" || s.body["max_tokens"] != float64(1500) {
				t.Errorf("xai request: %v", s.body)
			}
		}},
		{"mistral", openAIAnswer, "/chat/completions", "boiling point", nil},
		{"deepseek", deepSeekAnswer, "/chat/completions", "two numbers", func(t *testing.T, s seen) {
			// The sharpen tier must not think, and DeepSeek thinks unless told not to.
			if s.header.Get("Authorization") != "Bearer k-deepseek" || s.body["max_tokens"] != float64(1500) ||
				!jsonSame(s.body["thinking"], map[string]any{"type": "disabled"}) || s.body["reasoning_effort"] != nil {
				t.Errorf("deepseek request: %v", s.body)
			}
		}},
		{"meta", openAIAnswer, "/chat/completions", "boiling point", nil},
		{"anthropic", anthropicAnswer, "/v1/messages", "unsupported", func(t *testing.T, s seen) {
			if s.header.Get("x-api-key") != "k-anthropic" || s.header.Get("anthropic-version") != "2023-06-01" || s.header.Get("Authorization") != "" {
				t.Errorf("anthropic headers %v", s.header)
			}
			if s.body["system"] != "review critically" || s.body["max_tokens"] != float64(3500) {
				t.Errorf("anthropic body %v", s.body)
			}
		}},
		{"google", geminiAnswer, "/v1beta/models/gemini-4-argon:generateContent", "omits the unit", func(t *testing.T, s seen) {
			if s.header.Get("x-goog-api-key") != "k-google" {
				t.Errorf("google headers %v", s.header)
			}
			if s.body["systemInstruction"] == nil || s.body["generationConfig"].(map[string]any)["maxOutputTokens"] != float64(3500) {
				t.Errorf("google body %v", s.body)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.family, func(t *testing.T) {
			var got seen
			client := providertest.Client(t, reviewers.Providers(), map[string]http.Handler{c.family: fake(t, 200, c.answer, &got)}, map[string]string{c.family: "k-" + c.family})
			f := family(t, c.family)
			model := f.ModelFor(reviewers.TierUltra, optIn)
			text, err := f.Review(context.Background(), client.Upstream(c.family, providers.ModeLive), model, prompt)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(text, c.wantText) || got.path != c.wantPath {
				t.Fatalf("text %q path %q", text, got.path)
			}
			if c.family != "google" && got.body["model"] != model {
				t.Errorf("model %v", got.body["model"])
			}
			if !strings.HasPrefix(got.header.Get("User-Agent"), "capgate/") {
				t.Errorf("user agent %q", got.header.Get("User-Agent"))
			}
			if c.check != nil {
				c.check(t, got)
			}
		})
	}
}

func TestVendorErrors(t *testing.T) {
	cases := []struct {
		family, answer string
		status         int
		code           providers.Code
	}{
		{"openai", openAIError, 401, providers.CodeProviderError},
		{"anthropic", anthropicError, 529, providers.CodeProviderError},
		{"google", geminiBlocked, 200, providers.CodeProviderError},
		{"openai", `{"choices":[]}`, 200, providers.CodeProviderError},
		{"anthropic", `{"content":[],"stop_reason":"max_tokens"}`, 200, providers.CodeProviderError},
		{"mistral", `not json`, 200, providers.CodeProviderError},
	}
	for _, c := range cases {
		t.Run(c.family+"/"+c.answer[:min(20, len(c.answer))], func(t *testing.T) {
			var got seen
			client := providertest.Client(t, reviewers.Providers(), map[string]http.Handler{c.family: fake(t, c.status, c.answer, &got)}, map[string]string{c.family: "k"})
			f := family(t, c.family)
			_, err := f.Review(context.Background(), client.Upstream(c.family, providers.ModeLive), f.Models[reviewers.TierSharpen], prompt)
			if providertest.ErrorCode(err) != c.code {
				t.Fatalf("error %v, want %s", err, c.code)
			}
			if c.answer == openAIError && !strings.Contains(err.Error(), "Incorrect API key") {
				t.Errorf("vendor message lost: %v", err)
			}
		})
	}
}

// optIn names a model for the opt-in family (Meta), as an operator would.
var optIn = map[string]map[string]string{"meta": {reviewers.TierSharpen: "operator-model", reviewers.TierPlus: "operator-model",
	reviewers.TierUltra: "operator-model"}}

func TestSandboxAnswersEveryFamilyDeterministically(t *testing.T) {
	client := providertest.Client(t, reviewers.Providers(), nil, nil)
	for _, f := range reviewers.Families() {
		t.Run(f.ID, func(t *testing.T) {
			u := client.Upstream(f.ID, providers.ModeTest)
			model := f.ModelFor(reviewers.TierPlus, optIn)
			a, err := f.Review(context.Background(), u, model, prompt)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := f.Review(context.Background(), u, model, prompt)
			if a != b || !strings.Contains(a, f.ID+"/"+model) {
				t.Fatalf("sandbox review %q / %q", a, b)
			}
		})
	}
}
