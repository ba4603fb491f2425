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
func workDetail(id string, w *work) (*WorkDetail, []providers.Link) {
	d := &WorkDetail{OpenAlexID: id, OpenAlexURL: siteURL + "/" + id, Title: w.title()}
	doi := bareDOI(string(w.DOI))
	d.DOI = doi
	if w.PublicationYear.OK {
		d.PublicationYear = ptr(w.PublicationYear.V)
	}
	d.PublicationDate = string(w.PublicationDate)
	d.Type = string(w.Type)
	d.Venue = w.venue()
	d.Abstract = rebuildAbstract(w.AbstractInvertedIndex)
	if w.CitedByCount.OK && w.CitedByCount.V >= 0 {
		d.CitedByCount = ptr(w.CitedByCount.V)
	}
	d.CountsByYear = countsByYear(w.CountsByYear.V)

	oa := OpenAccessInfo{}
	if w.OpenAccess.V.IsOA.OK {
		oa.IsOA = ptr(w.OpenAccess.V.IsOA.V)
	}
	oa.OAStatus = string(w.OpenAccess.V.OAStatus)
	oaURL := webURL(string(w.OpenAccess.V.OAURL))
	oa.OAURL = oaURL
	best := w.BestOALocation.V
	pdfURL := webURL(string(best.PDFURL))
	oa.PDFURL = pdfURL
	oa.License = string(best.License)
	oa.Version = string(best.Version)
	if oa != (OpenAccessInfo{}) {
		d.OpenAccess = &oa
	}
	landing := webURL(string(w.PrimaryLocation.V.LandingPageURL))
	d.LandingPageURL = landing

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
func countsByYear(in []lenient.Opt[countByYear]) []YearCount {
	out := []YearCount{}
	for _, c := range in {
		if c.V.Year.OK && c.V.CitedByCount.OK {
			out = append(out, YearCount{Year: c.V.Year.V, CitedByCount: c.V.CitedByCount.V})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Year > out[j].Year })
	return out
}
