package reviewers_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/providertest"
	"github.com/capgate/capgate/providers/upstream/reviewers"
)

// retired are model ids the vendors' deprecation pages list as retired or leaving by the end of
// 2026 (see doc.go); no default may name one.
var retired = []string{
	"claude-3-5-haiku-latest", "claude-sonnet-4-0", "claude-opus-4-1",
	"gpt-4.1-mini", "gpt-4.1", "o3", "gpt-5",
	"gemini-2.5-flash-lite", "gemini-2.5-flash", "gemini-2.5-pro",
	"grok-3-mini", "grok-3", "grok-4", "grok-4-0709",
	"deepseek-chat", "deepseek-reasoner",
	// DeepSeek's pricing page: the V4 Flash model behind deepseek-v4-flash is offline; the id is
	// served by V4.1 Flash, whose id is deepseek-flash.
	"deepseek-v4-flash",
	// Meta's Llama API preview (api.llama.com) was retired on 2026-07-06.
	"Llama-4-Scout-17B-16E-Instruct-FP8", "Llama-4-Maverick-17B-128E-Instruct-FP8",
}

func TestDefaultModelsAreCurrent(t *testing.T) {
	for _, f := range reviewers.Families() {
		for _, tier := range reviewers.Tiers {
			m := f.Models[tier]
			if f.OptIn {
				if m != "" || f.Serves(tier, nil) {
					t.Errorf("opt-in family %s has the default %s model %q", f.ID, tier, m)
				}
				continue
			}
			if m == "" {
				t.Errorf("%s has no %s model", f.ID, tier)
			}
			for _, r := range retired {
				if m == r {
					t.Errorf("%s %s defaults to the retired model %s", f.ID, tier, m)
				}
			}
		}
	}
}

// TestReasoningBudget checks the request of each thinking tier: the output bound leaves 1,500
// tokens of review on top of the tier's thinking allowance, with the vendor's effort knob.
func TestReasoningBudget(t *testing.T) {
	cases := []struct {
		family, tier, path string
		bound              string // field holding the output bound ("generationConfig.maxOutputTokens" for Gemini)
		want               float64
		knobs              map[string]any // body fields that must be present (nil values: must be absent)
	}{
		{"openai", reviewers.TierSharpen, "/chat/completions", "max_completion_tokens", 3500, map[string]any{"reasoning_effort": "low", "max_tokens": nil}},
		{"openai", reviewers.TierPlus, "/chat/completions", "max_completion_tokens", 7500, map[string]any{"reasoning_effort": "medium"}},
		{"openai", reviewers.TierUltra2x, "/chat/completions", "max_completion_tokens", 13500, map[string]any{"reasoning_effort": "high"}},
		{"anthropic", reviewers.TierPlus, "/v1/messages", "max_tokens", 7500, map[string]any{"output_config": map[string]any{"effort": "medium"}}},
		{"anthropic", reviewers.TierUltra, "/v1/messages", "max_tokens", 13500, map[string]any{"output_config": map[string]any{"effort": "high"}}},
		{"google", reviewers.TierSharpen, "/v1beta/models/gemini-3.5-flash-lite:generateContent", "generationConfig.maxOutputTokens", 3500, nil},
		{"google", reviewers.TierPlus, "/v1beta/models/gemini-3.8-flash:generateContent", "generationConfig.maxOutputTokens", 7500, nil},
		{"google", reviewers.TierUltra, "/v1beta/models/gemini-4-argon:generateContent", "generationConfig.maxOutputTokens", 13500, nil},
		{"xai", reviewers.TierSharpen, "/chat/completions", "max_tokens", 1500, map[string]any{"reasoning_effort": nil, "model": "grok-4.20-non-reasoning"}},
		{"xai", reviewers.TierUltra, "/chat/completions", "max_tokens", 13500, map[string]any{"reasoning_effort": "high", "model": "grok-4.7"}},
		// DeepSeek thinks unless told not to: the tiers that must not think say so explicitly.
		{"deepseek", reviewers.TierSharpen, "/chat/completions", "max_tokens", 1500,
			map[string]any{"thinking": map[string]any{"type": "disabled"}, "reasoning_effort": nil, "model": "deepseek-flash"}},
		{"deepseek", reviewers.TierPlus, "/chat/completions", "max_tokens", 1500,
			map[string]any{"thinking": map[string]any{"type": "disabled"}, "reasoning_effort": nil, "model": "deepseek-v4-pro"}},
		{"deepseek", reviewers.TierUltra, "/chat/completions", "max_tokens", 13500,
			map[string]any{"thinking": map[string]any{"type": "enabled"}, "reasoning_effort": "high", "model": "deepseek-v4-pro"}},
		{"mistral", reviewers.TierUltra, "/chat/completions", "max_tokens", 1500, map[string]any{"reasoning_effort": nil}},
	}
	answers := map[string]string{"openai": openAIAnswer, "xai": openAIAnswer, "deepseek": openAIAnswer, "mistral": openAIAnswer,
		"anthropic": anthropicAnswer, "google": geminiAnswer}
	for _, c := range cases {
		t.Run(c.family+"/"+c.tier, func(t *testing.T) {
			var got seen
			var method string
			h := fake(t, 200, answers[c.family], &got)
			client := providertest.Client(t, reviewers.Providers(), map[string]http.Handler{c.family: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				method = r.Method
				h.ServeHTTP(w, r)
			})}, map[string]string{c.family: "k"})
			f := family(t, c.family)
			p := prompt
			p.Tier = c.tier
			if _, err := f.Review(context.Background(), client.Upstream(c.family, providers.ModeLive), f.ModelFor(c.tier, nil), p); err != nil {
				t.Fatal(err)
			}
			if method != http.MethodPost || got.path != c.path || !strings.HasPrefix(got.header.Get("Content-Type"), "application/json") {
				t.Fatalf("request %s %s %v", method, got.path, got.header)
			}
			body := got.body
			field := c.bound
			if strings.HasPrefix(field, "generationConfig.") {
				gc, _ := body["generationConfig"].(map[string]any)
				body, field = gc, strings.TrimPrefix(field, "generationConfig.")
				tc, _ := gc["thinkingConfig"].(map[string]any)
				want := map[string]string{reviewers.TierSharpen: "LOW", reviewers.TierPlus: "MEDIUM", reviewers.TierUltra: "HIGH"}[c.tier]
				if tc["thinkingLevel"] != want {
					t.Errorf("thinkingConfig %v, want thinkingLevel %s", tc, want)
				}
			}
			if body[field] != c.want {
				t.Errorf("%s = %v, want %v (1,500 review tokens + the tier's thinking allowance)", c.bound, body[field], c.want)
			}
			for k, want := range c.knobs {
				if v, ok := got.body[k]; want == nil && ok || want != nil && !jsonSame(v, want) {
					t.Errorf("%s = %v, want %v", k, v, want)
				}
			}
		})
	}
}

