// Package reviewers speaks the chat APIs of the model vendors that sharpen uses as second-opinion
// reviewers: OpenAI-compatible chat completions (OpenAI, xAI, Mistral, DeepSeek, Meta's Llama API
// compatibility endpoint), Anthropic messages and Gemini generateContent. Each family is an
// upstream provider (PROVIDER_<FAMILY>_KEY) called through the one upstream client, and each has
// a sandbox answering in the vendor's real response shape with a deterministic review.
//
// Default models (fast / stronger / strongest; ultra2x uses ultra's), from each vendor's model and
// deprecation pages as read in November 2026:
//   - Anthropic: claude-haiku-5-5 / claude-sonnet-5-5 / claude-opus-5-5 (platform.claude.com
//     models overview and the Haiku 5.5 page, model id claude-haiku-5-5; the model-deprecations
//     page: claude-3-5-haiku, the Claude 4.0 models and claude-opus-4-1 (August 5, 2026) retired).
//     The 5.5 models think adaptively by default and count thinking against max_tokens; the
//     effort parameter is output_config.effort (low, medium, high, xhigh, max).
//   - OpenAI: gpt-6-luna / gpt-6.2-sol / gpt-6.2-astra (developers.openai.com models pages; the
//     deprecations page shuts gpt-5, gpt-5-mini and o3 down on December 11, 2026 and the GPT-4.1
//     snapshots on January 14, 2027). All are reasoning models on Chat Completions:
//     max_completion_tokens (reasoning tokens included, usage.completion_tokens_details.
//     reasoning_tokens) and reasoning_effort (Astra refuses "none", never sent).
//   - Google: gemini-3.5-flash-lite / gemini-3.8-flash / gemini-3.8-flash (ai.google.dev
//     deprecations: gemini-2.5-flash and -pro withdrawn, 2.5 Pro's recommended replacement is
//     gemini-3.8-flash; the only newer Pro is gemini-3.1-pro-preview, a preview model that may be
//     retired at short notice, so ultra is 3.8 Flash at thinkingLevel HIGH). Thoughts count
//     against maxOutputTokens (usageMetadata.thoughtsTokenCount, parts with "thought": true).
//   - xAI: grok-4.20-non-reasoning / grok-4.3 / grok-4.5 (docs.x.ai model pages; the SDKs'
//     current lineup drops grok-3*, grok-4 and grok-4-0709). grok-4.3 and grok-4.5 take
//     reasoning_effort (low, medium, high); reasoning tokens are in completion_tokens_details.
//   - DeepSeek: deepseek-v4-flash / deepseek-v4-pro / deepseek-v4-pro (api-docs.deepseek.com
//     pricing: the deepseek-chat and deepseek-reasoner aliases were retired on July 24, 2026).
//     Ultra turns thinking on ({"thinking": {"type": "enabled"}}, reasoning_effort high); the
//     answer carries message.reasoning_content beside content.
//   - Mistral and Meta keep their "-latest" and Llama 4 ids (not reported retired).
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
//     type invalid_model) is a non-retryable provider_error naming SHARPEN_MODEL_<FAMILY>_<TIER>;
//     sharpen then tries the next family as for any failed reviewer. The bodies are quoted from
//     client-library issues and the vendors' error pages.
//   - Reasoning answers in the tests follow each vendor's documented response shape (OpenAI and
//     xAI usage.completion_tokens_details.reasoning_tokens, Anthropic thinking blocks with a
//     signature, Gemini thought parts and thoughtsTokenCount, DeepSeek reasoning_content).
//   - The admin providers page lists each family's model per tier (ModelsLine), overrides
//     included, so an operator sees what a retired default must be replaced with.
package reviewers
