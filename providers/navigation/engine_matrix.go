package navigation

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/internal/lenient"
)

// --- Matrices ---------------------------------------------------------------------------------

// matrixAnswer is what an engine answered for a matrix: one row per requested source, one column
// per requested destination; a nil matrix was not requested; an absent cell means no route.
type matrixAnswer struct {
	Engine      string
	Attribution string
	Durations   [][]lenient.Float // seconds
	Distances   [][]lenient.Float // metres
}

// orsMatrixRequest is the matrix body this adapter sends.
type orsMatrixRequest struct {
	Locations    [][2]float64 `json:"locations"`
	Sources      []int        `json:"sources"`
	Destinations []int        `json:"destinations"`
	Metrics      []string     `json:"metrics"`
}

// orsMatrixResponse is POST /v2/matrix/{profile}: durations (s) and distances (m) as rows per
// source with null where no route exists, destinations[] and sources[] ({location,
// snapped_distance}, null for a point that could not be snapped), and metadata.
type orsMatrixResponse struct {
	Durations json.RawMessage          `json:"durations"`
	Distances json.RawMessage          `json:"distances"`
	Metadata  lenient.Obj[orsMetadata] `json:"metadata"`
}

// orsMatrix asks OpenRouteService for the durations and/or distances between sources and
// destinations (indices into locations).
func orsMatrix(ctx context.Context, u *providers.Upstream, mode string, locations [][2]float64, sources, destinations []int, metrics []string, paths pointPaths) (*matrixAnswer, error) {
	body := orsMatrixRequest{Locations: locations, Sources: sources, Destinations: destinations, Metrics: metrics}
	resp, err := orsPost(ctx, u, "/v2/matrix/"+orsProfiles[mode], body)
	if err != nil {
		noRoute, err := orsFailure(err, paths)
		if err != nil {
			return nil, err
		}
		// A matrix reports unroutable pairs as nulls; a "no route" error means none is routable.
		return &matrixAnswer{Engine: engineORS, Attribution: orsAttribution, Durations: emptyMatrix(metrics, "duration", sources, destinations),
			Distances: emptyMatrix(metrics, "distance", sources, destinations)}, errNoneRoutable(noRoute)
	}
	var out orsMatrixResponse
	if err := u.Decode(resp, &out); err != nil {
		return nil, err
	}
	ans := &matrixAnswer{Engine: engineORS, Attribution: orsAttribution}
	if out.Metadata.V != nil && out.Metadata.V.Attribution != "" {
		ans.Attribution = string(out.Metadata.V.Attribution)
	}
	if err := fillMatrix(ans, "OpenRouteService", metrics, out.Durations, out.Distances, len(sources), len(destinations)); err != nil {
		return nil, err
	}
	return ans, nil
}

// osrmTableResponse is GET /table/v1/driving/{coordinates}: code, durations (s) and distances (m)
// as rows per source with null where no route exists, sources[] and destinations[] (waypoints).
type osrmTableResponse struct {
	Code      lenient.Str     `json:"code"`
	Message   lenient.Str     `json:"message"`
	Durations json.RawMessage `json:"durations"`
	Distances json.RawMessage `json:"distances"`
}

// osrmTable asks the OSRM demo server for car durations and/or distances.
func osrmTable(ctx context.Context, u *providers.Upstream, locations [][2]float64, sources, destinations []int, metrics []string, paths pointPaths) (*matrixAnswer, error) {
	path := "/table/v1/driving/" + osrmCoordinates(locations) + "?sources=" + joinInts(sources) +
		"&destinations=" + joinInts(destinations) + "&annotations=" + strings.Join(metrics, ",")
	ans := &matrixAnswer{Engine: engineOSRM}
	none := func(msg string) (*matrixAnswer, error) {
		ans.Durations = emptyMatrix(metrics, "duration", sources, destinations)
		ans.Distances = emptyMatrix(metrics, "distance", sources, destinations)
		return ans, errNoneRoutable(msg)
	}
	resp, err := osrmGet(ctx, u, path)
	if err != nil {
		st, ok := osrmErrorStatus(err)
		if !ok {
			return nil, err
		}
		noRoute, err := osrmFailure(st, paths, err)
		if err != nil {
			return nil, err
		}
		return none(noRoute)
	}
	var out osrmTableResponse
	if err := u.Decode(resp, &out); err != nil {
		return nil, err
	}
	if out.Code != "Ok" {
		noRoute, err := osrmFailure(osrmStatus{Code: out.Code, Message: out.Message}, paths, nil)
		if err != nil {
			return nil, err
		}
		return none(noRoute)
	}
	if err := fillMatrix(ans, "The OSRM demo server", metrics, out.Durations, out.Distances, len(sources), len(destinations)); err != nil {
		return nil, err
	}
	return ans, nil
}

// noneRoutable is the "no route at all" answer of a matrix: every pair is unroutable.
type noneRoutable struct{ msg string }

func (n *noneRoutable) Error() string { return n.msg }

func errNoneRoutable(msg string) error { return &noneRoutable{msg: msg} }

func emptyMatrix(metrics []string, metric string, sources, destinations []int) [][]lenient.Float {
	if !hasMetric(metrics, metric) {
		return nil
	}
	out := make([][]lenient.Float, len(sources))
	for i := range out {
		out[i] = make([]lenient.Float, len(destinations))
	}
	return out
}

func hasMetric(metrics []string, m string) bool {
	for _, x := range metrics {
		if x == m {
			return true
		}
	}
	return false
}

// fillMatrix decodes the requested matrices; one that is missing or smaller than asked is a
// provider_error (extra rows or columns are ignored).
func fillMatrix(ans *matrixAnswer, engine string, metrics []string, durations, distances json.RawMessage, rows, cols int) error {
	for _, m := range []struct {
		name string
		raw  json.RawMessage
		dst  *[][]lenient.Float
	}{{"duration", durations, &ans.Durations}, {"distance", distances, &ans.Distances}} {
		if !hasMetric(metrics, m.name) {
			continue
		}
		mx, ok := decodeMatrix(m.raw, rows, cols)
		if !ok {
			return providers.Errorf(providers.CodeProviderError, "%s answered no %d×%d %s matrix", engine, rows, cols, m.name)
		}
		*m.dst = mx
	}
	return nil
}

// decodeMatrix reads rows×cols numbers where null (or anything not a number) means no route.
func decodeMatrix(raw json.RawMessage, rows, cols int) ([][]lenient.Float, bool) {
	var rs []json.RawMessage
	if json.Unmarshal(raw, &rs) != nil || len(rs) < rows {
		return nil, false
	}
	out := make([][]lenient.Float, rows)
	for i := 0; i < rows; i++ {
		var cells []lenient.Float
		if json.Unmarshal(rs[i], &cells) != nil || len(cells) < cols {
			return nil, false
		}
		out[i] = cells[:cols]
	}
	return out, true
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ";")
}

// acceptJSON is the Accept header of every GET (fresh each time: the client keeps it).
func acceptJSON() http.Header { return http.Header{"Accept": {"application/json"}} }
