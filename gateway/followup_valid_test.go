package gateway

import (
	"strings"
	"testing"

	"github.com/capgate/capgate/providers"
)

// TestPlainlyValidImpliesSchema: the validator's shortcut accepts only bodies the schema accepts,
// and takes the common record-action and more bodies.
func TestPlainlyValidImpliesSchema(t *testing.T) {
	cases := []struct {
		body  string
		plain bool
	}{
		{`{"record_id":"rec_0123456789abcdef","action":"details"}`, true},
		{`{"search_id":"srch_0123456789ABCDEF","action":"more"}`, true},
		{`{"record_id":"rec_0123456789abcdef","search_id":"srch_0123456789abcdef","action":"read"}`, true},
		{`{"record_id":"rec_0123456789abcdef","action":"` + strings.Repeat("é", 40) + `"}`, true},
		{`{"record_id":"rec_0123456789abcdef","action":"` + strings.Repeat("é", 41) + `"}`, false},
		{`{"record_id":"rec_0123456789abcdef","action":"` + strings.Repeat("a", 41) + `"}`, false},
		{`{"record_id":"rec_0123456789abcdef","action":""}`, false},
		{`{"record_id":"rec_0123456789abcdef"}`, false},
		{`{"record_id":"rec_0123456789abcde","action":"details"}`, false},
		{`{"record_id":"rec_0123456789abcdeé","action":"details"}`, false},
		{`{"record_id":"rec_0123456789abcde-","action":"details"}`, false},
		{`{"record_id":"REC_0123456789abcdef","action":"details"}`, false},
		{`{"search_id":"rec_0123456789abcdef","action":"more"}`, false},
		{`{"search_id":"srch_0123456789abcdef","action":"update","params":{}}`, false},
		{`{"search_id":"srch_0123456789abcdef","action":1}`, false},
		{`{"search_id":"srch_0123456789abcdef","action":"more","x":"y"}`, false},
		{`{"search_id":"srch_0123456789abcdef","action":"more","Action":"more"}`, false},
	}
	for _, c := range cases {
		req, err := providers.DecodeBody([]byte(c.body))
		if err != nil {
			t.Fatal(err)
		}
		if got := plainlyValid(req); got != c.plain {
			t.Errorf("plainlyValid(%s) = %v, want %v", c.body, got, c.plain)
		}
		if plainlyValid(req) && len(followUpRequestSchema.Validate(map[string]any(req))) > 0 {
			t.Errorf("%s passes the shortcut but not the schema", c.body)
		}
	}
}
