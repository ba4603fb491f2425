package main

import (
	"reflect"
	"strings"
	"testing"
)

func TestConfigTrustedProxiesAndMetricsToken(t *testing.T) {
	cases := []struct {
		env     string
		want    []string
		failing string
	}{
		{"", nil, ""},
		{"127.0.0.1", []string{"127.0.0.1"}, ""},
		{" 10.0.0.0/8 , 172.28.0.10/32,::1 ", []string{"10.0.0.0/8", "172.28.0.10/32", "::1"}, ""},
		{"10.0.0.0/33", nil, "10.0.0.0/33"},
		{"proxy.local", nil, "proxy.local"},
		{"127.1", nil, "127.1"},
	}
	for _, tc := range cases {
		env := map[string]string{"GATEWAY_TRUSTED_PROXIES": tc.env, "METRICS_TOKEN": "tok"}
		c, err := loadConfig(func(k string) string { return env[k] }, nil)
		if tc.failing != "" {
			if err == nil || !strings.Contains(err.Error(), tc.failing) {
				t.Errorf("%q: err %v, want a refusal naming %s", tc.env, err, tc.failing)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(c.TrustedProxies, tc.want) || c.MetricsToken != "tok" {
			t.Errorf("%q: %v %q (%v), want %v", tc.env, c.TrustedProxies, c.MetricsToken, err, tc.want)
		}
	}
}
