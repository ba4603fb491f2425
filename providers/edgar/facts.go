package edgar

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

// revenueConcepts are the concepts of the revenue_breakdown view, by taxonomy family: US GAAP
// (http://fasb.org/us-gaap/<year>) and IFRS (http://xbrl.ifrs.org/taxonomy/<date>/ifrs-full).
var revenueConcepts = map[string]map[string]bool{
	"us-gaap": {
		"Revenues": true, "RevenueFromContractWithCustomerExcludingAssessedTax": true,
		"RevenueFromContractWithCustomerIncludingAssessedTax": true, "RevenuesNetOfInterestExpense": true,
		"SalesRevenueNet": true, "SalesRevenueGoodsNet": true, "SalesRevenueServicesNet": true,
	},
	"ifrs-full": {"Revenue": true, "RevenueFromContractsWithCustomers": true},
}

var (
	usGAAPNamespace = regexp.MustCompile(`^http://fasb\.org/us-gaap/[0-9]{4}(-[0-9]{2}-[0-9]{2})?$`)
	ifrsNamespace   = regexp.MustCompile(`^https?://xbrl\.ifrs\.org/taxonomy/[0-9]{4}-[0-9]{2}-[0-9]{2}/ifrs-full$`)
	// jsonNumber is a value a JSON number can carry exactly as written.
	jsonNumber  = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?$`)
	reportFiles = regexp.MustCompile(`^R[0-9]+\.xml$`)
)

func taxonomyFamily(space string) string {
	switch {
	case usGAAPNamespace.MatchString(space):
		return "us-gaap"
	case ifrsNamespace.MatchString(space):
		return "ifrs-full"
	}
	return ""
}

func isRevenue(f *fact) bool { return revenueConcepts[taxonomyFamily(f.space)][f.local] }

// --- the filing folder

type indexItem struct {
	Name         lenient.Str `json:"name"`
	Type         lenient.Str `json:"type"`
	Size         lenient.ID  `json:"size"`
	LastModified lenient.Str `json:"last-modified"`
}

// loadIndex reads the filing folder's listing, Archives/edgar/data/{cik}/{accession}/index.json:
// {"directory": {"item": [{"last-modified", "name", "type", "size"}], "name", "parent-dir"}}.
// A folder EDGAR does not have is a 404; it is refused at path (the request field naming the
// filing), or not_found for a record action (path "").
func loadIndex(ctx context.Context, call *providers.Call, cik, accession, path string) ([]indexItem, error) {
	var body struct {
		Directory struct {
			Item []indexItem `json:"item"`
		} `json:"directory"`
	}
	resp, err := call.Upstream(secID).Get(ctx, folderPath(cik, accession)+"index.json", nil, http.Header{"Accept": {"application/json"}})
	if err != nil {
		if isNotFound(err) {
			msg := fmt.Sprintf("EDGAR has no filing %s for CIK %s", accession, archiveCIK(cik))
			if path != "" {
				return nil, providers.InvalidField(path, msg)
			}
			return nil, providers.Errorf(providers.CodeNotFound, "%s", msg)
		}
		return nil, upstreamError(err, "EDGAR's filing archive")
	}
	if err := json.Unmarshal(resp.Body, &body); err != nil {
		return nil, providers.Errorf(providers.CodeProviderError, "EDGAR's listing of filing %s is not the documented JSON", accession)
	}
	items := make([]indexItem, 0, len(body.Directory.Item))
	for _, it := range body.Directory.Item {
		if it.Name != "" && !strings.ContainsAny(string(it.Name), "/\\") && string(it.Name) != ".." {
			items = append(items, it)
		}
	}
	return items, nil
}

// pickXBRL chooses the filing's XBRL instance and label linkbase among the folder's files: the
// instance EDGAR extracts from inline XBRL (*_htm.xml; with several, the one of the primary
// document, else the one named like the filing's schema), otherwise the classic .xml instance
// (not a linkbase, FilingSummary.xml, an R*.xml report or primary_doc.xml) named like the schema,
// or the only candidate; the label linkbase *_lab.xml named like the instance, or the only one.
func pickXBRL(items []indexItem, primaryDocument string) (instance, labels string) {
	var inline, plain, labs []string
	schemas := map[string]bool{}
	for _, it := range items {
		name := string(it.Name)
		lower := strings.ToLower(name)
		switch {
		case strings.HasSuffix(lower, "_htm.xml"):
			inline = append(inline, name)
		case strings.HasSuffix(lower, "_lab.xml"):
			labs = append(labs, name)
		case strings.HasSuffix(lower, ".xsd"):
			schemas[strings.TrimSuffix(name, name[len(name)-4:])] = true
		case strings.HasSuffix(lower, ".xml"):
			if lower == "filingsummary.xml" || lower == "primary_doc.xml" || reportFiles.MatchString(name) {
				continue
			}
			if i := strings.LastIndexByte(lower, '_'); i >= 0 {
				switch lower[i:] {
				case "_cal.xml", "_def.xml", "_pre.xml", "_ref.xml", "_lab.xml":
					continue
				}
			}
			plain = append(plain, name)
		}
	}
	sort.Strings(inline)
	sort.Strings(plain)
	base := func(name string) string {
		name = name[:len(name)-4] // .xml
		return strings.TrimSuffix(strings.TrimSuffix(name, "_htm"), "_lab")
	}
	choose := func(cands []string, prefer func(string) bool) string {
		for _, c := range cands {
			if prefer(c) {
				return c
			}
		}
		if len(cands) == 1 {
			return cands[0]
		}
		return ""
	}
	if len(inline) > 0 {
		want := strings.TrimSuffix(primaryDocument, ".htm") + "_htm.xml"
		instance = choose(inline, func(c string) bool { return primaryDocument != "" && c == want })
		if instance == "" {
			instance = choose(inline, func(c string) bool { return schemas[base(c)] })
		}
		if instance == "" {
			instance = inline[0]
		}
	} else {
		instance = choose(plain, func(c string) bool { return schemas[base(c)] })
	}
	if instance == "" {
		return "", ""
	}
	sort.Strings(labs)
	labels = choose(labs, func(c string) bool { return base(c) == base(instance) })
	return instance, labels
}

// --- one filing's facts

// filingFacts is a filing's XBRL instance as read.
type filingFacts struct {
	cik, accession         string
	instanceURL, labelsURL string // public addresses
	sha256                 string // of the instance bytes
	retrievedAt            string
	inst                   *instance
	info                   map[*fact]*factInfo
	labels                 *labelSet
	notes                  []string
	skipped                int // facts left out: undefined context or unit
}

// loadFiling reads the filing's folder listing, its XBRL instance and label linkbase. path is the
// request field that named the filing ("" in a record action).
func loadFiling(ctx context.Context, call *providers.Call, cik, accession, path string) (*filingFacts, error) {
	items, err := loadIndex(ctx, call, cik, accession, path)
	if err != nil {
		return nil, err
	}
	instName, labName := pickXBRL(items, "")
	if instName == "" {
		msg := fmt.Sprintf("filing %s has no XBRL instance in its EDGAR folder, so it has no reported facts to read", accession)
		if path != "" {
			return nil, providers.InvalidField(path, msg)
		}
		return nil, providers.Errorf(providers.CodeNotFound, "%s", msg)
	}
	u := call.Upstream(secID)
	folder := folderPath(cik, accession)
	resp, err := u.Get(ctx, folder+url.PathEscape(instName), nil, http.Header{"Accept": {"application/xml, text/xml"}})
	if err != nil {
		return nil, upstreamError(err, "EDGAR's filing archive")
	}
	sum := sha256.Sum256(resp.Body)
	ff := &filingFacts{cik: cik, accession: accession, instanceURL: publicBase + folder + url.PathEscape(instName),
		sha256: hex.EncodeToString(sum[:]), retrievedAt: now().UTC().Format(time.RFC3339)}
	ff.inst, err = parseInstance(resp.Body)
	if err != nil {
		return nil, &providers.Error{Code: providers.CodeProviderError, Retryable: ptr(false),
			Message: fmt.Sprintf("the XBRL instance %s of filing %s could not be read: %v", instName, accession, err), Cause: err}
	}
	ff.info = analyze(ff.inst)
	if labName == "" {
		ff.notes = append(ff.notes, "the filing's folder has no label linkbase (*_lab.xml), so labels are null")
	} else {
		lresp, err := u.Get(ctx, folder+url.PathEscape(labName), nil, http.Header{"Accept": {"application/xml, text/xml"}})
		if err == nil {
			ff.labels, err = parseLabels(lresp.Body)
		} else if ctx.Err() != nil {
			return nil, err // out of time: the labels are not optional then, the whole call failed
		}
		switch {
		case err != nil:
			ff.notes = append(ff.notes, fmt.Sprintf("the label linkbase %s could not be read, so labels are null", labName))
			ff.labels = nil
		default:
			ff.labelsURL = publicBase + folder + url.PathEscape(labName)
		}
	}
	return ff, nil
}

// view selects the facts of a view, in document order: financials every numeric fact,
// revenue_breakdown the numeric facts of the revenue concepts. A fact whose context or unit the
// instance does not define is left out (and counted in skipped).
func (ff *filingFacts) view(view string) []*fact {
	var out []*fact
	ff.skipped = 0
	for _, f := range ff.inst.facts {
		if !f.numeric() || (view == viewRevenueBreakdown && !isRevenue(f)) {
			continue
		}
		if ff.inst.contexts[f.contextRef] == nil || ff.inst.units[f.unitRef] == nil {
			ff.skipped++
			continue
		}
		out = append(out, f)
	}
	return out
}

func (ff *filingFacts) sourceURL(f *fact) string {
	if f.id != "" {
		return ff.instanceURL + "#" + f.id
	}
	return ff.instanceURL
}

func (ff *filingFacts) label(qname string) (string, bool) { return ff.labels.label(qname) }

func (ff *filingFacts) dimensionObjects(c *xbrlContext) []Dimension {
	out := make([]Dimension, 0, len(c.dims))
	for _, d := range c.dims {
		o := Dimension{Dimension: d.dimension}
		o.DimensionLabel, _ = ff.label(d.dimension)
		if d.typed {
			o.TypedElement, o.Value = d.typedElement, nullableJSON(d.typedValue)
		} else {
			o.Member = d.member
			o.MemberLabel, _ = ff.label(d.member)
		}
		if d.scenario {
			o.Container = "scenario"
		}
		out = append(out, o)
	}
	return out
}

func unitObject(u *xbrlUnit) *Unit {
	return &Unit{Numerator: u.numerator, Denominator: u.denominator}
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (ff *filingFacts) duplicateIDs(f *fact) []any {
	out := []any{}
	if info := ff.info[f]; info != nil {
		for _, o := range info.duplicates {
			out = append(out, nullable(o.id))
		}
	}
	return out
}

func (ff *filingFacts) conflicting(f *fact) bool {
	info := ff.info[f]
	return info != nil && info.conflicting
}

// factObject is a fact as the financials and revenue_breakdown details show it (spec 4.20).
func (ff *filingFacts) factObject(f *fact) Fact {
	c := ff.inst.contexts[f.contextRef]
	var label *string
	if l, ok := ff.label(f.concept); ok {
		label = &l
	}
	var value *string
	if !f.isNil {
		value = &f.value
	}
	return Fact{
		Entity:            Entity{Scheme: c.scheme, Identifier: c.identifier},
		Period:            FactPeriod{Start: nullStr(c.start), End: nullStr(c.end), Instant: nullStr(c.instant)},
		Dimensions:        ff.dimensionObjects(c),
		Concept:           f.concept,
		Label:             label,
		FactID:            nullStr(f.id),
		ContextID:         f.contextRef,
		Unit:              unitObject(ff.inst.units[f.unitRef]),
		Value:             value,
		Decimals:          nullStr(f.decimals),
		Precision:         nullStr(f.precision),
		SourceURL:         ff.sourceURL(f),
		DuplicateFactIDs:  ff.duplicateIDs(f),
		ConflictingValues: ff.conflicting(f),
	}
}

// factRecord is a fact as a fact-view record: the spec's keys (cik, accession, source, fact_id,
// value, unit, period, dimensions) and, as extra keys, concept, label, context_id, decimals,
// precision, duplicate_fact_ids and conflicting_values. Absent values are left out.
func (ff *filingFacts) factRecord(f *fact) providers.Record {
	c := ff.inst.contexts[f.contextRef]
	u := ff.inst.units[f.unitRef]
	conflicting := ff.conflicting(f)
	label, _ := ff.label(f.concept)
	fields := &FilingRecord{CIK: ff.cik, Accession: ff.accession, Source: sourceName,
		Unit: unitObject(u), Dimensions: ff.dimensionObjects(c), Concept: f.concept, ContextID: f.contextRef,
		ConflictingValues: &conflicting, Period: &Period{Start: c.start, End: c.end, Instant: c.instant},
		FactID: f.id, Decimals: f.decimals, Precision: f.precision, Label: label}
	if !f.isNil {
		if jsonNumber.MatchString(f.value) {
			fields.Value = json.Number(f.value)
		} else if f.value != "" {
			fields.Value = f.value
		}
	}
	if ids := ff.duplicateIDs(f); len(ids) > 0 {
		fields.DuplicateFactIDs = ids
	}
	rec := providers.Record{Title: f.concept, URL: ff.sourceURL(f), Snippet: ff.snippet(f, c, u, label), Data: fields}
	rec.Ref, _ = json.Marshal(filingRef{CIK: ff.cik, Accession: ff.accession})
	return rec
}

// snippet reads a fact as one line: label, value and unit, period, dimensions.
func (ff *filingFacts) snippet(f *fact, c *xbrlContext, u *xbrlUnit, label string) string {
	value := f.value
	if f.isNil {
		value = "nil"
	}
	unit := strings.Join(u.numerator, "*")
	if len(u.denominator) > 0 {
		unit += "/" + strings.Join(u.denominator, "*")
	}
	s := value + " " + unit
	if label != "" {
		s = label + ": " + s
	}
	switch {
	case c.instant != "":
		s += "; at " + c.instant
	case c.start != "" || c.end != "":
		s += "; " + c.start + " to " + c.end
	}
	for _, d := range c.dims {
		if d.typed {
			v := "nil"
			if d.typedValue != nil {
				v = *d.typedValue
			}
			s += "; " + d.dimension + "=" + v
		} else {
			s += "; " + d.dimension + "=" + d.member
		}
	}
	if f.decimals != "" {
		s += "; decimals " + f.decimals
	}
	return s
}

// window is the part of a view shown from offset: at most maxFacts facts.
func window(facts []*fact, offset int) []*fact {
	if offset >= len(facts) {
		return nil
	}
	return facts[offset:min(offset+maxFacts, len(facts))]
}

// viewNotes are the caveats of a fact view or detail.
func (ff *filingFacts) viewNotes(view string, shown []*fact, total, offset int) []string {
	notes := []string{}
	label := "numeric facts"
	if view == viewRevenueBreakdown {
		label = "revenue facts"
	}
	switch {
	case total == 0:
		notes = append(notes, fmt.Sprintf("the XBRL instance of filing %s reports no %s", ff.accession, label))
	case offset+len(shown) < total:
		notes = append(notes, fmt.Sprintf("%s %d to %d of %d, in document order; continue with fact_offset %d",
			label, offset+1, offset+len(shown), total, offset+len(shown)))
	default:
		notes = append(notes, fmt.Sprintf("%s %d to %d of %d, in document order (the last)", label, offset+1, offset+len(shown), total))
	}
	if view == viewRevenueBreakdown {
		notes = append(notes, "the revenue facts overlap: the total, the breakdowns by segment, by product or service and by geography, "+
			"and the facts of several periods each report the same revenue again, so they must not be added; "+
			"compare facts of the same period and one dimension only")
	} else {
		notes = append(notes, "facts are reported values, not scaled (decimals gives their rounding); facts of different "+
			"periods and dimensions overlap (a total and its breakdowns), so they must not be added")
	}
	dups, conflicts := 0, 0
	for _, f := range shown {
		if info := ff.info[f]; info != nil && len(info.duplicates) > 0 {
			dups++
			if info.conflicting {
				conflicts++
			}
		}
	}
	if dups > 0 {
		notes = append(notes, fmt.Sprintf("%d of these facts are reported more than once for the same concept, context and unit "+
			"(duplicate_fact_ids); %d of them with values that do not agree at their decimals (conflicting_values)", dups, conflicts))
	}
	if ff.skipped > 0 {
		verb := "were"
		if ff.skipped == 1 {
			verb = "was"
		}
		notes = append(notes, fmt.Sprintf("%s a context or unit the instance does not define and %s left out",
			plural(ff.skipped, "fact references", "facts reference"), verb))
	}
	return append(notes, ff.notes...)
}

// factsPage is a fact view: up to maxFacts facts from offset, all in one page (local paging).
func factsPage(ctx context.Context, call *providers.Call, cik, accession, view string, offset int) (*providers.Page, error) {
	ff, err := loadFiling(ctx, call, cik, accession, "/accession")
	if err != nil {
		return nil, err
	}
	facts := ff.view(view)
	if offset > 0 && offset >= len(facts) {
		return nil, providers.InvalidField("/fact_offset",
			fmt.Sprintf("the %s view of filing %s has %d facts; fact_offset must be below %d", view, accession, len(facts), len(facts)))
	}
	shown := window(facts, offset)
	page := &providers.Page{Records: make([]providers.Record, 0, len(shown)), Notes: ff.viewNotes(view, shown, len(facts), offset)}
	for _, f := range shown {
		page.Records = append(page.Records, ff.factRecord(f))
	}
	return page, nil
}

// factsAction is the financials or revenue_breakdown record action. A record of a fact view of
// the same kind continues from that search's fact_offset, so a continuation's records lead to the
// detail of the same facts.
func factsAction(view string) func(ctx context.Context, call *providers.Call, rec *providers.Record) (*providers.Detail, error) {
	return func(ctx context.Context, call *providers.Call, rec *providers.Record) (*providers.Detail, error) {
		ref, err := recordRef(rec)
		if err != nil {
			return nil, err
		}
		offset := 0
		if q := call.Request; q != nil && viewOf(q) == view && q.Str("accession") == ref.Accession {
			offset, _ = q.Int("fact_offset")
		}
		ff, err := loadFiling(ctx, call, ref.CIK, ref.Accession, "")
		if err != nil {
			return nil, err
		}
		facts := ff.view(view)
		if offset < 0 || offset >= len(facts) {
			offset = 0
		}
		return ff.detail(view, facts, offset), nil
	}
}

// detail is the financials / revenue_breakdown detail with exactly the spec's keys.
func (ff *filingFacts) detail(view string, facts []*fact, offset int) *providers.Detail {
	shown := window(facts, offset)
	objects := make([]Fact, 0, len(shown))
	for _, f := range shown {
		objects = append(objects, ff.factObject(f))
	}
	truncated := offset+len(shown) < len(facts)
	next := offset
	if truncated {
		next = offset + len(shown)
	}
	body := ContinuationBody{Company: CompanyCIK{CIK: ff.cik}, View: view, Accession: ff.accession, FactOffset: next}
	docs := SourceDocuments{Instance: ff.instanceURL, Labels: ff.labelsURL}
	notes := ff.viewNotes(view, shown, len(facts), offset)
	if truncated {
		notes = append(notes, fmt.Sprintf("truncated at %d facts: execute continuation.body with companies.financials for the next", maxFacts))
	} else {
		notes = append(notes, "not truncated: continuation.body lists these same facts as search records")
	}
	links := []providers.Link{{Label: "XBRL instance", URL: ff.instanceURL}}
	if ff.labelsURL != "" {
		links = append(links, providers.Link{Label: "XBRL label linkbase", URL: ff.labelsURL})
	}
	links = append(links, providers.Link{Label: "EDGAR filing index", URL: indexPageURL(ff.cik, ff.accession)})
	return &providers.Detail{Body: &FactsDetail{
		CIK:              ff.cik,
		Accession:        ff.accession,
		Source:           sourceName,
		SourceDocuments:  docs,
		ContentSHA256:    ff.sha256,
		RetrievedAt:      ff.retrievedAt,
		ExtractionStatus: "selected_reported_facts",
		Facts:            objects,
		FactCount:        len(facts),
		Truncated:        truncated,
		Continuation:     Continuation{Capability: capabilityID, Body: body},
		Notes:            notes,
	}, Links: links}
}

// plural writes a count with the singular or plural words.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
