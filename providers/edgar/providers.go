package edgar

import (
	"embed"
	"net/http"
	"time"

	"github.com/capgate/capgate/providers"
)

// Provider ids: the names of PROVIDER_<ID>_URL. EDGAR answers on two hosts: www.sec.gov (the
// ticker map and the filing archives) and data.sec.gov (the submissions API). Each host is its own
// provider so that a deployment can point either at a mirror and the sandbox can answer both.
const (
	secID     = "sec"     // https://www.sec.gov: files/company_tickers.json, Archives/edgar/data/...
	secDataID = "secdata" // https://data.sec.gov: submissions/CIK##########.json
)

// EDGAR's fair-access policy allows 10 requests a second per client "regardless of the number of
// machines used", across its hosts: both providers draw on one allowance (LimitGroup), shared by
// every instance of a fleet through Redis. The gateway paces 8 a second: the time between a call
// leaving the pacer and reaching SEC varies (scheduling, connection reuse), and the margin keeps
// what SEC counts in any second under its 10, as for the Library of Congress.
var fairAccess = []providers.Limit{{Requests: 8, Per: time.Second}}

const limitGroup = "sec"

// Instances of large filers run to tens of MiB; the spec's 8 MiB limit is for package metadata,
// not for EDGAR, so the archive host gets a larger bound.
const (
	maxArchiveBody     = 64 << 20
	maxSubmissionsBody = 32 << 20
)

//go:embed sandbox/*
var sandboxFS embed.FS

// The sandbox filing: Apple Inc.'s 10-K for fiscal 2024 (CIK 320193, accession
// 0000320193-24-000123), the filing the examples and their follow-ups read.
const (
	sandboxFolder = "/Archives/edgar/data/320193/000032019324000123/"
	xmlType       = "application/xml"
)

// Providers lists the two EDGAR hosts. Both are keyless; EDGAR refuses clients whose User-Agent
// does not declare who runs them ("Undeclared Automated Tool"), so both stay unavailable in live
// mode until GATEWAY_CONTACT is set (capgate/<version> (+contact)).
func Providers() []*providers.Provider {
	return []*providers.Provider{
		{
			ID:              secID,
			Title:           "SEC EDGAR archives (www.sec.gov)",
			Cache:           providers.CacheRule{MaxAge: 24 * time.Hour, Rule: "U.S. government public filings; an archived filing does not change", Source: "SEC: public EDGAR data (not re-read this session)"},
			BaseURL:         "https://www.sec.gov",
			Limits:          fairAccess,
			LimitGroup:      limitGroup,
			ContactRequired: true,
			MaxBody:         maxArchiveBody,
			Sandbox: providers.SandboxHandler(sandboxFS,
				providers.SandboxRoute{Path: "/files/company_tickers.json", File: "sandbox/company_tickers.json"},
				providers.SandboxRoute{Path: sandboxFolder + "index.json", File: "sandbox/index_000032019324000123.json"},
				providers.SandboxRoute{Path: sandboxFolder + "aapl-20240928_htm.xml", File: "sandbox/aapl-20240928_htm.xml", Type: xmlType},
				providers.SandboxRoute{Path: sandboxFolder + "aapl-20240928_lab.xml", File: "sandbox/aapl-20240928_lab.xml", Type: xmlType},
			),
		},
		{
			ID:              secDataID,
			Title:           "SEC EDGAR submissions API (data.sec.gov)",
			Cache:           providers.CacheRule{MaxAge: time.Hour, Rule: "U.S. government public data; new filings appear through the day, so an hour", Source: "SEC EDGAR APIs (not re-read this session; conservative hour)"},
			BaseURL:         "https://data.sec.gov",
			Limits:          fairAccess,
			LimitGroup:      limitGroup,
			ContactRequired: true,
			MaxBody:         maxSubmissionsBody,
			Sandbox: providers.SandboxHandler(sandboxFS,
				providers.SandboxRoute{Path: "/submissions/CIK0000320193.json", File: "sandbox/CIK0000320193.json"},
				providers.SandboxRoute{Path: "/submissions/CIK0000320193-submissions-001.json", File: "sandbox/CIK0000320193-submissions-001.json"},
				// data.sec.gov answers an unknown key with S3's NoSuchKey document.
				providers.SandboxRoute{Path: "/submissions/*", File: "sandbox/nosuchkey.xml", Status: http.StatusNotFound, Type: xmlType},
			),
		},
	}
}