func jsonSame(a, b any) bool {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		if len(am) != len(bm) {
			return false
		}
		for k := range am {
			if !jsonSame(am[k], bm[k]) {
				return false
			}
		}
		return true
	}
	return a == b
}

// Reasoning answers in each vendor's documented shape: usage counts the reasoning tokens, the
// thinking itself is a separate block, part or field, and only the answer text is the review.
const (
	openAIReasoningAnswer = `{"id":"chatcmpl-CQ8Yz","object":"chat.completion","created":1795000000,"model":"gpt-6.2-sol",
"choices":[{"index":0,"message":{"role":"assistant","content":"1. The draft states water boils at 90 °C; at sea level it is 100 °C.","refusal":null,"annotations":[]},"finish_reason":"stop"}],
"usage":{"prompt_tokens":212,"completion_tokens":1408,"total_tokens":1620,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},
"completion_tokens_details":{"reasoning_tokens":1280,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},"service_tier":"default"}`
	openAIThoughtOut = `{"id":"chatcmpl-CQ8Z0","object":"chat.completion","created":1795000000,"model":"gpt-6.2-astra",
"choices":[{"index":0,"message":{"role":"assistant","content":"","refusal":null,"annotations":[]},"finish_reason":"length"}],
"usage":{"prompt_tokens":212,"completion_tokens":13500,"total_tokens":13712,"completion_tokens_details":{"reasoning_tokens":13500,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}`
	anthropicReasoningAnswer = `{"id":"msg_01Hb8Vx","type":"message","role":"assistant","model":"claude-opus-5-5",
"content":[{"type":"thinking","thinking":"The draft claims 90 °C; check against sea-level boiling point.","signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"},
{"type":"text","text":"1. Errors: water boils at 100 °C at sea level, not 90 °C."}],
"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":240,"output_tokens":612,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}`
	geminiReasoningAnswer = `{"candidates":[{"content":{"parts":[{"text":"**Checking the number** The draft says 90 °C.","thought":true},
{"text":"1. The boiling point is 100 °C at sea level."}],"role":"model"},"finishReason":"STOP","index":0}],
"usageMetadata":{"promptTokenCount":230,"candidatesTokenCount":24,"totalTokenCount":1102,"thoughtsTokenCount":848},"modelVersion":"gemini-4-argon","responseId":"mZ3hZ"}`
	// DeepSeek in thinking mode that spent the whole output bound reasoning: content is empty.
	deepSeekThoughtOut = `{"id":"5d4e1b2b","object":"chat.completion","created":1795000000,"model":"deepseek-v4-pro",
"choices":[{"index":0,"message":{"role":"assistant","content":"","reasoning_content":"Let me check every number in the draft first..."},"logprobs":null,"finish_reason":"length"}],
"usage":{"prompt_tokens":220,"completion_tokens":13500,"total_tokens":13720,"prompt_cache_hit_tokens":0,"prompt_cache_miss_tokens":220,"completion_tokens_details":{"reasoning_tokens":13500}},"system_fingerprint":"fp_v4pro"}`
	deepSeekReasoningAnswer = `{"id":"5d4e1b2a","object":"chat.completion","created":1795000000,"model":"deepseek-v4-pro",
"choices":[{"index":0,"message":{"role":"assistant","content":"1. 90 °C is wrong: water boils at 100 °C at sea level.","reasoning_content":"The user wants a review; the draft's number is wrong."},"logprobs":null,"finish_reason":"stop"}],
"usage":{"prompt_tokens":220,"completion_tokens":530,"total_tokens":750,"prompt_cache_hit_tokens":0,"prompt_cache_miss_tokens":220,"completion_tokens_details":{"reasoning_tokens":488}},"system_fingerprint":"fp_v4pro"}`
	xaiReasoningAnswer = `{"id":"knTMaJC0","object":"chat.completion","created":1795000000,"model":"grok-4.7",
"choices":[{"index":0,"message":{"role":"assistant","content":"1. Water boils at 100 °C at sea level; the draft says 90 °C.","refusal":null},"finish_reason":"stop"}],
"usage":{"prompt_tokens":215,"completion_tokens":40,"total_tokens":1055,"prompt_tokens_details":{"text_tokens":215,"cached_tokens":0},
"completion_tokens_details":{"reasoning_tokens":800,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0},"num_sources_used":0},"system_fingerprint":"fp_grok45"}`
)

