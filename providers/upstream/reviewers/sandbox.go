package reviewers

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"strings"
)

// sandbox answers a vendor's real endpoint with a deterministic review in the vendor's response
// shape, echoing the requested model; an unknown path is the vendor's 404.
func sandbox(family string, answer func(w http.ResponseWriter, r *http.Request, family string, req map[string]any)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req map[string]any
		if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, `{"error":{"message":"sandbox: POST a JSON body"}}`, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		answer(w, r, family, req)
	})
}

// sandboxReview is deterministic for the same draft, so tests and first-run users see stable text.
func sandboxReview(family, model, user string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(user))
	return fmt.Sprintf("Sandbox review by %s/%s (check %08x).\n"+
		"1. Errors: none verified — this is the capgate sandbox; no model read the draft.\n"+
		"2. Unsupported claims: cite a source for each factual statement in the draft.\n"+
		"3. Omissions: state the assumptions the task leaves open.\n"+
		"4. Concrete fixes: tighten the first paragraph to answer the task directly.", family, model, h.Sum32())
}

func lastUser(req map[string]any) string {
	msgs, _ := req["messages"].([]any)
	for i := len(msgs) - 1; i >= 0; i-- {
		m, _ := msgs[i].(map[string]any)
		if m["role"] == "user" {
			s, _ := m["content"].(string)
			return s
		}
	}
	return ""
}

func chatSandbox(w http.ResponseWriter, r *http.Request, family string, req map[string]any) {
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":{"message":"Unknown request URL","type":"invalid_request_error","code":"unknown_url"}}`))
		return
	}
	model, _ := req["model"].(string)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-sandbox", "object": "chat.completion", "created": 1767225600, "model": model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": sandboxReview(family, model, lastUser(req))}}},
		"usage": map[string]any{"prompt_tokens": 420, "completion_tokens": 96, "total_tokens": 516},
	})
}

func anthropicSandbox(w http.ResponseWriter, r *http.Request, family string, req map[string]any) {
	if r.URL.Path != "/v1/messages" || r.Header.Get("anthropic-version") == "" {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"type":"error","error":{"type":"not_found_error","message":"Not found"}}`))
		return
	}
	model, _ := req["model"].(string)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "msg_sandbox", "type": "message", "role": "assistant", "model": model,
		"content":     []any{map[string]any{"type": "text", "text": sandboxReview(family, model, lastUser(req))}},
		"stop_reason": "end_turn", "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 420, "output_tokens": 96},
	})
}

func geminiSandbox(w http.ResponseWriter, r *http.Request, family string, req map[string]any) {
	path := r.URL.Path
	if !strings.HasPrefix(path, "/v1beta/models/") || !strings.HasSuffix(path, ":generateContent") {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":{"code":404,"message":"Not found","status":"NOT_FOUND"}}`))
		return
	}
	model := strings.TrimSuffix(strings.TrimPrefix(path, "/v1beta/models/"), ":generateContent")
	user := ""
	if cs, _ := req["contents"].([]any); len(cs) > 0 {
		c, _ := cs[0].(map[string]any)
		if ps, _ := c["parts"].([]any); len(ps) > 0 {
			p, _ := ps[0].(map[string]any)
			user, _ = p["text"].(string)
		}
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"candidates": []any{map[string]any{"index": 0, "finishReason": "STOP",
			"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": sandboxReview(family, model, user)}}}}},
		"usageMetadata": map[string]any{"promptTokenCount": 420, "candidatesTokenCount": 96, "totalTokenCount": 516},
		"modelVersion":  model,
	})
}
