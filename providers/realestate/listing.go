package realestate

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

// homeTypes maps Zillow's propertyType / homeType to the spec's home types.
var homeTypes = map[string]string{"SINGLE_FAMILY": "house", "CONDO": "condo", "TOWNHOUSE": "townhouse",
	"MULTI_FAMILY": "multi_family", "APARTMENT": "apartment", "LOT": "land", "MANUFACTURED": "manufactured"}

var homeTypeLabels = map[string]string{"house": "House", "condo": "Condo", "townhouse": "Townhouse",
	"multi_family": "Multi-family", "apartment": "Apartment", "land": "Land", "manufactured": "Manufactured"}

func homeType(zillow string) string {
	if t, ok := homeTypes[strings.ToUpper(zillow)]; ok {
		return t
	}
	return strings.ToLower(zillow)
}

// homeStatus maps Zillow's status to the spec's listing words; other statuses are lower-cased.
func homeStatus(zillow string) string {
	switch s := strings.ToUpper(zillow); s {
	case "FOR_SALE":
		return "for_sale"
	case "FOR_RENT":
		return "for_rent"
	case "RECENTLY_SOLD", "SOLD":
		return "sold"
	case "":
		return ""
	default:
		return strings.ToLower(s)
	}
}

// priceKind says what the price is: from the listing's status, else from the search's.
func priceKind(homeStatus, requested string) string {
	s := homeStatus
	if s == "" {
		s = requested
	}
	switch s {
	case "for_sale":
		return "listing_price"
	case "for_rent":
		return "monthly_rent"
	case "sold":
		return "reported_sold_price"
	}
	return "unknown"
}

// listingRecord maps one listing; ok is false without a usable zpid.
func listingRecord(l listing, requested, fetched string) (providers.Record, bool) {
	zpid := string(l.Zpid)
	if !zpidPattern.MatchString(zpid) {
		return providers.Record{}, false
	}
	street, city, state, zip := splitAddress(string(l.Address))
	ht := homeType(string(l.PropertyType))
	hs := homeStatus(string(l.ListingStatus))
	kind := priceKind(hs, requested)
	unit := strings.ToLower(string(l.LotAreaUnit))
	f := &ListingRecord{Source: sourceName, FetchedAt: fetched, Street: street, City: city, State: state, Zipcode: zip,
		Country: string(l.Country), HomeType: ht, HomeStatus: hs, StatusText: string(l.StatusText), Broker: string(l.BrokerName),
		Currency: string(l.Currency), PriceKind: kind, PriceLabel: priceLabel(l, kind), LotAreaUnit: unit}
	if l.DatePriceChanged.OK && l.DatePriceChanged.V > 0 {
		f.DatePriceChanged = day(l.DatePriceChanged.V)
	}
	positive := func(v lenient.Float) *float64 {
		if v.OK && v.V > 0 {
			return &v.V
		}
		return nil
	}
	f.Price, f.Baths, f.Sqft = positive(l.Price), positive(l.Bathrooms), positive(l.LivingArea)
	if l.Bedrooms.OK && l.Bedrooms.V >= 0 {
		f.Beds = &l.Bedrooms.V // 0 is a studio
	}
	if l.LotAreaValue.OK && l.LotAreaValue.V > 0 {
		var sqft float64
		switch unit {
		case "sqft":
			sqft = math.Round(l.LotAreaValue.V)
			f.LotSqft = &sqft
		case "acres", "acre":
			sqft = math.Round(l.LotAreaValue.V * sqftPerAcre)
			f.LotSqft = &sqft
		}
	}
	if l.DaysOnZillow.OK && l.DaysOnZillow.V >= 0 {
		f.DaysOnZillow = &l.DaysOnZillow.V
	}
	if l.Latitude.OK && l.Longitude.OK && (l.Latitude.V != 0 || l.Longitude.V != 0) &&
		math.Abs(l.Latitude.V) <= 90 && math.Abs(l.Longitude.V) <= 180 {
		f.Latitude, f.Longitude = &l.Latitude.V, &l.Longitude.V
	}
	if l.IsShowcaseListing.OK {
		f.IsShowcase = &l.IsShowcaseListing.V
	}

	title := strings.TrimSpace(string(l.Address))
	if title == "" {
		title = "Zillow property " + zpid
	}
	r, _ := json.Marshal(ref{Zpid: zpid})
	return providers.Record{
		Title:   title,
		URL:     listingURL(string(l.DetailURL), zpid),
		Snippet: listingSnippet(f, ht, l, kind),
		Data:    f,
		Ref:     r,
	}, true
}

