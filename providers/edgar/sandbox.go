package edgar

import (
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/capgate/capgate/providers"
)

// The sandbox knows every filer (issue 18) but the reserved miss, CIK 9999999999: a CIK without
// a recording is the recorded filer (Apple Inc.) under that CIK and a name made from it, with the
// same filings; any filing folder answers the recorded filing's listing and XBRL documents.
// Tickers are those of the recorded ticker map (the map is one document, fetched without the
// ticker asked for).
func init() {
	providers.RegisterGenerators(secDataID, providers.GeneratedRoute{Path: "/submissions/*", Generate: generateSubmissions})
	providers.RegisterGenerators(secID, providers.GeneratedRoute{Path: "/Archives/edgar/data/*", Generate: generateArchive})
}

// sandboxMissCIK is the reserved miss of the EDGAR family.
const sandboxMissCIK = "9999999999"

const recordedCIK = "0000320193"

func generateSubmissions(r *http.Request, fixture []byte, status int) ([]byte, int) {
	name := path.Base(r.URL.Path)
	if status == http.StatusOK || !strings.HasPrefix(name, "CIK") || len(name) < 13 {
		return fixture, status
	}
	cik := name[3:13]
	if _, err := strconv.Atoi(cik); err != nil || cik == sandboxMissCIK {
		return fixture, status
	}
	file := "sandbox/CIK" + recordedCIK + name[13:]
	b, err := fs.ReadFile(sandboxFS, file)
	if err != nil {
		return fixture, status
	}
	doc := providers.JSONObject(b)
	if doc == nil {
		return fixture, status
	}
	if _, ok := doc["cik"]; ok {
		n := strings.TrimLeft(cik, "0")
		doc["cik"] = n
		doc["name"] = "Sandbox Filer " + n
		doc["tickers"], doc["exchanges"], doc["formerNames"] = []any{}, []any{}, []any{}
		if f, ok := doc["filings"].(map[string]any); ok {
			if files, ok := f["files"].([]any); ok {
				for _, x := range files {
					if m, ok := x.(map[string]any); ok {
						if s, ok := m["name"].(string); ok {
							m["name"] = strings.Replace(s, recordedCIK, cik, 1)
						}
					}
				}
			}
		}
	}
	return providers.JSONBytes(doc), http.StatusOK
}

// generateArchive serves the recorded filing's documents from any filing folder.
func generateArchive(r *http.Request, fixture []byte, status int) ([]byte, int) {
	if status == http.StatusOK {
		return fixture, status
	}
	segs := strings.Split(strings.TrimPrefix(r.URL.Path, "/Archives/edgar/data/"), "/")
	if len(segs) != 3 || segs[0] == strings.TrimLeft(sandboxMissCIK, "0") {
		return fixture, status
	}
	file := segs[2]
	if file == "index.json" {
		file = "index_000032019324000123.json"
	}
	b, err := fs.ReadFile(sandboxFS, "sandbox/"+path.Base(file))
	if err != nil || !strings.Contains(file, ".") || strings.HasPrefix(file, "CIK") || file == "company_tickers.json" {
		return fixture, status
	}
	return b, http.StatusOK
}
