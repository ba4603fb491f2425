package console

import (
	"errors"
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/console/views"
	"github.com/capgate/capgate/tenants"
)

// requestsPageSize is the calls one page of the request log shows.
const requestsPageSize = 50

// requests shows the request log (issue 34): every call of the account in the chosen mode,
// errors included, with status, error code and message, latency and key; filters by key,
// capability, status and error code, and a lookup by request id.
func (cn *Console) requests(c *fiber.Ctx) error {
	v := viewerOf(c)
	mode := modeOf(c)
	r := views.Requests{Mode: views.ModeView{Path: "/console/requests", Mode: mode},
		Key: c.Query("key"), Capability: c.Query("capability"), Status: c.Query("status"), ErrorCode: c.Query("error_code"),
		RequestID: strings.TrimSpace(c.Query("request_id"))}
	keys, err := cn.keyRows(c, mode)
	if err != nil {
		return err
	}
	r.Keys = keys
	prefix := map[string]string{}
	for _, k := range keys {
		prefix[k.ID] = k.Prefix
	}
	for _, cp := range cn.opts.Capabilities {
		r.Capabilities = append(r.Capabilities, cp.ID)
	}
	r.Capabilities = append(r.Capabilities, "sharpen")
	var es []tenants.RequestEntry
	if r.RequestID != "" {
		r.Lookup = true
		if es, err = cn.store.RequestsByID(c.UserContext(), v.tenant.ID, r.RequestID); err != nil {
			return err
		}
	} else {
		f := tenants.RequestFilter{TenantID: v.tenant.ID, Mode: mode, KeyID: r.Key, Capability: r.Capability, ErrorCode: r.ErrorCode,
			Cursor: c.Query("cursor"), Limit: requestsPageSize}
		if s := r.Status; s != "" {
			if len(s) == 3 && strings.HasSuffix(strings.ToLower(s), "xx") && s[0] >= '1' && s[0] <= '5' {
				f.Status, f.StatusClass = int(s[0]-'0'), true
			} else if n, err := strconv.Atoi(s); err == nil && n >= 100 && n <= 599 {
				f.Status = n
			} else {
				r.Error = "status must be an HTTP status such as 404 or a class such as 5xx"
			}
		}
		var next string
		if r.Error == "" {
			es, next, err = cn.store.Requests(c.UserContext(), f)
			if errors.Is(err, tenants.ErrBadCursor) {
				r.Error, err = "that page link is no longer valid; start from the newest calls", nil
			}
			if err != nil {
				return err
			}
		}
		if next != "" {
			q := url.Values{"mode": {mode}, "cursor": {next}}
			for k, val := range map[string]string{"key": r.Key, "capability": r.Capability, "status": r.Status, "error_code": r.ErrorCode} {
				if val != "" {
					q.Set(k, val)
				}
			}
			r.Next = q.Encode()
		}
	}
	for _, e := range es {
		r.Rows = append(r.Rows, views.RequestRow{Time: e.At(), Status: e.Status, ErrorCode: e.ErrorCode, ErrorMessage: e.ErrorMessage,
			Method: e.Method, Route: e.Route, Via: e.Via, Capability: e.Capability, Action: e.Action, KeyPrefix: prefix[e.KeyID],
			Credits: e.Credits, LatencyMS: float64(e.LatencyUS) / 1000, RequestID: e.RequestID})
	}
	return cn.page(c, "Request log", "requests", views.RequestsPage(r))
}
