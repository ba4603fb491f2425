package edgar

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/capgate/capgate/providers"
)

// The sandbox knows every filer (issue 18) but the reserved miss, CIK 9999999999: a CIK without
// a recording is the recorded filer's filings under that CIK, about the company the recorded
// ticker map names for it (its name, ticker, document prefix and accession numbers; issue 36) or
// a synthetic filer named after the CIK; any filing folder answers the recorded filing's listing
// and XBRL documents, rewritten for the folder's filer.
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
	f := filerOf(cik)
	doc := providers.JSONObject(f.rename(b))
	if doc == nil {
		return fixture, status
	}
	if _, ok := doc["cik"]; ok {
		doc["cik"] = strings.TrimLeft(cik, "0")
		doc["name"] = f.name
		doc["tickers"], doc["formerNames"] = []any{}, []any{}
		if f.ticker != "" {
			doc["tickers"] = []any{f.ticker}
		} else {
			doc["exchanges"] = []any{}
		}
		doc["ein"], doc["phone"] = "", ""
		if a, ok := doc["addresses"].(map[string]any); ok {
			for _, v := range a {
				if m, ok := v.(map[string]any); ok {
					m["street1"], m["city"], m["zipCode"] = "1 Sandbox Way", "SANDBOX CITY", "00000"
				}
			}
		}
	}
	return providers.JSONBytes(doc), http.StatusOK
}

// generateArchive serves the recorded filing's documents from any filing folder, about the
// filer whose folder it is.
func generateArchive(r *http.Request, fixture []byte, status int) ([]byte, int) {
	if status == http.StatusOK {
		return fixture, status
	}
	segs := strings.Split(strings.TrimPrefix(r.URL.Path, "/Archives/edgar/data/"), "/")
	if len(segs) != 3 || segs[0] == strings.TrimLeft(sandboxMissCIK, "0") {
		return fixture, status
	}
	n, err := strconv.Atoi(segs[0])
	if err != nil {
		return fixture, status
	}
	f := filerOf(fmt.Sprintf("%010d", n))
	file := segs[2]
	if file == "index.json" {
		file = "index_000032019324000123.json"
	} else if f.prefix != recordedPrefix && strings.HasPrefix(file, f.prefix+"-") {
		file = recordedPrefix + strings.TrimPrefix(file, f.prefix)
	}
	b, err := fs.ReadFile(sandboxFS, "sandbox/"+path.Base(file))
	if err != nil || !strings.Contains(file, ".") || strings.HasPrefix(file, "CIK") || file == "company_tickers.json" {
		return fixture, status
	}
	return f.rename(b), http.StatusOK
}

// recordedPrefix is the recorded filer's document prefix (aapl-20240928.htm).
const recordedPrefix = "aapl"

// filer is who a sandbox CIK is (issue 36): the company of the recorded ticker map under that
// CIK (its name and ticker), otherwise a synthetic filer named after the CIK.
type filer struct {
	cik, name, ticker, prefix string
}

func filerOf(cik string) filer {
	n := strings.TrimLeft(cik, "0")
	f := filer{cik: cik, name: "Sandbox Filer " + n, prefix: "sbx" + n}
	for _, t := range sandboxTickers() {
		if strconv.Itoa(t.CIK) == n {
			f.name, f.ticker, f.prefix = t.Title, t.Ticker, strings.ToLower(strings.ReplaceAll(t.Ticker, ".", "-"))
			break
		}
	}
	return f
}

// rename makes a recorded document of the recorded filer about f: its CIK (in accessions and
// contexts too), its name and its document prefix and symbol.
func (f filer) rename(b []byte) []byte {
	if f.cik == recordedCIK {
		return b
	}
	b = bytes.ReplaceAll(b, []byte(recordedCIK), []byte(f.cik))
	b = bytes.ReplaceAll(b, []byte("Apple Inc."), []byte(f.name))
	b = bytes.ReplaceAll(b, []byte(recordedPrefix), []byte(f.prefix))
	sym := f.ticker
	if sym == "" {
		sym = strings.ToUpper(f.prefix)
	}
	return bytes.ReplaceAll(b, []byte("AAPL"), []byte(sym))
}

type sandboxTicker struct {
	CIK    int    `json:"cik_str"`
	Ticker string `json:"ticker"`
	Title  string `json:"title"`
}

var sandboxTickers = sync.OnceValue(func() []sandboxTicker {
	var m map[string]sandboxTicker
	b, _ := fs.ReadFile(sandboxFS, "sandbox/company_tickers.json")
	_ = json.Unmarshal(b, &m)
	out := make([]sandboxTicker, 0, len(m))
	for i := range len(m) {
		if t, ok := m[strconv.Itoa(i)]; ok {
			out = append(out, t)
		}
	}
	return out
})