// splitAddress reads "street, city, ST 12345" (the API's one-line address); parts it cannot
// place are left out.
func splitAddress(a string) (street, city, state, zip string) {
	parts := strings.Split(a, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	if len(parts) < 2 {
		return "", "", "", ""
	}
	last := strings.Fields(parts[len(parts)-1])
	if len(last) == 0 || len(last) > 2 || len(last[0]) != 2 || strings.ToUpper(last[0]) != last[0] {
		return "", "", "", ""
	}
	state = last[0]
	if len(last) == 2 && zipPattern.MatchString(last[1]) {
		zip = last[1]
	}
	city = parts[len(parts)-2]
	if len(parts) > 2 {
		street = strings.Join(parts[:len(parts)-2], ", ")
	}
	return street, city, state, zip
}

// listingURL is the listing page: detailUrl (absolute, or a path on zillow.com), else the
// property's homedetails page.
func listingURL(detail, zpid string) string {
	if strings.HasPrefix(detail, "/") {
		return siteURL + detail
	}
	if u, err := url.Parse(detail); err == nil && u.Scheme == "https" && strings.HasSuffix(u.Hostname(), "zillow.com") {
		return detail
	}
	return siteURL + "/homedetails/" + zpid + "_zpid/"
}

// priceLabel formats the price ("$649,000", "$2,450/mo"); a rental building without one price
// shows its first unit's price as Zillow writes it ("$1,495+/mo").
func priceLabel(l listing, kind string) string {
	suffix := ""
	if kind == "monthly_rent" {
		suffix = "/mo"
	}
	if l.Price.OK && l.Price.V > 0 {
		cur := strings.ToUpper(string(l.Currency))
		if cur == "" || cur == "USD" {
			return "$" + grouped(l.Price.V) + suffix
		}
		return grouped(l.Price.V) + " " + cur + suffix
	}
	for _, u := range l.Units {
		if p := strings.TrimSpace(string(u.Price)); p != "" {
			return p + suffix
		}
	}
	return ""
}

// grouped writes a whole amount with thousands separators.
func grouped(v float64) string {
	s := strconv.FormatInt(int64(math.Round(v)), 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func listingSnippet(f *ListingRecord, ht string, l listing, kind string) string {
	var parts []string
	if p := f.PriceLabel; p != "" {
		if kind == "reported_sold_price" {
			p = "Sold for " + p
			if l.DateSold.OK && l.DateSold.V > 0 {
				p += " on " + day(l.DateSold.V)
			}
		}
		parts = append(parts, p)
	}
	if v := f.Beds; v != nil {
		parts = append(parts, number(*v)+" bd")
	}
	if v := f.Baths; v != nil {
		parts = append(parts, number(*v)+" ba")
	}
	if v := f.Sqft; v != nil {
		parts = append(parts, grouped(*v)+" sqft")
	}
	if label, ok := homeTypeLabels[ht]; ok {
		parts = append(parts, label)
	}
	if f.DaysOnZillow != nil {
		switch v := *f.DaysOnZillow; v {
		case 1:
			parts = append(parts, "1 day on Zillow")
		default:
			parts = append(parts, fmt.Sprintf("%d days on Zillow", v))
		}
	}
	return strings.Join(parts, " · ")
}

// day writes epoch milliseconds as YYYY-MM-DD (UTC).
func day(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02") }
