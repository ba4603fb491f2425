package reviewers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/capgate/capgate/providers"
)

// Tiers of sharpen.
const (
	TierSharpen = "sharpen"
	TierPlus    = "plus"
	TierUltra   = "ultra"
	TierUltra2x = "ultra2x"
)

// Prompt is what a reviewer is asked (the gateway writes it).
type Prompt = providers.ReviewPrompt

// promptTier is the prompt's tier, sharpen when unset.
func promptTier(p Prompt) string {
	if p.Tier == "" {
		return TierSharpen
	}
	return p.Tier
}

// thinkingAllowance is the output a reasoning tier may spend thinking, added to the review's own
// MaxTokens: OpenAI's max_completion_tokens, Anthropic's max_tokens, Gemini's maxOutputTokens and
// the OpenAI-compatible max_tokens of xAI and DeepSeek all count reasoning tokens, so a bare
// 1,500-token bound leaves a thinking model no room for the review.
var thinkingAllowance = map[string]int{TierSharpen: 2000, TierPlus: 6000, TierUltra: 12000, TierUltra2x: 12000}

// effort is the reasoning effort asked of a thinking model per tier (the vendors' own words:
// OpenAI and xAI reasoning_effort, Anthropic output_config.effort; Gemini's thinkingLevel is the
// upper-case form).
var effort = map[string]string{TierSharpen: "low", TierPlus: "medium", TierUltra: "high", TierUltra2x: "high"}

// outputBudget is the output bound sent to the vendor: the review's tokens, plus the tier's
// thinking allowance for a model that reasons.
func outputBudget(p Prompt, thinks bool) int {
	if !thinks {
		return p.MaxTokens
	}
	return p.MaxTokens + thinkingAllowance[promptTier(p)]
}

// Family is one model vendor.
type Family struct {
	ID       string
	Provider *providers.Provider
	// Models are the default model per tier (ultra2x uses the ultra model); the admin overrides
	// them with SHARPEN_MODEL_<FAMILY>_<TIER>.
	Models map[string]string
	// Thinks tells, per tier, whether the tier's model reasons before it answers (and so gets the
	// thinking allowance and the vendor's effort knob). An override should keep that kind.
	Thinks map[string]bool
	// OptIn marks a family with no default models: it reviews only at the tiers an operator names
	// a model for (SHARPEN_MODEL_<FAMILY>_<TIER>), because the vendor's own current documentation
	// could not be confirmed (doc.go).
	OptIn bool
	call  func(ctx context.Context, u *providers.Upstream, model string, p Prompt, thinks bool) (string, error)
}

// Review asks the family's model for a review and returns its text. A model the vendor no longer
// serves is a provider_error naming the setting that picks another.
func (f *Family) Review(ctx context.Context, u *providers.Upstream, model string, p Prompt) (string, error) {
	text, err := f.call(ctx, u, model, p, f.Thinks[promptTier(p)])
	if err != nil {
		return "", f.modelGone(err, model, promptTier(p))
	}
	return text, nil
}

// Tiers are the sharpen tiers in order.
var Tiers = []string{TierSharpen, TierPlus, TierUltra, TierUltra2x}

// Setting is the environment variable that picks the family's model for a tier.
func Setting(family, tier string) string {
	return "SHARPEN_MODEL_" + strings.ToUpper(family) + "_" + strings.ToUpper(tier)
}

// ModelFor is the model the family uses for a tier: the tier's override, for ultra2x the ultra
// override, else the default.
func (f *Family) ModelFor(tier string, overrides map[string]map[string]string) string {
	if m := overrides[f.ID][tier]; m != "" {
		return m
	}
	if m := overrides[f.ID][TierUltra]; tier == TierUltra2x && m != "" {
		return m
	}
	return f.Models[tier]
}

// Serves tells whether the family reviews at the tier: it has a model there (an opt-in family
// only where the operator set one).
func (f *Family) Serves(tier string, overrides map[string]map[string]string) bool {
	return f.ModelFor(tier, overrides) != ""
}