func TestReasoningAnswers(t *testing.T) {
	cases := []struct {
		family, answer, want, thought string
		code                          providers.Code
	}{
		{"openai", openAIReasoningAnswer, "1. The draft states water boils at 90 °C", "", ""},
		{"anthropic", anthropicReasoningAnswer, "1. Errors: water boils at 100 °C", "check against sea-level", ""},
		{"google", geminiReasoningAnswer, "1. The boiling point is 100 °C", "Checking the number", ""},
		{"deepseek", deepSeekReasoningAnswer, "1. 90 °C is wrong", "The user wants a review", ""},
		{"xai", xaiReasoningAnswer, "1. Water boils at 100 °C", "", ""},
		{"openai", openAIThoughtOut, "reasoning used 13500 tokens", "", providers.CodeProviderError},
		{"deepseek", deepSeekThoughtOut, "reasoning used 13500 tokens", "", providers.CodeProviderError},
	}
	for _, c := range cases {
		t.Run(c.family+"/"+c.want, func(t *testing.T) {
			var got seen
			client := providertest.Client(t, reviewers.Providers(), map[string]http.Handler{c.family: fake(t, 200, c.answer, &got)}, map[string]string{c.family: "k"})
			f := family(t, c.family)
			p := prompt
			p.Tier = reviewers.TierUltra
			text, err := f.Review(context.Background(), client.Upstream(c.family, providers.ModeLive), f.Models[reviewers.TierUltra], p)
			if c.code != "" {
				if providertest.ErrorCode(err) != c.code || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("error %v, want %s saying %q", err, c.code, c.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(text, c.want) || c.thought != "" && strings.Contains(text, c.thought) {
				t.Errorf("review %q: want only the answer text, starting %q", text, c.want)
			}
		})
	}
}

// TestModelGone: each vendor's documented answer to a model it does not serve is a provider_error
// naming the setting to change; other refusals keep their own message.
func TestModelGone(t *testing.T) {
	cases := []struct {
		family, tier string
		status       int
		body         string
		gone         bool
	}{
		{"anthropic", reviewers.TierSharpen, 404, `{"type":"error","error":{"type":"not_found_error","message":"model: claude-3-5-haiku-latest"},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}`, true},
		{"openai", reviewers.TierUltra, 404, `{"error":{"message":"The model ` + "`o3`" + ` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}`, true},
		{"google", reviewers.TierPlus, 404, `{"error":{"code":404,"message":"models/gemini-2.5-flash is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.","status":"NOT_FOUND"}}`, true},
		{"xai", reviewers.TierPlus, 404, `{"code":"Some requested entity was not found","error":"The model grok-3 does not exist or your team 5c5b3e3e-1d2a-4a8e-9f0e-5b6a7c8d9e0f does not have access to it. Please ensure you're using the correct API key. If you believe this is a mistake, please contact support and quote your team ID and the model name."}`, true},
		{"deepseek", reviewers.TierUltra2x, 400, `{"error":{"message":"Model Not Exist","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`, true},
		{"mistral", reviewers.TierSharpen, 400, `{"object":"error","message":"Invalid model: mistral-small-2402","type":"invalid_model","param":null,"code":"1500"}`, true},
		{"openai", reviewers.TierSharpen, 401, openAIError, false},
		{"openai", reviewers.TierSharpen, 404, `{"error":{"message":"Unknown request URL: POST /v1/chat/completion.","type":"invalid_request_error","param":null,"code":"unknown_url"}}`, false},
		{"anthropic", reviewers.TierSharpen, 400, `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"}}`, false},
	}
	for _, c := range cases {
		t.Run(c.family+"/"+c.tier+"/"+http.StatusText(c.status), func(t *testing.T) {
			var got seen
			client := providertest.Client(t, reviewers.Providers(), map[string]http.Handler{c.family: fake(t, c.status, c.body, &got)}, map[string]string{c.family: "k"})
			f := family(t, c.family)
			p := prompt
			p.Tier = c.tier
			_, err := f.Review(context.Background(), client.Upstream(c.family, providers.ModeLive), f.ModelFor(c.tier, nil), p)
			e, ok := providers.AsError(err)
			if !ok || e.Code != providers.CodeProviderError {
				t.Fatalf("error %v, want provider_error", err)
			}
			setting := "SHARPEN_MODEL_" + strings.ToUpper(c.family) + "_" + strings.ToUpper(c.tier)
			if named := strings.Contains(e.Message, setting) && strings.Contains(e.Hint, setting); named != c.gone {
				t.Fatalf("message %q hint %q: names %s = %v, want %v", e.Message, e.Hint, setting, named, c.gone)
			}
			if c.gone && (e.IsRetryable() || e.UpstreamStatus != c.status) {
				t.Errorf("retryable %v status %d", e.IsRetryable(), e.UpstreamStatus)
			}
			g, isGone := reviewers.AsModelGone(err)
			if isGone != c.gone || c.gone && (g.Family != c.family || g.Tier != c.tier || g.Model != f.ModelFor(c.tier, nil) || g.Setting != setting || g.Status != c.status) {
				t.Errorf("AsModelGone = %+v, %v; want gone %v", g, isGone, c.gone)
			}
		})
	}
}

func TestModelFor(t *testing.T) {
	f := family(t, "anthropic")
	overrides := map[string]map[string]string{"anthropic": {reviewers.TierUltra: "claude-fable-5-1"}}
	if got := f.ModelFor(reviewers.TierUltra2x, overrides); got != "claude-fable-5-1" {
		t.Errorf("ultra2x follows the ultra override: %s", got)
	}
	if got := f.ModelFor(reviewers.TierPlus, overrides); got != "claude-sonnet-5-5" {
		t.Errorf("plus default: %s", got)
	}
	line := reviewers.ModelsLine("anthropic", overrides)
	if line != "models per tier: sharpen claude-haiku-5-5 · plus claude-sonnet-5-5 · ultra claude-fable-5-1 · ultra2x claude-fable-5-1" {
		t.Errorf("models line %q", line)
	}
	if reviewers.ModelsLine("serpapi", nil) != "" {
		t.Error("a provider that is not a reviewer has no models line")
	}
}

// TestBaseURLs: each family's default base URL is the one its vendor documents (DeepSeek's is the
// bare host; Meta has none until an operator opts in).
func TestBaseURLs(t *testing.T) {
	want := map[string]string{
		"anthropic": "https://api.anthropic.com", "openai": "https://api.openai.com/v1",
		"google": "https://generativelanguage.googleapis.com", "xai": "https://api.x.ai/v1",
		"mistral": "https://api.mistral.ai/v1", "deepseek": "https://api.deepseek.com", "meta": "",
	}
	for _, f := range reviewers.Families() {
		if got, ok := want[f.ID]; !ok || f.Provider.BaseURL != got {
			t.Errorf("%s base URL %q, want %q", f.ID, f.Provider.BaseURL, got)
		}
	}
}

// TestMetaIsOptIn: Meta has no default model at any tier; an operator's model makes it a
// reviewer at that tier only, called as plain OpenAI-compatible chat completions.
func TestMetaIsOptIn(t *testing.T) {
	f := family(t, "meta")
	overrides := map[string]map[string]string{"meta": {reviewers.TierPlus: "operator-model-1"}}
	for _, tier := range reviewers.Tiers {
		if f.Serves(tier, nil) {
			t.Errorf("meta serves %s without an operator's model", tier)
		}
		if got := f.Serves(tier, overrides); got != (tier == reviewers.TierPlus) {
			t.Errorf("meta serves %s = %v with a plus model only", tier, got)
		}
	}
	if line := reviewers.ModelsLine("meta", nil); !strings.Contains(line, "SHARPEN_MODEL_META_SHARPEN") || !strings.Contains(line, "opt-in") {
		t.Errorf("models line %q does not say how to opt in", line)
	}
	var got seen
	client := providertest.Client(t, reviewers.Providers(), map[string]http.Handler{"meta": fake(t, 200, openAIAnswer, &got)}, map[string]string{"meta": "k"})
	p := prompt
	p.Tier = reviewers.TierPlus
	if _, err := f.Review(context.Background(), client.Upstream("meta", providers.ModeLive), f.ModelFor(reviewers.TierPlus, overrides), p); err != nil {
		t.Fatal(err)
	}
	if got.path != "/chat/completions" || got.body["model"] != "operator-model-1" || got.body["max_tokens"] != float64(1500) || got.body["reasoning_effort"] != nil {
		t.Errorf("meta request %s %v", got.path, got.body)
	}
}

// TestWatch: the last answered call of a family and tier decides whether it is listed as retired.
func TestWatch(t *testing.T) {
	gone := func(fam, tier string) error {
		var got seen
		body := `{"error":{"message":"Model Not Exist","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`
		client := providertest.Client(t, reviewers.Providers(), map[string]http.Handler{fam: fake(t, 400, body, &got)}, map[string]string{fam: "k"})
		f := family(t, fam)
		p := prompt
		p.Tier = tier
		_, err := f.Review(context.Background(), client.Upstream(fam, providers.ModeLive), f.ModelFor(tier, nil), p)
		return err
	}
	w := reviewers.NewWatch()
	w.Record("deepseek", reviewers.TierUltra, gone("deepseek", reviewers.TierUltra))
	w.Record("openai", reviewers.TierSharpen, gone("openai", reviewers.TierSharpen))
	w.Record("deepseek", reviewers.TierSharpen, gone("deepseek", reviewers.TierSharpen))
	list := w.Retired()
	if len(list) != 3 || list[0].Family != "openai" || list[1].Family != "deepseek" || list[1].Tier != reviewers.TierSharpen ||
		list[2].Tier != reviewers.TierUltra || list[2].Model != "deepseek-v4-pro" || list[2].Setting != "SHARPEN_MODEL_DEEPSEEK_ULTRA" ||
		list[2].VendorMessage != "Model Not Exist" || list[2].At.IsZero() {
		t.Fatalf("retired %+v", list)
	}
	// A timeout says nothing about the model; a success or another vendor refusal clears it.
	w.Record("deepseek", reviewers.TierUltra, providers.Errorf(providers.CodeProviderTimeout, "deepseek did not answer in time"))
	if !w.IsRetired("deepseek", reviewers.TierUltra) {
		t.Error("a timeout cleared the retired model")
	}
	w.Record("deepseek", reviewers.TierUltra, nil)
	w.Record("openai", reviewers.TierSharpen, &providers.Error{Code: providers.CodeProviderError, Message: "refused", UpstreamStatus: 401})
	if w.IsRetired("deepseek", reviewers.TierUltra) || w.IsRetired("openai", reviewers.TierSharpen) || len(w.Retired()) != 1 {
		t.Errorf("after answers: %+v", w.Retired())
	}
}
