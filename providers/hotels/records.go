package hotels

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
	"github.com/capgate/capgate/providers/upstream/serpapi"
)

const (
	maxNearby       = 10 // nearby places in details
	maxOptions      = 20 // booking options in details
	maxBookingLinks = 10 // booking links in details
)

// The google_hotels answers as SerpApi documents them (https://serpapi.com/google-hotels-properties,
// /google-hotels-property-details); every field is lenient, so a value of an unexpected type is absent.
type searchAnswer struct {
	Properties lenient.List[property]  `json:"properties"`
	Pagination lenient.Obj[pagination] `json:"serpapi_pagination"`
}

type pagination struct {
	NextPageToken lenient.Str `json:"next_page_token"`
}

// rate is rate_per_night / total_rate: {lowest, extracted_lowest, before_taxes_fees, ...}.
type rate struct {
	ExtractedLowest lenient.Float `json:"extracted_lowest"`
}

type coordinates struct {
	Latitude  lenient.Float `json:"latitude"`
	Longitude lenient.Float `json:"longitude"`
}

// offer is one booking site's price: properties[].prices[], and prices[] / featured_prices[] of
// the property details.
type offer struct {
	Source           lenient.Str       `json:"source"`
	Link             lenient.Str       `json:"link"`
	Official         lenient.Bool      `json:"official"`
	NumGuests        lenient.Int       `json:"num_guests"`
	FreeCancellation lenient.Bool      `json:"free_cancellation"`
	RatePerNight     lenient.Obj[rate] `json:"rate_per_night"`
	TotalRate        lenient.Obj[rate] `json:"total_rate"`
}

type transportation struct {
	Type     lenient.Str `json:"type"`
	Duration lenient.Str `json:"duration"`
}

type nearbyPlace struct {
	Category        lenient.Str                  `json:"category"`
	Name            lenient.Str                  `json:"name"`
	Transportations lenient.List[transportation] `json:"transportations"`
	Rating          lenient.Float                `json:"rating"`
	Reviews         lenient.Int                  `json:"reviews"`
}

// property is one properties[] entry; the property details answer has the same fields and more.
type property struct {
	Type                lenient.Str               `json:"type"`
	Name                lenient.Str               `json:"name"`
	Description         lenient.Str               `json:"description"`
	Link                lenient.Str               `json:"link"`
	PropertyToken       lenient.Str               `json:"property_token"`
	Address             lenient.Str               `json:"address"`
	GPS                 lenient.Obj[coordinates]  `json:"gps_coordinates"`
	CheckInTime         lenient.Str               `json:"check_in_time"`
	CheckOutTime        lenient.Str               `json:"check_out_time"`
	RatePerNight        lenient.Obj[rate]         `json:"rate_per_night"`
	TotalRate           lenient.Obj[rate]         `json:"total_rate"`
	Prices              lenient.List[offer]       `json:"prices"`
	NearbyPlaces        lenient.List[nearbyPlace] `json:"nearby_places"`
	HotelClass          lenient.Str               `json:"hotel_class"`
	ExtractedHotelClass lenient.Int               `json:"extracted_hotel_class"`
	OverallRating       lenient.Float             `json:"overall_rating"`
	Reviews             lenient.Int               `json:"reviews"`
	LocationRating      lenient.Float             `json:"location_rating"`
	Amenities           lenient.List[lenient.Str] `json:"amenities"`
	EssentialInfo       lenient.List[lenient.Str] `json:"essential_info"`
}

// detailAnswer is the property details answer (a google_hotels search with property_token).
type detailAnswer struct {
	property
	Phone             lenient.Str             `json:"phone"`
	FeaturedPrices    lenient.List[offer]     `json:"featured_prices"`
	TypicalPriceRange lenient.Obj[priceRange] `json:"typical_price_range"`
}

type priceRange struct {
	ExtractedLowest  lenient.Float `json:"extracted_lowest"`
	ExtractedHighest lenient.Float `json:"extracted_highest"`
}

// amount is an extracted price when it is a usable (non-negative) number.
func amount(r lenient.Obj[rate]) (float64, bool) {
	if r.V == nil || !r.V.ExtractedLowest.OK || r.V.ExtractedLowest.V < 0 {
		return 0, false
	}
	return r.V.ExtractedLowest.V, true
}

