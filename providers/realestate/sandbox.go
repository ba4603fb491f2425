package realestate

import (
	"fmt"
	"io/fs"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/capgate/capgate/providers"
)

// The sandbox's searches answer any place with a synthetic set of listings around it (issue
// 36): every listing lies within a few kilometres of the gazetteer's place (a synthetic place for
// a name it lacks), the price, bedroom and bathroom bounds and the orders are applied, pages
// advance and end. The recorded places (Austin, Seattle, Denver: the examples) get the recorded
// answers. Every listing has details: a generated zpid is the same listing; another
// zpid without a recording is a recorded property under that zpid. The reserved miss is a zpid of
// six or more nines.
func init() {
	recorded := []string{"Austin, TX", "Seattle, WA", "Denver, CO 80206"}
	topic := providers.TopicSearch("location", recorded...)
	providers.RegisterGenerators(ProviderID,
		providers.GeneratedRoute{Path: searchPath, Generate: func(r *http.Request, fixture []byte, status int) ([]byte, int) {
			v := r.URL.Query()
			loc := strings.TrimSpace(v.Get("location"))
			for _, rec := range recorded {
				if strings.EqualFold(loc, rec) {
					return topic(r, fixture, status)
				}
			}
			if status != http.StatusOK || loc == "" || providers.IsSandboxMiss(loc) {
				return topic(r, fixture, status)
			}
			return generateListings(r, fixture, status)
		}},
		providers.GeneratedRoute{Path: propertyPath, Generate: generateProperty})
}

var recordedProperties = []string{"29382740", "2057431936", "13278346"}

// listing is what a generated listing's details repeat.
type synthListing struct {
	Street, City, State string
	Price               int
	Beds, Baths, Area   int
	Lat, Lon            float64
	Status              string
}

var listings = struct {
	sync.Mutex
	m map[string]synthListing
}{m: map[string]synthListing{}}

const listingsPerPlace, listingsPage = 40, 20

func generateListings(r *http.Request, fixture []byte, status int) ([]byte, int) {
	v := r.URL.Query()
	doc := providers.JSONObject(fixture)
	tmpls := providers.Templates(doc["props"])
	if len(tmpls) == 0 {
		return fixture, status
	}
	place, _ := providers.PlaceNamed(v.Get("location"))
	kind := v.Get("status_type")
	rent := kind == "ForRent"
	minP, hasMin := intParam(v, "minPrice", "rentMinPrice")
	maxP, hasMax := intParam(v, "maxPrice", "rentMaxPrice")
	beds, _ := intParam(v, "bedsMin")
	baths, _ := intParam(v, "bathsMin")
	seed := strings.ToLower(place.Name + "\x00" + kind)
	var all []map[string]any
	for i := range listingsPerPlace {
		rr := providers.Rand("listing", seed, strconv.Itoa(i))
		l := synthListing{City: place.Name, State: place.CountryCode, Beds: 1 + rr.IntN(5), Baths: 1 + rr.IntN(4), Status: statusOf(kind)}
		l.Area = 400 + l.Beds*250 + rr.IntN(600)
		if rent {
			l.Price = 600 + l.Area*(1+rr.IntN(3))
		} else {
			l.Price = (150 + rr.IntN(550)) * l.Area / 1000 * 1000 // $150 to $700 a square foot
		}
		l.Lat, l.Lon = providers.Scatter(seed, i, place.Lat, place.Lon, 6)
		l.Street = fmt.Sprintf("%d %s", 1+rr.IntN(3000), providers.SynthName(seed, i, []string{"St", "Ave", "Rd", "Ln"}[i%4]))
		if (hasMin && l.Price < minP) || (hasMax && l.Price > maxP) || l.Beds < beds || l.Baths < baths {
			continue
		}
		zpid := strconv.Itoa(900000000 + int(providers.Rand("zpid", seed, strconv.Itoa(i)).Uint32()%90000000))
		listings.Lock()
		if len(listings.m) >= 20000 {
			listings.m = map[string]synthListing{}
		}
		listings.m[zpid] = l
		listings.Unlock()
		rec := providers.FromTemplate(tmpls, i)
		rec["zpid"] = zpid
		rec["address"] = fmt.Sprintf("%s, %s, %s", l.Street, l.City, l.State)
		rec["price"], rec["bedrooms"], rec["bathrooms"], rec["livingArea"] = l.Price, l.Beds, l.Baths, l.Area
		rec["latitude"], rec["longitude"] = l.Lat, l.Lon
		rec["daysOnZillow"] = rr.IntN(120)
		rec["detailUrl"] = fmt.Sprintf("/homedetails/%s/%s_zpid/", providers.Slug(rec["address"].(string)), zpid)
		for _, k := range []string{"zestimate", "rentZestimate"} {
			if _, ok := rec[k]; ok {
				rec[k] = nil
			}
		}
		all = append(all, rec)
	}
	num := func(k string) func(m map[string]any) float64 {
		return func(m map[string]any) float64 { f, _ := providers.NumOf(m[k]); return f }
	}
	order := map[string]struct {
		key  func(map[string]any) float64
		desc bool
	}{
		"Price_Low_High": {num("price"), false}, "Payment_Low_High": {num("price"), false},
		"Price_High_Low": {num("price"), true}, "Payment_High_Low": {num("price"), true},
		"Newest": {num("daysOnZillow"), false}, "Bedrooms": {num("bedrooms"), true},
		"Bathrooms": {num("bathrooms"), true}, "Square_Feet": {num("livingArea"), true},
	}
	if o, ok := order[v.Get("sort")]; ok {
		sort.SliceStable(all, func(i, j int) bool {
			if o.desc {
				return o.key(all[i]) > o.key(all[j])
			}
			return o.key(all[i]) < o.key(all[j])
		})
	}
	page, _ := strconv.Atoi(v.Get("page"))
	page = max(page, 1)
	props := []any{}
	for i := (page - 1) * listingsPage; i < min(page*listingsPage, len(all)); i++ {
		props = append(props, all[i])
	}
	doc["props"] = props
	doc["resultsPerPage"] = listingsPage
	doc["totalResultCount"] = len(all)
	doc["totalPages"] = max(1, (len(all)+listingsPage-1)/listingsPage)
	return providers.JSONBytes(doc), http.StatusOK
}

