package providers

import (
	"io/fs"
	"net/http"
	"strings"
)

// SandboxRoute answers one upstream endpoint in the sandbox: Match sees the request (path and
// query), File names the fixture in the package's embedded sandbox folder.
type SandboxRoute struct {
	Method string // default GET
	Path   string // exact path, or a prefix when it ends with "*"
	// Match, when set, must also accept the request (for example a query parameter's value).
	Match  func(r *http.Request) bool
	File   string
	Status int // default 200
	Type   string
}

// SandboxHandler serves fixture files for the routes, first match wins; anything else is a 404
// with a JSON body, as an upstream would answer an unknown path.
func SandboxHandler(files fs.FS, routes ...SandboxRoute) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, rt := range routes {
			m := rt.Method
			if m == "" {
				m = http.MethodGet
			}
			if r.Method != m {
				continue
			}
			if strings.HasSuffix(rt.Path, "*") {
				if !strings.HasPrefix(r.URL.Path, strings.TrimSuffix(rt.Path, "*")) {
					continue
				}
			} else if r.URL.Path != rt.Path {
				continue
			}
			if rt.Match != nil && !rt.Match(r) {
				continue
			}
			b, err := fs.ReadFile(files, rt.File)
			if err != nil {
				http.Error(w, "sandbox fixture missing: "+rt.File, http.StatusInternalServerError)
				return
			}
			ct := rt.Type
			if ct == "" {
				ct = "application/json"
			}
			w.Header().Set("Content-Type", ct)
			status := rt.Status
			if status == 0 {
				status = http.StatusOK
			}
			w.WriteHeader(status)
			_, _ = w.Write(b)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":"not found in the capgate sandbox"}`))
	})
}
