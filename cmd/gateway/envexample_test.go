package main

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/capgate/capgate/providers/registry"
)

// Every setting the binary reads is in .env.example. All configuration goes through the getenv
// that main hands to run and run hands to loadConfig, so recording what loadConfig asks for
// lists every setting.
func TestEnvExampleListsEverySetting(t *testing.T) {
	b, err := os.ReadFile("../../.env.example")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^#? ?([A-Z][A-Z0-9_]+)=`).FindAllStringSubmatch(string(b), -1) {
		listed[m[1]] = true
	}
	read := map[string]bool{}
	env := func(name string) string { read[name] = true; return "" }
	if _, err := loadConfig(env, registry.ProviderIDs()); err != nil {
		t.Fatal(err)
	}
	// A provider that takes no key of its own has its PROVIDER_<ID>_KEY read and ignored;
	// listing it would suggest a key to get.
	noKey := map[string]bool{}
	for _, p := range registry.Providers() {
		if !p.AcceptsKey() {
			noKey["PROVIDER_"+strings.ToUpper(p.ID)+"_KEY"] = true
		}
	}
	var missing []string
	for name := range read {
		base := strings.TrimSuffix(name, "_FILE") // NAME_FILE is documented once, for every secret
		if !listed[base] && !noKey[base] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf(".env.example does not list %d settings the gateway reads: %s", len(missing), strings.Join(missing, ", "))
	}
	// And it lists nothing the gateway does not read.
	for name := range listed {
		if !read[name] {
			t.Errorf(".env.example lists %s, which the gateway never reads", name)
		}
	}
	if len(read) < 20 {
		t.Fatalf("only %d settings were read: the recording env is not reaching loadConfig", len(read))
	}
}
