// Package reviewers speaks the chat APIs of the model vendors that sharpen uses as second-opinion
// reviewers: OpenAI-compatible chat completions (OpenAI, xAI, Mistral, DeepSeek, and an opt-in
// Meta endpoint), Anthropic messages and Gemini generateContent. Each family is an upstream
// provider (PROVIDER_<FAMILY>_KEY) called through the one upstream client, and each has a sandbox
// answering in the vendor's real response shape with a deterministic review.
//
// Default models (fast / stronger / strongest; ultra2x uses ultra's), from each vendor's model and
// deprecation pages; every page below was read on 2026-11-26 (stored copies, through the search
// tool) unless it says otherwise:
//   - Anthropic: claude-haiku-5-5 / claude-sonnet-5-5 / claude-opus-5-5 (platform.claude.com
//     models overview and the Haiku 5.5 page, model id claude-haiku-5-5, read in November 2026;
//     confirmed 2026-11-26 against platform.claude.com/docs/resources/overview, whose model cards
//     start at Opus 5.5, and /docs/en/about-claude/model-deprecations: claude-3-5-haiku, the
//     Claude 4.0 models and claude-opus-4-1 (August 5, 2026) retired). The 5.5 models think
//     adaptively by default and count thinking against max_tokens; the effort parameter is
//     output_config.effort (low, medium, high, xhigh, max). Unchanged.
//   - OpenAI: gpt-6-luna / gpt-6.2-sol / gpt-6.2-astra (developers.openai.com/api/docs/models,
//     2026-11-26: "use GPT-6.2 Astra, our flagship ... GPT-6.2 Sol to balance intelligence and
//     cost, or GPT-6 Luna for cost-sensitive, high-volume workloads"; Astra and Sol list efforts
//     low to max, no none). The deprecations page shuts gpt-5, gpt-5-mini and o3 down on December
//     11, 2026 and the GPT-4.1 snapshots on January 14, 2027. All are reasoning models on Chat
//     Completions: max_completion_tokens (reasoning tokens included, usage.
//     completion_tokens_details.reasoning_tokens) and reasoning_effort. Unchanged.
//   - Google: gemini-3.5-flash-lite / gemini-3.8-flash / gemini-4-argon (ai.google.dev/gemini-
//     api/docs/models, 2026-11-26: Gemini 4 Argon listed as stable, endpoint gemini-4-argon, beside
//     the stable Gemini 3.8 Flash and 3.5 Flash-Lite; ai.google.dev/gemini-api/docs/generate-
//     content/latest-model: "tunable thinking levels (low, medium, high)", default medium, set as
//     thinkingConfig.thinkingLevel like Gemini 3, so the request shape is the same and ultra asks
//     for HIGH). The earlier reason for keeping ultra on 3.8 Flash (the only newer Pro was a
//     preview) no longer holds. Thoughts count against maxOutputTokens (usageMetadata.
//     thoughtsTokenCount, parts with "thought": true); Argon's quickstart uses a 64K output
//     bound, so at HIGH within ultra's 13,500 tokens a long deliberation can end without text,
//     which is the provider_error below saying how many tokens the thinking used. Third-party
//     notes (Codeep's changelog) say Argon needs a paid key.
//   - xAI: grok-4.20-non-reasoning / grok-4.3 / grok-4.7. xAI's own model pages (docs.x.ai) are
//     not in the stored copies for grok-4.6 and grok-4.7, so this rests on other sources, read
//     2026-11-26: Google Cloud's xAI partner-model page (docs.cloud.google.com/…/partner-models/
//     grok) lists Grok 4.7 ("works longer on hard tasks and checks its own work") above Grok 4.6,
//     4.3 and 4.20, and Apidog's "How to use the Grok 4.7 API" (third party) gives the id
//     grok-4.7, released 2026-09-21, reasoning effort low/medium/high and Chat Completions still
//     served beside the Responses API. grok-4.3 and grok-4.7 take reasoning_effort; reasoning
//     tokens are in completion_tokens_details. The retired-model warning below shows it at once
//     should grok-4.7 not be served.
//   - DeepSeek: deepseek-flash / deepseek-v4-pro / deepseek-v4-pro, base URL
//     https://api.deepseek.com (api-docs.deepseek.com/zh-cn/quick_start/pricing, 2026-11-26: the
//     table lists deepseek-flash, DeepSeek-V4.1-Flash-1017, and deepseek-v4-pro, DeepSeek-V4-Pro-
//     0813, with the OpenAI-format base URL https://api.deepseek.com; note 1: use the name
//     deepseek-flash, the old names deepseek-v4-flash still answer but their model is offline and
//     V4.1 Flash serves them; the deepseek-chat and deepseek-reasoner aliases were retired on July
//     24, 2026). A third-party changelog (Codeep) says deepseek-v4-pro is routed to V4.1 Flash
//     since 14 September; DeepSeek's own page still lists V4-Pro-0813, so plus and ultra keep it.
//     api-docs.deepseek.com/guides/thinking_mode: thinking is ON by default (effort high), toggled
//     with {"thinking": {"type": "enabled/disabled"}}, effort with reasoning_effort (low/high/max;
//     medium maps to high). So sharpen and plus send {"thinking": {"type": "disabled"}} (without
//     it they reasoned inside the 1,500-token bound and could return no text) and ultra sends
//     enabled with reasoning_effort high; the answer then carries message.reasoning_content.
//   - Mistral: mistral-small-latest / mistral-medium-latest / mistral-large-latest
//     (docs.mistral.ai models pages; docs.mistral.ai/inference/conversations/reasoning,
//     2026-11-26: Small 4, Medium 3.5 and Large 4 reason only when asked through
//     reasoning_effort, so the aliases answer without thinking as sent). Unchanged.
//   - Meta: not a default reviewer any more. The Llama API preview (api.llama.com/compat/v1, the
//     Llama-4-Scout/Maverick ids) was retired on 2026-07-06 according to promptfoo's, LiteLLM's
//     and Mastra's provider pages (third party). Its successor, the "Meta Model API"
//     (https://api.meta.ai/v1, muse-spark-* and muse-ember-* models, reasoning always on), is
//     described only by third parties in the stored copies (promptfoo, LiteLLM, Mastra, the AI
//     SDK, OpenClaw, NeuroLink, Google Cloud's Meta partner-model pages); Meta's own
//     documentation (dev.meta.ai) could not be read. Rather than guess a base URL, model ids and a
//     request shape, the family has no default models and no default base URL (OptIn): an
//     operator with Meta's documentation sets PROVIDER_META_URL, PROVIDER_META_KEY and
//     SHARPEN_MODEL_META_<TIER>, and only those tiers route to it (plain OpenAI-compatible chat
//     completions, max_tokens, no reasoning knobs). caller_provider keeps the "meta" label.
//
// Decisions:
//   - Output budget: the review is bounded by Prompt.MaxTokens (1,500 from sharpen); a tier whose
//     model thinks (Family.Thinks) sends MaxTokens plus a thinking allowance (sharpen 2,000, plus
//     6,000, ultra and ultra2x 12,000), and the vendor's effort knob for the tier (low, medium,
//     high). The 12,000-character cap on the review stays in sharpen. An answer with no text is a
//     provider_error that says how many tokens the reasoning used when the vendor reports them.
//   - A model the vendor does not serve (Anthropic 404 not_found_error "model: ...", OpenAI 404
//     code model_not_found, Gemini 404 NOT_FOUND "models/... is not found", xAI 404 {"code",
//     "error": "The model ... does not exist ..."}, DeepSeek 400 "Model Not Exist", Mistral 400
//     type invalid_model) is a non-retryable provider_error naming SHARPEN_MODEL_<FAMILY>_<TIER>
//     whose cause is a *ModelGone; sharpen then tries the next family as for any failed reviewer.
//     The vendors document the envelopes and statuses (Anthropic's error types with
//     not_found_error, OpenAI's error object, Google's NOT_FOUND status, DeepSeek's error-codes
//     page: 400 Invalid Format / 422 Invalid Parameters, Mistral's invalid_model) but none of the
//     pages read quotes the exact "no such model" body: the bodies in the tests are the ones
//     client-library issues recorded. Meta's answer is not known (see above).
//   - Retirement is made visible before it bites: Watch remembers, per family and tier, whether
//     the last live call the vendor answered was that refusal (a success or another vendor answer
//     clears it; timeouts say nothing). The admin providers page lists those families with the
//     setting to change, and /metrics exports capgate_reviewer_model_retired{family,tier} (1 or
//     0 for every family and tier), independent of startup and /readyz.
//   - Reasoning answers in the tests follow each vendor's documented response shape (OpenAI and
//     xAI usage.completion_tokens_details.reasoning_tokens, Anthropic thinking blocks with a
//     signature, Gemini thought parts and thoughtsTokenCount, DeepSeek reasoning_content).
//   - The admin providers page lists each family's model per tier (ModelsLine), overrides
//     included, so an operator sees what a retired default must be replaced with.
package reviewers