// ModelsLine words the models a family uses per tier ("sharpen a · plus b · ..."), for the admin
// console; "" for a provider that is not a reviewer family.
func ModelsLine(id string, overrides map[string]map[string]string) string {
	for _, f := range Families() {
		if f.ID != id {
			continue
		}
		parts := make([]string, 0, len(Tiers))
		for _, t := range Tiers {
			m := f.ModelFor(t, overrides)
			if m == "" {
				m = "none (set " + Setting(f.ID, t) + ")"
			}
			parts = append(parts, t+" "+m)
		}
		line := "models per tier: " + strings.Join(parts, " · ")
		if f.OptIn {
			line += "; opt-in family: not a default reviewer, used only at the tiers given a model"
		}
		return line
	}
	return ""
}

func bearer(r *http.Request, key string) { r.Header.Set("Authorization", "Bearer "+key) }

func models(sharpen, plus, ultra string) map[string]string {
	return map[string]string{TierSharpen: sharpen, TierPlus: plus, TierUltra: ultra, TierUltra2x: ultra}
}

// thinks lists whether the sharpen, plus and ultra models reason (ultra2x as ultra).
func thinks(sharpen, plus, ultra bool) map[string]bool {
	return map[string]bool{TierSharpen: sharpen, TierPlus: plus, TierUltra: ultra, TierUltra2x: ultra}
}

// Families lists the vendors in routing preference order. The default models are each vendor's
// current ones for the tier (fast, stronger, strongest) as of late 2026; doc.go cites the model and
// deprecation pages they come from.
func Families() []*Family {
	return []*Family{
		{ID: "anthropic", Models: models("claude-haiku-5-5", "claude-sonnet-5-5", "claude-opus-5-5"), Thinks: thinks(true, true, true),
			Provider: &providers.Provider{ID: "anthropic", Title: "Anthropic", BaseURL: "https://api.anthropic.com", KeyRequired: true,
				Authorize: func(r *http.Request, key string) { r.Header.Set("x-api-key", key) },
				Sandbox:   sandbox("anthropic", anthropicSandbox)},
			call: anthropicReview},
		{ID: "openai", Models: models("gpt-6-luna", "gpt-6.2-sol", "gpt-6.2-astra"), Thinks: thinks(true, true, true),
			Provider: &providers.Provider{ID: "openai", Title: "OpenAI", BaseURL: "https://api.openai.com/v1", KeyRequired: true,
				Authorize: bearer, Sandbox: sandbox("openai", chatSandbox)},
			call: chatReview("max_completion_tokens", openAIThinking)},
		{ID: "google", Models: models("gemini-3.5-flash-lite", "gemini-3.8-flash", "gemini-4-argon"), Thinks: thinks(true, true, true),
			Provider: &providers.Provider{ID: "google", Title: "Google Gemini", BaseURL: "https://generativelanguage.googleapis.com", KeyRequired: true,
				Authorize: func(r *http.Request, key string) { r.Header.Set("x-goog-api-key", key) },
				Sandbox:   sandbox("google", geminiSandbox)},
			call: geminiReview},
		{ID: "xai", Models: models("grok-4.20-non-reasoning", "grok-4.3", "grok-4.7"), Thinks: thinks(false, true, true),
			Provider: &providers.Provider{ID: "xai", Title: "xAI", BaseURL: "https://api.x.ai/v1", KeyRequired: true,
				Authorize: bearer, Sandbox: sandbox("xai", chatSandbox)},
			call: chatReview("max_tokens", openAIThinking)},
		{ID: "mistral", Models: models("mistral-small-latest", "mistral-medium-latest", "mistral-large-latest"), Thinks: thinks(false, false, false),
			Provider: &providers.Provider{ID: "mistral", Title: "Mistral AI", BaseURL: "https://api.mistral.ai/v1", KeyRequired: true,
				Authorize: bearer, Sandbox: sandbox("mistral", chatSandbox)},
			call: chatReview("max_tokens", nil)},
		{ID: "deepseek", Models: models("deepseek-flash", "deepseek-v4-pro", "deepseek-v4-pro"), Thinks: thinks(false, false, true),
			Provider: &providers.Provider{ID: "deepseek", Title: "DeepSeek", BaseURL: "https://api.deepseek.com", KeyRequired: true,
				Authorize: bearer, Sandbox: sandbox("deepseek", chatSandbox)},
			call: chatReview("max_tokens", deepSeekThinking)},
		// Meta: the Llama API preview (api.llama.com/compat/v1) is retired and the successor's own
		// documentation could not be read (doc.go), so the family has no default models and no
		// default base URL: an operator who has Meta's documentation sets PROVIDER_META_URL, the
		// key and SHARPEN_MODEL_META_<TIER>; it is then called as OpenAI-compatible chat
		// completions without reasoning knobs.
		{ID: "meta", Models: map[string]string{}, Thinks: thinks(false, false, false), OptIn: true,
			Provider: &providers.Provider{ID: "meta", Title: "Meta", KeyRequired: true,
				KeyNote:   "an operator opting in sets PROVIDER_META_URL, PROVIDER_META_KEY and SHARPEN_MODEL_META_<TIER>",
				Authorize: bearer, Sandbox: sandbox("meta", chatSandbox)},
			call: chatReview("max_tokens", nil)},
	}
}

