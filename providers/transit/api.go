package transit

import (
	"github.com/capgate/capgate/providers/internal/lenient"
)

// --- the Routes API answer (lenient: an absent or mistyped field is "not there")

type text struct {
	Text lenient.Str `json:"text"`
}

type localizedTime struct {
	Time     lenient.Obj[text] `json:"time"`
	TimeZone lenient.Str       `json:"timeZone"`
}

type stop struct {
	Name lenient.Str `json:"name"`
}

type transitDetails struct {
	StopDetails lenient.Obj[struct {
		ArrivalStop   lenient.Obj[stop] `json:"arrivalStop"`
		ArrivalTime   lenient.Str       `json:"arrivalTime"`
		DepartureStop lenient.Obj[stop] `json:"departureStop"`
		DepartureTime lenient.Str       `json:"departureTime"`
	}] `json:"stopDetails"`
	LocalizedValues lenient.Obj[struct {
		ArrivalTime   lenient.Obj[localizedTime] `json:"arrivalTime"`
		DepartureTime lenient.Obj[localizedTime] `json:"departureTime"`
	}] `json:"localizedValues"`
	Headsign    lenient.Str `json:"headsign"`
	Headway     lenient.Str `json:"headway"`
	TransitLine lenient.Obj[struct {
		Agencies lenient.List[struct {
			Name lenient.Str `json:"name"`
			URI  lenient.Str `json:"uri"`
		}] `json:"agencies"`
		Name      lenient.Str `json:"name"`
		NameShort lenient.Str `json:"nameShort"`
		Color     lenient.Str `json:"color"`
		Vehicle   lenient.Obj[struct {
			Name lenient.Obj[text] `json:"name"`
			Type lenient.Str       `json:"type"`
		}] `json:"vehicle"`
	}] `json:"transitLine"`
	StopCount     lenient.Int `json:"stopCount"`
	TripShortText lenient.Str `json:"tripShortText"`
}

type instruction struct {
	Maneuver     lenient.Str `json:"maneuver"`
	Instructions lenient.Str `json:"instructions"`
}

type step struct {
	DistanceMeters        lenient.Int              `json:"distanceMeters"`
	StaticDuration        lenient.Str              `json:"staticDuration"`
	NavigationInstruction lenient.Obj[instruction] `json:"navigationInstruction"`
	LocalizedValues       lenient.Obj[struct {
		Distance       lenient.Obj[text] `json:"distance"`
		StaticDuration lenient.Obj[text] `json:"staticDuration"`
	}] `json:"localizedValues"`
	TransitDetails lenient.Obj[transitDetails] `json:"transitDetails"`
	TravelMode     lenient.Str                 `json:"travelMode"`
}

type segmentOverview struct {
	StepStartIndex        lenient.Int              `json:"stepStartIndex"`
	NavigationInstruction lenient.Obj[instruction] `json:"navigationInstruction"`
}

type leg struct {
	Steps         lenient.List[step] `json:"steps"`
	StepsOverview lenient.Obj[struct {
		MultiModalSegments lenient.List[segmentOverview] `json:"multiModalSegments"`
	}] `json:"stepsOverview"`
}

type route struct {
	Legs            lenient.List[leg] `json:"legs"`
	DistanceMeters  lenient.Int       `json:"distanceMeters"`
	Duration        lenient.Str       `json:"duration"`
	LocalizedValues lenient.Obj[struct {
		Distance    lenient.Obj[text] `json:"distance"`
		Duration    lenient.Obj[text] `json:"duration"`
		TransitFare lenient.Obj[text] `json:"transitFare"`
	}] `json:"localizedValues"`
	TravelAdvisory lenient.Obj[struct {
		TransitFare lenient.Obj[struct {
			CurrencyCode lenient.Str `json:"currencyCode"`
			Units        lenient.Int `json:"units"`
			Nanos        lenient.Int `json:"nanos"`
		}] `json:"transitFare"`
	}] `json:"travelAdvisory"`
	Warnings lenient.List[lenient.Str] `json:"warnings"`
}

type geocodedWaypoint struct {
	GeocoderStatus lenient.Obj[struct {
		Code    lenient.Int `json:"code"`
		Message lenient.Str `json:"message"`
	}] `json:"geocoderStatus"`
}

type computeRoutesResponse struct {
	Routes           lenient.List[route] `json:"routes"`
	GeocodingResults lenient.Obj[struct {
		Origin      lenient.Obj[geocodedWaypoint] `json:"origin"`
		Destination lenient.Obj[geocodedWaypoint] `json:"destination"`
	}] `json:"geocodingResults"`
}

// googleError is Google's error body: {"error": {"code", "message", "status", "details"}}.
type googleError struct {
	Error struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Status  string `json:"status"`
		Details []struct {
			Reason string `json:"reason"`
		} `json:"details"`
	} `json:"error"`
}
