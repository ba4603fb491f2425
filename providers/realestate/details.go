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
	body.URL = link
	return &providers.Detail{Body: body, Links: []providers.Link{{Label: "Listing on Zillow", URL: link}}}, nil
}

// PropertyDetail is the details body of a property; absent values are left out. Fields are
// declared in key order (a detail is written by encoding/json, which keeps the declared order).
type PropertyDetail struct {
	Address           *Address     `json:"address,omitempty"`
	Baths             *float64     `json:"baths,omitempty"`
	Beds              *float64     `json:"beds,omitempty"`
	Brokerage         string       `json:"brokerage,omitempty"`
	County            string       `json:"county,omitempty"`
	Currency          string       `json:"currency,omitempty"`
	DaysOnZillow      *int64       `json:"days_on_zillow,omitempty"`
	Description       string       `json:"description,omitempty"`
	HomeStatus        string       `json:"home_status,omitempty"`
	HomeType          string       `json:"home_type,omitempty"`
	LastSale          LastSale     `json:"last_sale"`
	Latitude          *float64     `json:"latitude,omitempty"`
	Longitude         *float64     `json:"longitude,omitempty"`
	Lot               *Lot         `json:"lot,omitempty"`
	MonthlyHoaFee     *float64     `json:"monthly_hoa_fee,omitempty"`
	Price             *float64     `json:"price,omitempty"`
	PriceHistory      []PriceEvent `json:"price_history,omitempty"`
	PriceHistoryTotal *int         `json:"price_history_total,omitempty"`
	PropertyTaxRate   *float64     `json:"property_tax_rate,omitempty"`
	RentZestimate     *float64     `json:"rent_zestimate,omitempty"`
	Sqft              *float64     `json:"sqft,omitempty"`
	URL               string       `json:"url,omitempty"`
	YearBuilt         *int64       `json:"year_built,omitempty"`
	Zestimate         *float64     `json:"zestimate,omitempty"`
	Zpid              string       `json:"zpid"`
}

// Address is a property's postal address.
type Address struct {
	City         string `json:"city,omitempty"`
	Neighborhood string `json:"neighborhood,omitempty"`
	State        string `json:"state,omitempty"`
	Street       string `json:"street,omitempty"`
	Zipcode      string `json:"zipcode,omitempty"`
}

// Lot is a property's lot size.
type Lot struct {
	Unit  string  `json:"unit,omitempty"`
	Value float64 `json:"value"`
}

// LastSale is the last sale and where it is known from: status "reported" or "unknown".
type LastSale struct {
	Date   string   `json:"date,omitempty"`
	Price  *float64 `json:"price,omitempty"`
	Status string   `json:"status"`
}

// PriceEvent is one event of a property's price history.
type PriceEvent struct {
	Date         string   `json:"date,omitempty"`
	Event        string   `json:"event,omitempty"`
	Price        *float64 `json:"price,omitempty"`
	PricePerSqft *float64 `json:"price_per_sqft,omitempty"`
	Source       string   `json:"source,omitempty"`
}

// propertyDetail builds the details body; absent values are left out, and the last sale is
// "unknown" unless Zillow reports a price or a date (a zero price is not a price).
func propertyDetail(zpid string, p property) *PropertyDetail {
	d := &PropertyDetail{Zpid: zpid, HomeType: homeType(string(p.HomeType)), HomeStatus: homeStatus(string(p.HomeStatus)),
		Currency: string(p.Currency), County: string(p.County), Brokerage: string(p.BrokerageName)}
	if a := p.Address.V; a != nil {
		addr := Address{Street: string(a.StreetAddress), City: string(a.City), State: string(a.State),
			Zipcode: string(a.Zipcode), Neighborhood: string(a.Neighborhood)}
		if addr != (Address{}) {
			d.Address = &addr
		}
	}
	positive := func(v lenient.Float) *float64 {
		if v.OK && v.V > 0 {
			return &v.V
		}
		return nil
	}
	d.Price, d.Baths, d.Sqft = positive(p.Price), positive(p.Bathrooms), positive(p.LivingArea)
	d.Zestimate, d.RentZestimate = positive(p.Zestimate), positive(p.RentZestimate)
	d.MonthlyHoaFee, d.PropertyTaxRate = positive(p.MonthlyHoaFee), positive(p.PropertyTaxRate)
	if p.Bedrooms.OK && p.Bedrooms.V >= 0 {
		d.Beds = &p.Bedrooms.V
	}
	if p.LotAreaValue.OK && p.LotAreaValue.V > 0 {
		d.Lot = &Lot{Value: p.LotAreaValue.V, Unit: strings.ToLower(string(p.LotAreaUnits))}
	} else if p.LotSize.OK && p.LotSize.V > 0 {
		d.Lot = &Lot{Value: p.LotSize.V, Unit: "sqft"}
	}
	if p.YearBuilt.OK && p.YearBuilt.V > 0 {
		d.YearBuilt = &p.YearBuilt.V
	}
	if p.DaysOnZillow.OK && p.DaysOnZillow.V >= 0 {
		d.DaysOnZillow = &p.DaysOnZillow.V
	}
	if p.Latitude.OK && p.Longitude.OK && (p.Latitude.V != 0 || p.Longitude.V != 0) {
		d.Latitude, d.Longitude = &p.Latitude.V, &p.Longitude.V
	}
	if s := strings.TrimSpace(string(p.Description)); s != "" {
		d.Description = providers.Clip(s, maxDescription)
	}

	history, lastSold := priceHistory(p)
	if len(history) > 0 {
		n := len(p.PriceHistory)
		d.PriceHistory, d.PriceHistoryTotal = history, &n
	}
	d.LastSale = lastSale(p, lastSold)
	return d
}

// priceHistory is Zillow's price history, newest first, at most maxHistory events, and the
// newest sale in it.
func priceHistory(p property) ([]PriceEvent, *historyEntry) {
	var history []PriceEvent
	var lastSold *historyEntry
	for i, h := range p.PriceHistory {
		date := string(h.Date)
		if date == "" && h.Time.OK && h.Time.V > 0 {
			date = day(h.Time.V)
		}
		e := PriceEvent{Date: date, Event: string(h.Event), Source: string(h.Source)}
		if h.Price.OK && h.Price.V > 0 {
			e.Price = &h.Price.V
		}
		if h.PricePerSquareFoot.OK && h.PricePerSquareFoot.V > 0 {
			e.PricePerSqft = &h.PricePerSquareFoot.V
		}
		if e.Event == "" && e.Date == "" {
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
func lastSale(p property, lastSold *historyEntry) LastSale {
	var last LastSale
	if p.LastSoldPrice.OK && p.LastSoldPrice.V > 0 {
		last.Price = &p.LastSoldPrice.V
	}
	switch {
	case p.DateSoldString != "":
		last.Date = string(p.DateSoldString)
	case p.DateSold.OK && p.DateSold.V > 0:
		last.Date = day(p.DateSold.V)
	}
	if last.Price == nil && last.Date == "" && lastSold != nil { // from the history when the facts do not say
		if lastSold.Price.OK && lastSold.Price.V > 0 {
			last.Price = &lastSold.Price.V
		}
		if lastSold.Date != "" {
			last.Date = string(lastSold.Date)
		} else if lastSold.Time.OK && lastSold.Time.V > 0 {
			last.Date = day(lastSold.Time.V)
		}
	}
	if last.Price != nil || last.Date != "" {
		last.Status = "reported"
	} else {
		last.Status = "unknown"
	}
	return last
}