// openAIThinking asks an OpenAI or xAI reasoning model for the tier's reasoning_effort; a tier
// whose model does not reason sends nothing.
func openAIThinking(body map[string]any, tier string, thinks bool) {
	if thinks {
		body["reasoning_effort"] = effort[tier]
	}
}

// deepSeekThinking sets DeepSeek's thinking mode explicitly either way: it is on by default (at
// effort high), so a tier that must not think sends {"thinking": {"type": "disabled"}}, else its
// reasoning would eat the review's 1,500 tokens. A thinking tier asks for effort high (DeepSeek
// maps low to low, medium and high to high, xhigh to high, max to max).
func deepSeekThinking(body map[string]any, _ string, thinks bool) {
	if !thinks {
		body["thinking"] = map[string]any{"type": "disabled"}
		return
	}
	body["thinking"] = map[string]any{"type": "enabled"}
	body["reasoning_effort"] = "high"
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

// vendorError puts the vendor's own error message into the error, so the operator sees why a
// reviewer refused.
func vendorError(id string, err error) error {
	e, ok := providers.AsError(err)
	if !ok || len(e.Body) == 0 {
		return err
	}
	if v := readVendorError(e.Body); v.Message != "" {
		out := *e
		out.Cause = fmt.Errorf("%s: %s", id, v.Message)
		return &out
	}
	return err
}

// vendorErr is what the vendors' error bodies say, read from each documented shape: OpenAI,
// DeepSeek and Meta {"error": {"message", "type", "code"}}; Anthropic {"type": "error", "error":
// {"type", "message"}}; Gemini {"error": {"code", "message", "status"}}; xAI {"code": "...",
// "error": "<message>"}; Mistral {"object": "error", "message", "type", "code"}.
type vendorErr struct {
	Message, Type, Code, Status string
}

func readVendorError(body []byte) vendorErr {
	var top struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
	}
	if json.Unmarshal(body, &top) != nil {
		return vendorErr{}
	}
	v := vendorErr{Message: top.Message, Type: top.Type, Code: rawString(top.Code)}
	var inner struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
		Status  string          `json:"status"`
	}
	var text string
	switch {
	case json.Unmarshal(top.Error, &text) == nil && text != "":
		v.Message = text
	case json.Unmarshal(top.Error, &inner) == nil && inner.Message != "":
		v = vendorErr{Message: inner.Message, Type: inner.Type, Code: rawString(inner.Code), Status: inner.Status}
	}
	return v
}

// rawString reads a JSON string or number as text ("" for anything else).
func rawString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// goneWords are how the vendors word a model they do not serve (any more).
var goneWords = regexp.MustCompile(`(?i)(does not exist|not exist|not found|no longer|deprecated|retired|shut ?down|invalid model|unknown model|not supported for generatecontent)`)