func statusOf(kind string) string {
	switch kind {
	case "ForRent":
		return "FOR_RENT"
	case "RecentlySold":
		return "RECENTLY_SOLD"
	}
	return "FOR_SALE"
}

func intParam(v map[string][]string, keys ...string) (int, bool) {
	for _, k := range keys {
		if s := v[k]; len(s) > 0 {
			n, err := strconv.Atoi(s[0])
			return n, err == nil
		}
	}
	return 0, false
}

func generateProperty(r *http.Request, fixture []byte, status int) ([]byte, int) {
	zpid := r.URL.Query().Get("zpid")
	if status == http.StatusOK || zpid == "" || providers.IsSandboxMiss(zpid) {
		return fixture, status
	}
	listings.Lock()
	l, generated := listings.m[zpid]
	listings.Unlock()
	base := providers.PickName(zpid, recordedProperties)
	b, err := fs.ReadFile(sandboxFS, "sandbox/property_"+base+".json")
	if err != nil {
		return fixture, status
	}
	out := providers.RenameFixture(b, base, zpid)
	if !generated {
		return out, http.StatusOK
	}
	doc := providers.JSONObject(out)
	doc["city"], doc["state"], doc["streetAddress"], doc["zipcode"] = l.City, l.State, l.Street, "00000"
	doc["address"] = map[string]any{"streetAddress": l.Street, "city": l.City, "state": l.State, "zipcode": "00000", "neighborhood": nil, "community": nil, "subdivision": nil}
	doc["price"], doc["bedrooms"], doc["bathrooms"] = l.Price, l.Beds, l.Baths
	doc["livingArea"], doc["livingAreaValue"] = l.Area, l.Area
	doc["latitude"], doc["longitude"] = l.Lat, l.Lon
	doc["homeStatus"] = l.Status
	doc["description"] = fmt.Sprintf("A synthetic test-mode listing in %s (not a real property).", l.City)
	doc["county"], doc["brokerageName"] = nil, "Sandbox Realty"
	doc["priceHistory"] = []any{}
	for _, k := range []string{"zestimate", "rentZestimate", "lastSoldPrice", "dateSold", "dateSoldString"} {
		doc[k] = nil
	}
	doc["url"] = "https://www.zillow.com/homedetails/" + providers.Slug(l.Street+" "+l.City) + "/" + zpid + "_zpid/"
	doc["hdpUrl"] = strings.TrimPrefix(doc["url"].(string), "https://www.zillow.com")
	return providers.JSONBytes(doc), http.StatusOK
}
