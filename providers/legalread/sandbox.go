package legalread

import (
	"bytes"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/capgate/capgate/providers"
)

// The sandbox reads any document (issue 18): a CELEX number or a U.S. Reports item without a
// recording is the recorded one (Regulation 2016/679, 277 U.S. 438) under the requested number,
// in the requested language. The reserved misses answer as live: a CELEX number containing
// SANDBOX-NOT-FOUND (0SANDBOX-NOT-FOUND) and the item usrep999999.
func init() {
	providers.RegisterGenerators(eurlexID, providers.GeneratedRoute{Path: "/legal-content/*", Generate: generateEurlex})
	providers.RegisterGenerators(locID,
		providers.GeneratedRoute{Path: "/item/*", Generate: generateLOCItem},
		providers.GeneratedRoute{Path: "/storage-services/*", Generate: generateLOCPDF, Type: "application/pdf"})
}

const (
	recordedCelex = "32016R0679"
	recordedItem  = "usrep277438"
)

func generateEurlex(r *http.Request, fixture []byte, status int) ([]byte, int) {
	m := eurlexSandboxPath.FindStringSubmatch(r.URL.Path)
	c := sandboxCelex.FindStringSubmatch(r.URL.Query().Get("uri"))
	if status == http.StatusOK || m == nil || c == nil || providers.IsSandboxMiss(c[1]) {
		return fixture, status
	}
	b, err := fs.ReadFile(sandboxFS, "sandbox/eurlex_"+recordedCelex+"_EN.html")
	if err != nil {
		return fixture, status
	}
	b = bytes.ReplaceAll(b, []byte(recordedCelex), []byte(c[1]))
	b = bytes.ReplaceAll(b, []byte(`lang="en"`), []byte(`lang="`+strings.ToLower(m[1])+`"`))
	return b, http.StatusOK
}

func generateLOCItem(r *http.Request, fixture []byte, status int) ([]byte, int) {
	id := path.Base(strings.TrimSuffix(r.URL.Path, "/"))
	if status == http.StatusOK || !strings.HasPrefix(id, "usrep") || providers.IsSandboxMiss(id) {
		return fixture, status
	}
	b, err := fs.ReadFile(sandboxFS, "sandbox/loc_item_"+recordedItem+".json")
	if err != nil {
		return fixture, status
	}
	out := providers.RenameFixture(b, recordedItem, id)
	// The PDF path names the volume too: usrep277/usrep277438.
	out = providers.RenameFixture(out, "usrep"+recordedItem[5:8]+"/", "usrep"+id[5:8]+"/")
	// The item is about its own case, volume, page and term (issue 36).
	sc, ok := sandboxCaseOf(id)
	if !ok {
		return out, http.StatusOK
	}
	for _, p := range [][2]string{
		{"Olmstead v. United States", sc.name}, {"277 U.S. 438", sc.cite()}, {"(1928)", "(" + strconv.Itoa(sc.year) + ")"},
		{"Volume 277", "Volume " + strconv.Itoa(sc.volume)}, {"October Term, 1927", "October Term, " + strconv.Itoa(sc.year-1)},
		{"(1927)", "(" + strconv.Itoa(sc.year-1) + ")"}, {"1927", strconv.Itoa(sc.year - 1)},
		{"Wiretapping", "Synthetic test-mode item"}, {"Taft, William H.", "Sandbox, Justice"}, {"Taft, W. H.", "Sandbox, J."}, {"Taft, William H", "Sandbox, Justice"},
	} {
		out = providers.RenameFixture(out, p[0], p[1])
	}
	return out, http.StatusOK
}

// generateLOCPDF serves a U.S. Reports scan for any U.S. Reports PDF: the recorded one for its
// item, otherwise a synthetic scan of the item's volume, pages and term (issue 36).
func generateLOCPDF(r *http.Request, fixture []byte, status int) ([]byte, int) {
	base := path.Base(r.URL.Path)
	if status == http.StatusOK || !strings.HasSuffix(r.URL.Path, ".pdf") || providers.IsSandboxMiss(base[:len(base)-4]) {
		return fixture, status
	}
	if sc, ok := sandboxCaseOf(strings.TrimSuffix(base, ".pdf")); ok {
		if b, err := sc.cachedPDF(); err == nil {
			return b, http.StatusOK
		}
	}
	b, err := fs.ReadFile(sandboxFS, "sandbox/"+recordedItem+".pdf")
	if err != nil {
		return fixture, status
	}
	return b, http.StatusOK
}