func (p property) perNight() (float64, bool) { return amount(p.RatePerNight) }
func (p property) total() (float64, bool)    { return amount(p.TotalRate) }

func (p property) rating() (float64, bool) {
	r := p.OverallRating
	return r.V, r.OK && r.V >= 0 && r.V <= 5
}

func (p property) hotelClass() string {
	if s := string(p.HotelClass); s != "" {
		return s
	}
	if c := p.ExtractedHotelClass; c.OK && c.V >= 1 && c.V <= 5 {
		return fmt.Sprintf("%d-star hotel", c.V)
	}
	return ""
}

func (p property) coordinates() (lat, lon float64, ok bool) {
	g := p.GPS.V
	if g == nil || !g.Latitude.OK || !g.Longitude.OK || math.Abs(g.Latitude.V) > 90 || math.Abs(g.Longitude.V) > 180 {
		return 0, 0, false
	}
	return g.Latitude.V, g.Longitude.V, true
}

func strs(l lenient.List[lenient.Str]) []string {
	var out []string
	for _, s := range l {
		if s != "" {
			out = append(out, string(s))
		}
	}
	return out
}

// propertyRef is a record's Ref: the property token and the stay it was priced for, so details
// asks Google for the same dates and party even after an update changed the search.
type propertyRef struct {
	Token        string `json:"property_token"`
	Q            string `json:"q"`
	CheckIn      string `json:"check_in_date"`
	CheckOut     string `json:"check_out_date"`
	Adults       int    `json:"adults"`
	ChildrenAges []int  `json:"children_ages,omitempty"`
	Currency     string `json:"currency"`
	Rental       bool   `json:"vacation_rentals,omitempty"`
}

func refOf(token string, s stay) propertyRef {
	return propertyRef{Token: token, Q: s.Destination, CheckIn: s.CheckIn.Format(dateLayout),
		CheckOut: s.CheckOut.Format(dateLayout), Adults: s.Adults, ChildrenAges: s.ChildrenAges,
		Currency: s.Currency, Rental: s.Rental}
}

// stay rebuilds the stay of a ref; ok is false when the ref is not usable.
func (r propertyRef) stay() (stay, bool) {
	s := stay{Destination: strings.TrimSpace(r.Q), Adults: r.Adults, ChildrenAges: r.ChildrenAges,
		Currency: strings.ToUpper(r.Currency), Rental: r.Rental}
	var err1, err2 error
	s.CheckIn, err1 = time.Parse(dateLayout, r.CheckIn)
	s.CheckOut, err2 = time.Parse(dateLayout, r.CheckOut)
	ok := strings.TrimSpace(r.Token) != "" && s.Destination != "" && err1 == nil && err2 == nil &&
		s.CheckOut.After(s.CheckIn) && s.Adults >= 1 && len(s.Currency) == 3
	return s, ok
}

// occupancy (record keys requested_occupancy, occupancy_status, occupancy_note) says what was asked
// and whether the price shown is for it.
func requestedOccupancy(s stay) Occupancy {
	ages := s.ChildrenAges
	if ages == nil {
		ages = []int{}
	}
	return Occupancy{Adults: s.Adults, Children: len(ages), ChildrenAges: ages, Guests: s.guests()}
}

var sleepsPattern = regexp.MustCompile(`(?i)\bsleeps\s+(\d+)`)

// sleeps reads a vacation rental's capacity from essential_info ("Sleeps 4").
func sleeps(info []string) (int, bool) {
	for _, s := range info {
		if m := sleepsPattern.FindStringSubmatch(s); m != nil {
			n, err := strconv.Atoi(m[1])
			return n, err == nil
		}
	}
	return 0, false
}

// offerGuests is the guest count of the offer behind the lowest nightly price: the offer at that
// price, else the first offer that states a guest count.
func offerGuests(lowest float64, hasLowest bool, offers []offer) (int, bool) {
	for _, o := range offers {
		if p, ok := amount(o.RatePerNight); ok && hasLowest && p == lowest && o.NumGuests.OK && o.NumGuests.V > 0 {
			return int(o.NumGuests.V), true
		}
	}
	for _, o := range offers {
		if o.NumGuests.OK && o.NumGuests.V > 0 {
			return int(o.NumGuests.V), true
		}
	}
	return 0, false
}

