package realestate

import (
	"encoding/json"

	"github.com/capgate/capgate/providers/internal/lenient"
)

// --- the answer

// listing is one item of props (lenient: absent or mistyped fields are "not there").
type listing struct {
	Zpid              lenient.ID    `json:"zpid"`
	Address           lenient.Str   `json:"address"`
	Price             lenient.Float `json:"price"`
	Bedrooms          lenient.Float `json:"bedrooms"`
	Bathrooms         lenient.Float `json:"bathrooms"`
	LivingArea        lenient.Float `json:"livingArea"`
	LotAreaValue      lenient.Float `json:"lotAreaValue"`
	LotAreaUnit       lenient.Str   `json:"lotAreaUnit"`
	PropertyType      lenient.Str   `json:"propertyType"`
	ListingStatus     lenient.Str   `json:"listingStatus"`
	StatusText        lenient.Str   `json:"statusText"`
	BrokerName        lenient.Str   `json:"brokerName"`
	DaysOnZillow      lenient.Int   `json:"daysOnZillow"`
	DatePriceChanged  lenient.Int   `json:"datePriceChanged"`
	DateSold          lenient.Int   `json:"dateSold"`
	Latitude          lenient.Float `json:"latitude"`
	Longitude         lenient.Float `json:"longitude"`
	Country           lenient.Str   `json:"country"`
	Currency          lenient.Str   `json:"currency"`
	DetailURL         lenient.Str   `json:"detailUrl"`
	IsShowcaseListing lenient.Bool  `json:"isShowcaseListing"`
	Units             lenient.List[struct {
		Price lenient.Str `json:"price"`
	}] `json:"units"`
}

type searchAnswer struct {
	Props            lenient.List[json.RawMessage] `json:"props"`
	ResultsPerPage   lenient.Int                   `json:"resultsPerPage"`
	TotalPages       lenient.Int                   `json:"totalPages"`
	TotalResultCount lenient.Int                   `json:"totalResultCount"`
	// An exact address answers the property's id alone.
	Zpid lenient.ID `json:"zpid"`
	// Failures the API reports with HTTP 200 (unconfirmed shape: see doc.go).
	Message lenient.Str `json:"message"`
	Error   lenient.Str `json:"error"`
}

// pageState is the paging state: the API page (1-based) and the index in it where the next page
// of records starts.

// --- details

// property is the /property answer (lenient).
type property struct {
	Zpid    lenient.ID `json:"zpid"`
	Address lenient.Obj[struct {
		StreetAddress lenient.Str `json:"streetAddress"`
		City          lenient.Str `json:"city"`
		State         lenient.Str `json:"state"`
		Zipcode       lenient.Str `json:"zipcode"`
		Neighborhood  lenient.Str `json:"neighborhood"`
	}] `json:"address"`
	HomeType        lenient.Str                `json:"homeType"`
	HomeStatus      lenient.Str                `json:"homeStatus"`
	Price           lenient.Float              `json:"price"`
	Currency        lenient.Str                `json:"currency"`
	Bedrooms        lenient.Float              `json:"bedrooms"`
	Bathrooms       lenient.Float              `json:"bathrooms"`
	LivingArea      lenient.Float              `json:"livingArea"`
	LotAreaValue    lenient.Float              `json:"lotAreaValue"`
	LotAreaUnits    lenient.Str                `json:"lotAreaUnits"`
	LotSize         lenient.Float              `json:"lotSize"`
	YearBuilt       lenient.Int                `json:"yearBuilt"`
	Description     lenient.Str                `json:"description"`
	Zestimate       lenient.Float              `json:"zestimate"`
	RentZestimate   lenient.Float              `json:"rentZestimate"`
	MonthlyHoaFee   lenient.Float              `json:"monthlyHoaFee"`
	PropertyTaxRate lenient.Float              `json:"propertyTaxRate"`
	County          lenient.Str                `json:"county"`
	DaysOnZillow    lenient.Int                `json:"daysOnZillow"`
	BrokerageName   lenient.Str                `json:"brokerageName"`
	LastSoldPrice   lenient.Float              `json:"lastSoldPrice"`
	DateSoldString  lenient.Str                `json:"dateSoldString"`
	DateSold        lenient.Int                `json:"dateSold"`
	Latitude        lenient.Float              `json:"latitude"`
	Longitude       lenient.Float              `json:"longitude"`
	URL             lenient.Str                `json:"url"`
	HdpURL          lenient.Str                `json:"hdpUrl"`
	PriceHistory    lenient.List[historyEntry] `json:"priceHistory"`
}

type historyEntry struct {
	Date               lenient.Str   `json:"date"`
	Time               lenient.Int   `json:"time"`
	Price              lenient.Float `json:"price"`
	PricePerSquareFoot lenient.Float `json:"pricePerSquareFoot"`
	Event              lenient.Str   `json:"event"`
	Source             lenient.Str   `json:"source"`
}
