package realestate

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

// details is the record action: the API's /property for the record's zpid.
func details(ctx context.Context, call *providers.Call, rec *providers.Record) (*providers.Detail, error) {
	var r ref
	if len(rec.Ref) == 0 || json.Unmarshal(rec.Ref, &r) != nil || !zpidPattern.MatchString(r.Zpid) {
		return nil, providers.Errorf(providers.CodeInvalidRequest, "this record has no Zillow property id, so it has no details")
	}
	u := call.Upstream(ProviderID)
	resp, err := u.Get(ctx, propertyPath, url.Values{"zpid": {r.Zpid}}, http.Header{"Accept": {"application/json"}})
	if err != nil {
		if e, ok := providers.AsError(err); ok && e.UpstreamStatus == http.StatusNotFound {
			return nil, providers.Errorf(providers.CodeNotFound, "Zillow has no property %s", r.Zpid)
		}
		return nil, mapError(err, "details")
	}
	var p property
	if err := u.Decode(resp, &p); err != nil {
		return nil, err
	}
	if p.Zpid == "" && p.Address.V == nil && !p.Price.OK {
		return nil, providers.Errorf(providers.CodeNotFound, "Zillow has no property %s", r.Zpid)
	}
	body := propertyDetail(r.Zpid, p)
	link := rec.URL
	if s := string(p.URL); strings.HasPrefix(s, siteURL+"/") {
		link = s
	} else if strings.HasPrefix(string(p.HdpURL), "/") {
		link = siteURL + string(p.HdpURL)
	}
	if link == "" {
		link = siteURL + "/homedetails/" + r.Zpid + "_zpid/"
	}
	body["url"] = link
	return &providers.Detail{Body: body, Links: []providers.Link{{Label: "Listing on Zillow", URL: link}}}, nil
}

// propertyDetail builds the details body; absent values are left out, and the last sale is
// "unknown" unless Zillow reports a price or a date (a zero price is not a price).
func propertyDetail(zpid string, p property) map[string]any {
	d := map[string]any{"zpid": zpid}
	if a := p.Address.V; a != nil {
		addr := map[string]any{}
		lenient.SetStr(addr, "street", string(a.StreetAddress))
		lenient.SetStr(addr, "city", string(a.City))
		lenient.SetStr(addr, "state", string(a.State))
		lenient.SetStr(addr, "zipcode", string(a.Zipcode))
		lenient.SetStr(addr, "neighborhood", string(a.Neighborhood))
		if len(addr) > 0 {
			d["address"] = addr
		}
	}
	lenient.SetStr(d, "home_type", homeType(string(p.HomeType)))
	lenient.SetStr(d, "home_status", homeStatus(string(p.HomeStatus)))
	lenient.SetStr(d, "currency", string(p.Currency))
	lenient.SetStr(d, "county", string(p.County))
	lenient.SetStr(d, "brokerage", string(p.BrokerageName))
	positive := func(key string, v lenient.Float) {
		if v.OK && v.V > 0 {
			d[key] = v.V
		}
	}
	positive("price", p.Price)
	positive("baths", p.Bathrooms)
	positive("sqft", p.LivingArea)
	positive("zestimate", p.Zestimate)
	positive("rent_zestimate", p.RentZestimate)
	positive("monthly_hoa_fee", p.MonthlyHoaFee)
	positive("property_tax_rate", p.PropertyTaxRate)
	if p.Bedrooms.OK && p.Bedrooms.V >= 0 {
		d["beds"] = p.Bedrooms.V
	}
	if p.LotAreaValue.OK && p.LotAreaValue.V > 0 {
		lot := map[string]any{"value": p.LotAreaValue.V}
		lenient.SetStr(lot, "unit", strings.ToLower(string(p.LotAreaUnits)))
		d["lot"] = lot
	} else if p.LotSize.OK && p.LotSize.V > 0 {
		d["lot"] = map[string]any{"value": p.LotSize.V, "unit": "sqft"}
	}
	if p.YearBuilt.OK && p.YearBuilt.V > 0 {
		d["year_built"] = p.YearBuilt.V
	}
	if p.DaysOnZillow.OK && p.DaysOnZillow.V >= 0 {
		d["days_on_zillow"] = p.DaysOnZillow.V
	}
	if p.Latitude.OK && p.Longitude.OK && (p.Latitude.V != 0 || p.Longitude.V != 0) {
		d["latitude"], d["longitude"] = p.Latitude.V, p.Longitude.V
	}
	if s := strings.TrimSpace(string(p.Description)); s != "" {
		d["description"] = providers.Clip(s, maxDescription)
	}

	history, lastSold := priceHistory(p)
	if len(history) > 0 {
		d["price_history"] = history
		d["price_history_total"] = len(p.PriceHistory)
	}
	d["last_sale"] = lastSale(p, lastSold)
	return d
}

// priceHistory is Zillow's price history, newest first, at most maxHistory events, and the
// newest sale in it.
func priceHistory(p property) ([]map[string]any, *historyEntry) {
	var history []map[string]any
	var lastSold *historyEntry
	for i, h := range p.PriceHistory {
		e := map[string]any{}
		date := string(h.Date)
		if date == "" && h.Time.OK && h.Time.V > 0 {
			date = day(h.Time.V)
		}
		lenient.SetStr(e, "date", date)
		lenient.SetStr(e, "event", string(h.Event))
		if h.Price.OK && h.Price.V > 0 {
			e["price"] = h.Price.V
		}
		if h.PricePerSquareFoot.OK && h.PricePerSquareFoot.V > 0 {
			e["price_per_sqft"] = h.PricePerSquareFoot.V
		}
		lenient.SetStr(e, "source", string(h.Source))
		if e["event"] == nil && e["date"] == nil {
			continue
		}
		if lastSold == nil && strings.EqualFold(string(h.Event), "Sold") {
			lastSold = &p.PriceHistory[i] // Zillow lists the newest event first
		}
		if len(history) < maxHistory {
			history = append(history, e)
		}
	}
	return history, lastSold
}

// lastSale is the last sale as Zillow's facts report it, or as the history shows it when the
// facts do not say; its status says which ("unknown" when neither does).
func lastSale(p property, lastSold *historyEntry) map[string]any {
	last := map[string]any{}
	if p.LastSoldPrice.OK && p.LastSoldPrice.V > 0 {
		last["price"] = p.LastSoldPrice.V
	}
	switch {
	case p.DateSoldString != "":
		last["date"] = string(p.DateSoldString)
	case p.DateSold.OK && p.DateSold.V > 0:
		last["date"] = day(p.DateSold.V)
	}
	if len(last) == 0 && lastSold != nil { // from the history when the facts do not say
		if lastSold.Price.OK && lastSold.Price.V > 0 {
			last["price"] = lastSold.Price.V
		}
		if lastSold.Date != "" {
			last["date"] = string(lastSold.Date)
		} else if lastSold.Time.OK && lastSold.Time.V > 0 {
			last["date"] = day(lastSold.Time.V)
		}
	}
	if len(last) > 0 {
		last["status"] = "reported"
	} else {
		last["status"] = "unknown"
	}
	return last
}
