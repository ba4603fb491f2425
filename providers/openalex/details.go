package openalex

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

// workDetails is the details lookup: the singleton /works/{W-id}, which OpenAlex answers for free
// (a merged work is redirected to the work it was merged into; the client follows).
func workDetails(ctx context.Context, call *providers.Call, rec *providers.Record) (*providers.Detail, error) {
	var ref workRef
	if len(rec.Ref) == 0 || json.Unmarshal(rec.Ref, &ref) != nil || !workIDPattern.MatchString(ref.ID) {
		return nil, providers.InvalidField("/record_id", "this record has no OpenAlex id; details need one")
	}
	var w work
	q := url.Values{"select": {strings.Join(detailSelect, ",")}}
	err := call.Upstream(ProviderID).GetJSON(ctx, "/works/"+ref.ID, q, &w)
	if e, ok := providers.AsError(err); ok && e.UpstreamStatus == http.StatusNotFound {
		return nil, providers.Errorf(providers.CodeNotFound, "OpenAlex has no work %s (it may have been removed)", ref.ID)
	}
	if err != nil {
		return nil, upstreamError(err, "")
	}
	id := workID(string(w.ID))
	if id == "" {
		id = ref.ID
	}
	body, links := workDetail(id, &w)
	return &providers.Detail{Body: body, Links: links}, nil
}

// workDetail maps a singleton Work to the detail body and its links. Keys are left out when
// OpenAlex has no value; counts_by_year is always a list (newest year first).
func workDetail(id string, w *work) (map[string]any, []providers.Link) {
	d := map[string]any{"openalex_id": id, "openalex_url": siteURL + "/" + id}
	if t := w.title(); t != "" {
		d["title"] = t
	}
	doi := bareDOI(string(w.DOI))
	if doi != "" {
		d["doi"] = doi
	}
	if w.PublicationYear.OK {
		d["publication_year"] = w.PublicationYear.V
	}
	if w.PublicationDate != "" {
		d["publication_date"] = string(w.PublicationDate)
	}
	if w.Type != "" {
		d["type"] = string(w.Type)
	}
	if v := w.venue(); v != "" {
		d["venue"] = v
	}
	if abs := rebuildAbstract(w.AbstractInvertedIndex); abs != "" {
		d["abstract"] = abs
	}
	if w.CitedByCount.OK && w.CitedByCount.V >= 0 {
		d["cited_by_count"] = w.CitedByCount.V
	}
	d["counts_by_year"] = countsByYear(w.CountsByYear.V)

	oa := map[string]any{}
	if w.OpenAccess.V.IsOA.OK {
		oa["is_oa"] = w.OpenAccess.V.IsOA.V
	}
	if s := w.OpenAccess.V.OAStatus; s != "" {
		oa["oa_status"] = string(s)
	}
	oaURL := webURL(string(w.OpenAccess.V.OAURL))
	if oaURL != "" {
		oa["oa_url"] = oaURL
	}
	best := w.BestOALocation.V
	pdfURL := webURL(string(best.PDFURL))
	if pdfURL != "" {
		oa["pdf_url"] = pdfURL
	}
	if best.License != "" {
		oa["license"] = string(best.License)
	}
	if best.Version != "" {
		oa["version"] = string(best.Version)
	}
	if len(oa) > 0 {
		d["open_access"] = oa
	}
	landing := webURL(string(w.PrimaryLocation.V.LandingPageURL))
	if landing != "" {
		d["landing_page_url"] = landing
	}

	var links []providers.Link
	seen := map[string]bool{}
	add := func(label, u string) {
		if u != "" && !seen[u] {
			seen[u] = true
			links = append(links, providers.Link{Label: label, URL: u})
		}
	}
	if doi != "" {
		add("DOI", doiURL(doi))
	}
	add("Landing page", landing)
	add("Open-access PDF", pdfURL)
	add("Open-access copy", oaURL)
	add("OpenAlex record", siteURL+"/"+id)
	return d, links
}

// countsByYear lists citations per year, newest first, skipping entries without a year or count.
func countsByYear(in []lenient.Opt[countByYear]) []map[string]any {
	out := []map[string]any{}
	for _, c := range in {
		if c.V.Year.OK && c.V.CitedByCount.OK {
			out = append(out, map[string]any{"year": c.V.Year.V, "cited_by_count": c.V.CitedByCount.V})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i]["year"].(int) > out[j]["year"].(int) })
	return out
}