// modelGone turns the vendor's "no such model" answer (404, or 400 for the vendors that answer an
// unknown model so) into a provider_error naming the setting to change; the gateway then tries
// the next family as for any failed reviewer. Other errors pass unchanged.
func (f *Family) modelGone(err error, model, tier string) error {
	e, ok := providers.AsError(err)
	if !ok || (e.UpstreamStatus != 404 && e.UpstreamStatus != 400 && e.UpstreamStatus != 410) {
		return err
	}
	v := readVendorError(e.Body)
	gone := v.Code == "model_not_found" || v.Type == "invalid_model" ||
		(v.Type == "not_found_error" && strings.HasPrefix(v.Message, "model:")) ||
		(strings.Contains(strings.ToLower(v.Message), "model") && goneWords.MatchString(v.Message))
	if !gone {
		return err
	}
	setting := Setting(f.ID, tier)
	return (&providers.Error{Code: providers.CodeProviderError,
		Message: fmt.Sprintf("%s does not serve the model %s (HTTP %d: %s); set %s to a current %s model",
			f.Provider.Title, model, e.UpstreamStatus, v.Message, setting, f.Provider.Title),
		Hint:           "an operator must set " + setting + " (see the vendor's model list); other reviewer families are tried meanwhile",
		UpstreamStatus: e.UpstreamStatus, Body: e.Body,
		Cause: &ModelGone{Family: f.ID, Title: f.Provider.Title, Tier: tier, Model: model, Setting: setting,
			VendorMessage: v.Message, Status: e.UpstreamStatus, cause: e}}).WithRetryable(false)
}

// ModelGone is the cause of a Review error whose vendor answered that it does not serve (any more)
// the model asked for: a retired or mistyped model, which only an operator can fix.
type ModelGone struct {
	Family, Title, Tier, Model string
	// Setting is the environment variable that picks another model.
	Setting string
	// VendorMessage is what the vendor said; Status its HTTP status.
	VendorMessage string
	Status        int
	cause         error
}

func (g *ModelGone) Error() string { return g.cause.Error() }
func (g *ModelGone) Unwrap() error { return g.cause }

// AsModelGone finds the vendor's "no such model" answer in a Review error.
func AsModelGone(err error) (*ModelGone, bool) {
	var g *ModelGone
	if errors.As(err, &g) {
		return g, true
	}
	return nil, false
}

// Retired is a family and tier whose last call failed with the vendor's "no such model" answer.
type Retired struct {
	ModelGone
	At time.Time
}

// Watch remembers, per family and tier, whether the last call the vendor answered was a "no such
// model" refusal, so that an admin sees a retired default before every review of a family falls
// through to the next one. A review that succeeds, or that the vendor refuses for another reason,
// clears the family and tier; failures the vendor did not answer (timeouts, an open breaker, an
// unconfigured provider) say nothing about the model and leave it as it was. Safe for concurrent
// use; bounded by the families and tiers.
type Watch struct {
	mu   sync.Mutex
	now  func() time.Time
	last map[[2]string]Retired
}

// NewWatch makes an empty watch.
func NewWatch() *Watch { return &Watch{now: time.Now, last: map[[2]string]Retired{}} }

// Record notes how a call of the family at the tier ended (err nil: it answered).
func (w *Watch) Record(family, tier string, err error) {
	k := [2]string{family, tier}
	w.mu.Lock()
	defer w.mu.Unlock()
	if g, ok := AsModelGone(err); ok {
		w.last[k] = Retired{ModelGone: *g, At: w.now().UTC()}
		return
	}
	if e, ok := providers.AsError(err); err == nil || ok && e.UpstreamStatus != 0 {
		delete(w.last, k)
	}
}

// Retired lists the families and tiers whose last answered call was "no such model", in the
// families' routing order, then tier order.
func (w *Watch) Retired() []Retired {
	w.mu.Lock()
	out := make([]Retired, 0, len(w.last))
	for _, r := range w.last {
		out = append(out, r)
	}
	w.mu.Unlock()
	rank := map[string]int{}
	for i, f := range Families() {
		rank[f.ID] = i
	}
	for i, t := range Tiers {
		rank["tier:"+t] = i
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Family != out[j].Family {
			return rank[out[i].Family] < rank[out[j].Family]
		}
		return rank["tier:"+out[i].Tier] < rank["tier:"+out[j].Tier]
	})
	return out
}

