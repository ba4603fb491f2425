package fitness

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/capgate/capgate/providers"
)

const (
	// wgerEnglish is wger's language id of English (translations carry the id, not the code).
	wgerEnglish = 2
	// legacyReason is video_unavailable_reason of every legacy text-only record.
	legacyReason = "text-only legacy record (wger): no demonstration video"
)

// legacyParams are the wger exerciseinfo filters a legacy session may replay; anything else in a
// stored state is ignored, so a state can never steer the call elsewhere.
var legacyParams = map[string]bool{
	"name__search": true, "muscles": true, "muscles__in": true, "equipment": true, "equipment__in": true,
	"category": true, "language__code": true,
}

// legacyPage continues a retained legacy text-only session: the next wger exerciseinfo page of the
// query the session was made with. New searches never start here (update restarts on YMove).
func legacyPage(ctx context.Context, call *providers.Call, st pagingState) (*providers.Page, error) {
	if st.Offset < 0 {
		return nil, providers.Errorf(providers.CodeInternal, "the stored paging state of this search is not valid")
	}
	num, ok := call.Request.Int("num")
	if !ok || num < 1 {
		num = 10
	}
	q, kept := url.Values{}, map[string]string{}
	for k, v := range st.Params {
		if legacyParams[k] && v != "" {
			q.Set(k, v)
			kept[k] = v
		}
	}
	if q.Get("language__code") == "" {
		q.Set("language__code", "en")
	}
	q.Set("limit", strconv.Itoa(num))
	q.Set("offset", strconv.Itoa(st.Offset))
	var body struct {
		Count   int               `json:"count"`
		Next    *string           `json:"next"`
		Results []json.RawMessage `json:"results"`
	}
	if err := getJSON(ctx, call.Upstream(WgerProviderID), "/api/v2/exerciseinfo/", q, &body); err != nil {
		return nil, err
	}
	out := &providers.Page{Records: []providers.Record{},
		Notes: []string{"This is a retained legacy text-only session (wger data): its records have no demonstration video. Run a new search (or update) for exercises with videos."}}
	for _, raw := range body.Results {
		var ex wgerExercise
		if json.Unmarshal(raw, &ex) != nil {
			continue
		}
		if rec, ok := legacyRecord(&ex); ok {
			out.Records = append(out.Records, rec)
		}
	}
	if len(body.Results) > 0 && body.Next != nil && *body.Next != "" {
		out.HasMore = true
		out.Next, _ = json.Marshal(pagingState{Source: WgerProviderID, Offset: st.Offset + len(body.Results), Params: kept})
	}
	return out, nil
}

// wgerExercise is one exerciseinfo entry (the fields a text-only record needs).
type wgerExercise struct {
	ID       int `json:"id"`
	Category *struct {
		Name string `json:"name"`
	} `json:"category"`
	Muscles          []wgerMuscle `json:"muscles"`
	MusclesSecondary []wgerMuscle `json:"muscles_secondary"`
	Equipment        []struct {
		Name string `json:"name"`
	} `json:"equipment"`
	License *struct {
		FullName  string `json:"full_name"`
		ShortName string `json:"short_name"`
		URL       string `json:"url"`
	} `json:"license"`
	LicenseAuthor string            `json:"license_author"`
	Translations  []wgerTranslation `json:"translations"`
}

type wgerMuscle struct {
	Name   string `json:"name"`
	NameEn string `json:"name_en"`
}

type wgerTranslation struct {
	Name          string `json:"name"`
	Description   string `json:"description"`
	Language      int    `json:"language"`
	LicenseAuthor string `json:"license_author"`
}

// label is the muscle's plain English name when wger has one, else its Latin name.
func (m wgerMuscle) label() string {
	if s := strings.TrimSpace(m.NameEn); s != "" {
		return s
	}
	return strings.TrimSpace(m.Name)
}

func muscleLabels(ms []wgerMuscle) []string {
	names := make([]string, 0, len(ms))
	for _, m := range ms {
		names = append(names, m.label())
	}
	return nonEmpty(names...)
}

// english picks the English translation, else the first one with a name.
func (ex *wgerExercise) english() (wgerTranslation, bool) {
	for _, t := range ex.Translations {
		if t.Language == wgerEnglish && strings.TrimSpace(t.Name) != "" {
			return t, true
		}
	}
	for _, t := range ex.Translations {
		if strings.TrimSpace(t.Name) != "" {
			return t, true
		}
	}
	return wgerTranslation{}, false
}

var tags = regexp.MustCompile(`<[^>]*>`)

// plainText turns wger's HTML description into text.
func plainText(s string) string {
	s = tags.ReplaceAllString(s, " ")
	return strings.Join(strings.Fields(html.UnescapeString(s)), " ")
}

// legacyRecord maps an exerciseinfo entry to a text-only record; ok is false without a name.
func legacyRecord(ex *wgerExercise) (providers.Record, bool) {
	tr, ok := ex.english()
	if !ok {
		return providers.Record{}, false
	}
	author := strings.TrimSpace(tr.LicenseAuthor)
	if author == "" {
		author = strings.TrimSpace(ex.LicenseAuthor)
	}
	attribution := "Exercise data: wger Workout Manager (wger.de)"
	rec := providers.Record{
		Title:   strings.TrimSpace(tr.Name),
		Snippet: plainText(tr.Description),
	}
	data := &ExerciseRecord{VideoUnavailableReason: legacyReason, Muscles: muscleLabels(ex.Muscles),
		SecondaryMuscles: muscleLabels(ex.MusclesSecondary), Author: author}
	rec.Data = data
	var equipment []string
	for _, e := range ex.Equipment {
		equipment = append(equipment, e.Name)
	}
	data.Equipment = nonEmpty(equipment...)
	if author != "" {
		attribution += ", by " + author
	}
	if l := ex.License; l != nil && (l.ShortName != "" || l.FullName != "") {
		data.Licence = &Licence{Name: strings.TrimSpace(l.FullName), ShortName: strings.TrimSpace(l.ShortName),
			URL: strings.TrimSpace(l.URL)}
		if l.ShortName != "" {
			attribution += fmt.Sprintf(", licensed %s", l.ShortName)
		}
	}
	data.Attribution = attribution

	detail := &LegacyDetail{ExerciseID: ex.ID, Title: rec.Title, VideoUnavailableReason: legacyReason,
		Attribution: attribution, Description: rec.Snippet, Muscles: data.Muscles, SecondaryMuscles: data.SecondaryMuscles,
		Equipment: data.Equipment, Author: author, Licence: data.Licence}
	if ex.Category != nil {
		detail.Category = strings.TrimSpace(ex.Category.Name)
	}
	rec.Stored = map[string]*providers.Detail{"details": {Body: detail, Links: []providers.Link{}}}
	return rec, true
}
