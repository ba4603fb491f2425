package main

import (
	"reflect"
	"strings"
	"testing"
)

// TestConfigMCPAllowedOriginsAndHosts: the /mcp allow-lists parse, and a wrong entry is refused
// naming the setting rather than silently ignored.
func TestConfigMCPAllowedOriginsAndHosts(t *testing.T) {
	for _, tc := range []struct {
		origins, hosts         string
		wantOrigins, wantHosts []string
		failing                string
	}{
		{"", "", nil, nil, ""},
		{"https://app.example.com, http://localhost:5173", "mcp.example.com,mcp.example.com:8443",
			[]string{"https://app.example.com", "http://localhost:5173"}, []string{"mcp.example.com", "mcp.example.com:8443"}, ""},
		{"*", "*", []string{"*"}, []string{"*"}, ""},
		{"https://app.example.com/", "", []string{"https://app.example.com/"}, nil, ""},
		{"app.example.com", "", nil, nil, "GATEWAY_MCP_ALLOWED_ORIGINS"},
		{"https://app.example.com/path", "", nil, nil, "GATEWAY_MCP_ALLOWED_ORIGINS"},
		{"ftp://app.example.com", "", nil, nil, "GATEWAY_MCP_ALLOWED_ORIGINS"},
		{"https://user@app.example.com", "", nil, nil, "GATEWAY_MCP_ALLOWED_ORIGINS"},
		{"", "https://mcp.example.com", nil, nil, "GATEWAY_MCP_ALLOWED_HOSTS"},
		{"", "mcp.example.com/x", nil, nil, "GATEWAY_MCP_ALLOWED_HOSTS"},
		{"", "a b", nil, nil, "GATEWAY_MCP_ALLOWED_HOSTS"},
	} {
		env := map[string]string{"GATEWAY_MCP_ALLOWED_ORIGINS": tc.origins, "GATEWAY_MCP_ALLOWED_HOSTS": tc.hosts}
		c, err := loadConfig(func(k string) string { return env[k] }, nil)
		if tc.failing != "" {
			if err == nil || !strings.Contains(err.Error(), tc.failing) {
				t.Errorf("%q %q: err %v, want a refusal naming %s", tc.origins, tc.hosts, err, tc.failing)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(c.MCPAllowedOrigins, tc.wantOrigins) || !reflect.DeepEqual(c.MCPAllowedHosts, tc.wantHosts) {
			t.Errorf("%q %q: %v %v (%v)", tc.origins, tc.hosts, c.MCPAllowedOrigins, c.MCPAllowedHosts, err)
		}
	}
}