// occupancy is occupancy_status and occupancy_note for a property and the party asked for.
func occupancy(p property, offers []offer, s stay) (status, note string) {
	lowest, hasLowest := p.perNight()
	_, hasTotal := p.total()
	guests := s.guests()
	switch n, ok := sleeps(strs(p.EssentialInfo)); {
	case !hasLowest && !hasTotal:
		return "no_price", fmt.Sprintf("Google Hotels shows no price for %s to %s for %s: the property may be sold out "+
			"or not take this party.", s.CheckIn.Format(dateLayout), s.CheckOut.Format(dateLayout), party(s))
	case ok && n < guests:
		return "over_capacity", fmt.Sprintf("This rental sleeps %d; the party is %d guests (%s).", n, guests, party(s))
	}
	if n, ok := offerGuests(lowest, hasLowest, offers); ok {
		if n == guests {
			return "confirmed", ""
		}
		return "different_occupancy", fmt.Sprintf("The lowest price is for %d guests, not the %d requested (%s); the "+
			"price for your party may differ: see the booking options of details.", n, guests, party(s))
	}
	return "requested", ""
}

// party describes the guests asked for: "2 adults", "2 adults and 1 child (age 6)".
func party(s stay) string {
	out := plural(s.Adults, "adult", "adults")
	if n := len(s.ChildrenAges); n > 0 {
		ages := make([]string, n)
		for i, a := range s.ChildrenAges {
			ages[i] = strconv.Itoa(a)
		}
		label := "age"
		if n > 1 {
			label = "ages"
		}
		out += fmt.Sprintf(" and %s (%s %s)", plural(n, "child", "children"), label, strings.Join(ages, ", "))
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// propertyRecord maps one properties[] entry; ok is false for an entry without a name.
func propertyRecord(p property, s stay) (providers.Record, bool) {
	name := string(p.Name)
	if name == "" {
		return providers.Record{}, false
	}
	rec := providers.Record{Title: name, URL: httpURL(string(p.Link))}
	rec.Snippet = string(p.Description)
	if rec.Snippet == "" {
		rec.Snippet = strings.Join(strs(p.EssentialInfo), " · ") // vacation rentals: "Entire house · Sleeps 4 · 2 bedrooms"
	}
	status, note := occupancy(p, p.Prices, s)
	f := &PropertyRecord{HotelClass: p.hotelClass(), Type: string(p.Type), Amenities: strs(p.Amenities),
		Location: string(p.Address), RequestedOccupancy: requestedOccupancy(s), OccupancyStatus: status, OccupancyNote: note}
	if perNight, ok := p.perNight(); ok {
		f.PricePerNight = &perNight
	}
	if total, ok := p.total(); ok {
		f.TotalPrice = &total
	}
	if f.PricePerNight != nil || f.TotalPrice != nil {
		f.Currency = s.Currency // SerpApi prices in the currency the search asked for
	}
	if r, ok := p.rating(); ok {
		f.Rating = &r
	}
	if p.Reviews.OK && p.Reviews.V >= 0 {
		f.Reviews = &p.Reviews.V
	}
	if lat, lon, ok := p.coordinates(); ok {
		f.Lat, f.Lon = &lat, &lon
	}
	rec.Data = f

	if token := string(p.PropertyToken); token != "" {
		rec.Ref, _ = json.Marshal(refOf(token, s))
	} else {
		rec.Actions = []string{} // nothing the details lookup could ask for
	}
	return rec, true
}

// details is the record action: the google_hotels property details for the record's property
// token, for the stay and party the record was priced for.
func details(ctx context.Context, call *providers.Call, rec *providers.Record) (*providers.Detail, error) {
	var ref propertyRef
	if len(rec.Ref) == 0 || json.Unmarshal(rec.Ref, &ref) != nil {
		return nil, providers.Errorf(providers.CodeInvalidRequest, "this record has no Google Hotels property token, so it has no details")
	}
	s, ok := ref.stay()
	if !ok {
		return nil, providers.Errorf(providers.CodeInvalidRequest, "this record has no Google Hotels property token, so it has no details")
	}
	q := s.params()
	q.Set("property_token", ref.Token)
	var ans detailAnswer
	meta, err := serpapi.Search(ctx, call, engine, q, &ans)
	if err != nil {
		return nil, err
	}
	if meta.NoResults() {
		return nil, providers.Errorf(providers.CodeNotFound, "Google Hotels has no details for this property for %s to %s",
			ref.CheckIn, ref.CheckOut)
	}
	if ans.Name == "" {
		return nil, providers.Errorf(providers.CodeNotFound, "Google Hotels has no details for this property for %s to %s",
			ref.CheckIn, ref.CheckOut)
	}
	offers := append(append([]offer{}, ans.FeaturedPrices...), ans.Prices...)
	body := detailBody(ans, offers, s)
	return &providers.Detail{Body: body, Links: detailLinks(ans, body)}, nil
}

// PropertyDetails is the details body of a property record; a key is left out when Google Hotels
// does not supply it. Fields are declared in key order (a detail is written by encoding/json).
type PropertyDetails struct {
	Address            string             `json:"address,omitempty"`
	Amenities          []string           `json:"amenities,omitempty"`
	BookingOptions     []BookingOption    `json:"booking_options"`
	CheckInTime        string             `json:"check_in_time,omitempty"`
	CheckOutTime       string             `json:"check_out_time,omitempty"`
	Currency           string             `json:"currency"`
	Description        string             `json:"description,omitempty"`
	HotelClass         string             `json:"hotel_class,omitempty"`
	Lat                *float64           `json:"lat,omitempty"`
	LocationRating     *float64           `json:"location_rating,omitempty"`
	Lon                *float64           `json:"lon,omitempty"`
	Name               string             `json:"name"`
	NearbyPlaces       []PlaceNearby      `json:"nearby_places,omitempty"`
	OccupancyNote      string             `json:"occupancy_note,omitempty"`
	OccupancyStatus    string             `json:"occupancy_status"`
	Phone              string             `json:"phone,omitempty"`
	PricePerNight      *float64           `json:"price_per_night,omitempty"`
	Rating             *float64           `json:"rating,omitempty"`
	RequestedOccupancy Occupancy          `json:"requested_occupancy"`
	Reviews            *int64             `json:"reviews,omitempty"`
	Stay               StayDates          `json:"stay"`
	TotalPrice         *float64           `json:"total_price,omitempty"`
	Type               string             `json:"type,omitempty"`
	TypicalPriceRange  *TypicalPriceRange `json:"typical_price_range,omitempty"`
}

// StayDates are the dates and length of the stay the details are priced for.
type StayDates struct {
	CheckIn  string `json:"check_in"`
	CheckOut string `json:"check_out"`
	Nights   int    `json:"nights"`
}

// TypicalPriceRange is the nightly price Google Hotels says the property usually costs.
type TypicalPriceRange struct {
	Highest float64 `json:"highest"`
	Lowest  float64 `json:"lowest"`
}

// PlaceNearby is a place near the property and how long it takes to get there; fields in key order.
type PlaceNearby struct {
	Category        string       `json:"category,omitempty"`
	Name            string       `json:"name"`
	Rating          *float64     `json:"rating,omitempty"`
	Reviews         *int64       `json:"reviews,omitempty"`
	Transportations []TravelTime `json:"transportations"`
}

// TravelTime is how long a way of travel ("Walking", "Taxi") takes to a nearby place.
type TravelTime struct {
	Duration string `json:"duration"`
	Type     string `json:"type"`
}

// BookingOption is one booking site's offer for the stay; fields in key order.
type BookingOption struct {
	FreeCancellation *bool    `json:"free_cancellation,omitempty"`
	Link             string   `json:"link,omitempty"`
	NumGuests        *int64   `json:"num_guests,omitempty"`
	Official         *bool    `json:"official,omitempty"`
	PricePerNight    *float64 `json:"price_per_night,omitempty"`
	Source           string   `json:"source"`
	TotalPrice       *float64 `json:"total_price,omitempty"`
}

// detailBody builds the details answer; keys are left out when Google Hotels does not supply them.
func detailBody(a detailAnswer, offers []offer, s stay) *PropertyDetails {
	d := &PropertyDetails{Name: string(a.Name), Type: string(a.Type), Description: string(a.Description),
		Address: string(a.Address), Phone: string(a.Phone), CheckInTime: string(a.CheckInTime),
		CheckOutTime: string(a.CheckOutTime), HotelClass: a.hotelClass()}
	if r, ok := a.rating(); ok {
		d.Rating = &r
	}
	if a.Reviews.OK && a.Reviews.V >= 0 {
		d.Reviews = &a.Reviews.V
	}
	if r := a.LocationRating; r.OK && r.V >= 0 && r.V <= 5 {
		d.LocationRating = &r.V
	}
	if lat, lon, ok := a.coordinates(); ok {
		d.Lat, d.Lon = &lat, &lon
	}
	d.Stay = StayDates{CheckIn: s.CheckIn.Format(dateLayout), CheckOut: s.CheckOut.Format(dateLayout), Nights: s.nights()}
	d.Currency = s.Currency
	if p, ok := a.perNight(); ok {
		d.PricePerNight = &p
	}
	if p, ok := a.total(); ok {
		d.TotalPrice = &p
	}
	if r := a.TypicalPriceRange.V; r != nil && r.ExtractedLowest.OK && r.ExtractedHighest.OK {
		d.TypicalPriceRange = &TypicalPriceRange{Lowest: r.ExtractedLowest.V, Highest: r.ExtractedHighest.V}
	}
	d.RequestedOccupancy = requestedOccupancy(s)
	d.OccupancyStatus, d.OccupancyNote = occupancy(a.property, offers, s)
	d.Amenities = strs(a.Amenities)
	d.NearbyPlaces = nearby(a.NearbyPlaces)
	d.BookingOptions = bookingOptions(offers)
	return d
}

// nearby lists up to maxNearby places with their travel times.
func nearby(in []nearbyPlace) []PlaceNearby {
	var out []PlaceNearby
	for _, p := range in {
		if len(out) == maxNearby {
			break
		}
		if p.Name == "" {
			continue
		}
		place := PlaceNearby{Name: string(p.Name), Category: string(p.Category), Transportations: []TravelTime{}}
		if p.Rating.OK && p.Rating.V >= 0 && p.Rating.V <= 5 {
			place.Rating = &p.Rating.V
		}
		if p.Reviews.OK {
			place.Reviews = &p.Reviews.V
		}
		for _, t := range p.Transportations {
			if t.Type != "" && t.Duration != "" {
				place.Transportations = append(place.Transportations, TravelTime{Type: string(t.Type), Duration: string(t.Duration)})
			}
		}
		out = append(out, place)
	}
	return out
}

// bookingOptions lists the booking sites (featured first), one entry per site, up to maxOptions.
func bookingOptions(offers []offer) []BookingOption {
	out := []BookingOption{}
	seen := map[string]bool{}
	for _, o := range offers {
		src := string(o.Source)
		if src == "" || seen[strings.ToLower(src)] || len(out) == maxOptions {
			continue
		}
		seen[strings.ToLower(src)] = true
		opt := BookingOption{Source: src, Link: httpURL(string(o.Link))}
		if p, ok := amount(o.RatePerNight); ok {
			opt.PricePerNight = &p
		}
		if p, ok := amount(o.TotalRate); ok {
			opt.TotalPrice = &p
		}
		if o.NumGuests.OK && o.NumGuests.V > 0 {
			opt.NumGuests = &o.NumGuests.V
		}
		if o.Official.OK {
			opt.Official = &o.Official.V
		}
		if o.FreeCancellation.OK {
			opt.FreeCancellation = &o.FreeCancellation.V
		}
		out = append(out, opt)
	}
	return out
}

// detailLinks are the property's website and up to maxBookingLinks booking links.
func detailLinks(a detailAnswer, body *PropertyDetails) []providers.Link {
	links := []providers.Link{}
	if u := httpURL(string(a.Link)); u != "" {
		links = append(links, providers.Link{Label: "Property website", URL: u})
	}
	n := 0
	for _, o := range body.BookingOptions {
		if o.Link != "" && n < maxBookingLinks {
			links = append(links, providers.Link{Label: "Book on " + o.Source, URL: o.Link})
			n++
		}
	}
	return links
}

// httpURL keeps an absolute http(s) URL, else "".
func httpURL(s string) string {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.String()
}
