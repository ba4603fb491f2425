package main

import (
	"strings"
	"testing"
	"time"
)

// TestConfigRequestLogAndAdminToken: GATEWAY_REQUEST_LOG_RETENTION defaults to 30 days and is
// bounded; GATEWAY_ADMIN_TOKEN is off when unset and refused when short.
func TestConfigRequestLogAndAdminToken(t *testing.T) {
	long := strings.Repeat("a", 32)
	cases := []struct {
		retention, token string
		want             time.Duration
		failing          string
	}{
		{"", "", 720 * time.Hour, ""},
		{"48h", long, 48 * time.Hour, ""},
		{"1h", "", time.Hour, ""},
		{"59m", "", 0, "GATEWAY_REQUEST_LOG_RETENTION"},
		{"8761h", "", 0, "GATEWAY_REQUEST_LOG_RETENTION"},
		{"thirty days", "", 0, "GATEWAY_REQUEST_LOG_RETENTION"},
		{"", "short", 0, "GATEWAY_ADMIN_TOKEN"},
	}
	for _, tc := range cases {
		env := map[string]string{"GATEWAY_REQUEST_LOG_RETENTION": tc.retention, "GATEWAY_ADMIN_TOKEN": tc.token}
		c, err := loadConfig(func(k string) string { return env[k] }, nil)
		if tc.failing != "" {
			if err == nil || !strings.Contains(err.Error(), tc.failing) {
				t.Errorf("%+v: err %v, want a refusal naming %s", tc, err, tc.failing)
			}
			continue
		}
		if err != nil || c.RequestLogRetention != tc.want || c.AdminToken != tc.token {
			t.Errorf("%+v: %v %q (%v)", tc, c.RequestLogRetention, c.AdminToken, err)
		}
	}
}