// IsRetired tells whether the family's last answered call at the tier was "no such model".
func (w *Watch) IsRetired(family, tier string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.last[[2]string{family, tier}]
	return ok
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// chatReview calls OpenAI-compatible chat completions; tokensField is the vendor's name of the
// output bound (OpenAI's reasoning models take only max_completion_tokens) and think, when set,
// adds the vendor's reasoning knobs for the tier (on, or explicitly off where the vendor thinks by
// default).
func chatReview(tokensField string, think func(body map[string]any, tier string, thinks bool)) func(ctx context.Context, u *providers.Upstream, model string, p Prompt, thinks bool) (string, error) {
	return func(ctx context.Context, u *providers.Upstream, model string, p Prompt, thinks bool) (string, error) {
		body := map[string]any{
			"model":     model,
			"messages":  []chatMessage{{Role: "system", Content: p.System}, {Role: "user", Content: p.User}},
			tokensField: outputBudget(p, thinks),
		}
		if think != nil {
			think(body, promptTier(p), thinks)
		}
		var out struct {
			Choices []struct {
				Message struct {
					Content *string `json:"content"`
				} `json:"message"`
				FinishReason string `json:"finish_reason"`
			} `json:"choices"`
			Usage struct {
				CompletionTokens int `json:"completion_tokens"`
				Details          struct {
					ReasoningTokens int `json:"reasoning_tokens"`
				} `json:"completion_tokens_details"`
			} `json:"usage"`
		}
		if err := postJSON(ctx, u, "/chat/completions", body, &out); err != nil {
			return "", err
		}
		if len(out.Choices) == 0 || out.Choices[0].Message.Content == nil || strings.TrimSpace(*out.Choices[0].Message.Content) == "" {
			finish := ""
			if len(out.Choices) > 0 {
				finish = out.Choices[0].FinishReason
			}
			return "", noText(u.ID(), finish, out.Usage.Details.ReasoningTokens)
		}
		return *out.Choices[0].Message.Content, nil
	}
}

// noText is the error of an answer without review text; an answer cut at the output bound after
// thinking says so, since that is a budget too small for the model's reasoning.
func noText(id, finish string, reasoningTokens int) error {
	if reasoningTokens > 0 {
		return providers.Errorf(providers.CodeProviderError, "%s returned no review text: its reasoning used %d tokens of the output budget (finish reason %s)",
			id, reasoningTokens, finish)
	}
	return providers.Errorf(providers.CodeProviderError, "%s returned no review text (finish reason %s)", id, finish)
}

// anthropicReview calls the Messages API.
func anthropicReview(ctx context.Context, u *providers.Upstream, model string, p Prompt, thinks bool) (string, error) {
	body := map[string]any{
		"model":      model,
		"max_tokens": outputBudget(p, thinks),
		"system":     p.System,
		"messages":   []chatMessage{{Role: "user", Content: p.User}},
	}
	if thinks {
		// Claude 5.5 models think adaptively by default, within max_tokens; effort bounds how much.
		body["output_config"] = map[string]any{"effort": effort[promptTier(p)]}
	}
	var out struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StopReason string `json:"stop_reason"`
		Usage      struct {
			OutputTokens int `json:"output_tokens"`
		} `json:"usage"`
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
		return "", providers.Errorf(providers.CodeProviderError, "anthropic returned no review text (stop_reason %s; %d output tokens)", out.StopReason, out.Usage.OutputTokens)
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
func geminiReview(ctx context.Context, u *providers.Upstream, model string, p Prompt, thinks bool) (string, error) {
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
		"generationConfig":  generationConfig(p, thinks),
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
		UsageMetadata struct {
			ThoughtsTokenCount int `json:"thoughtsTokenCount"`
		} `json:"usageMetadata"`
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
		return "", noText("google", out.Candidates[0].FinishReason, out.UsageMetadata.ThoughtsTokenCount)
	}
	return b.String(), nil
}

// generationConfig bounds Gemini's output (thoughts count against maxOutputTokens) and, for a
// thinking tier, sets Gemini 3's thinkingLevel.
func generationConfig(p Prompt, thinks bool) map[string]any {
	cfg := map[string]any{"maxOutputTokens": outputBudget(p, thinks)}
	if thinks {
		cfg["thinkingConfig"] = map[string]any{"thinkingLevel": strings.ToUpper(effort[promptTier(p)])}
	}
	return cfg
}
