package console

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/capgate/capgate/console/views"
	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/tenants"
)

// topicColors are the chart colours of the capability groups (colour-blind safe palette).
var topicColors = map[string]string{
	"Web and news": "#0072B2", "Research and reading": "#E69F00", "Dev": "#009E73", "Media and social": "#CC79A7",
	"Travel and places": "#56B4E9", "Commerce and markets": "#D55E00", "Food and fitness": "#B8A800", "Sharpen": "#6B4FBB",
}

var topicOrder = []string{"Web and news", "Research and reading", "Dev", "Media and social", "Travel and places", "Commerce and markets", "Food and fitness", "Sharpen"}

func (cn *Console) topicOf(capability string) string {
	if capability == "sharpen" {
		return "Sharpen"
	}
	for _, c := range cn.opts.Capabilities {
		if c.ID == capability {
			return c.Topic
		}
	}
	return "Web and news"
}

// UsageChart lays out credits per day of the period, stacked by capability group.
func UsageChart(days []time.Time, usage []tenants.DailyUsage, topicOf func(string) string) views.Chart {
	const width, height = 720, 180
	per := map[string]map[string]int64{}
	var max int64
	for _, u := range usage {
		if per[u.Day] == nil {
			per[u.Day] = map[string]int64{}
		}
		per[u.Day][topicOf(u.Capability)] += u.Credits
	}
	for _, m := range per {
		var sum int64
		for _, v := range m {
			sum += v
		}
		if sum > max {
			max = sum
		}
	}
	c := views.Chart{Width: width, Height: height, Empty: max == 0, MaxLabel: strconv.FormatInt(max, 10) + " credits"}
	if len(days) == 0 {
		return c
	}
	slot := width / len(days)
	bw := slot * 7 / 10
	if bw < 2 {
		bw = 2
	}
	used := map[string]bool{}
	for i, d := range days {
		key := d.Format("2006-01-02")
		b := views.Bar{X: i*slot + (slot-bw)/2, Width: bw, Label: "", Title: key}
		if i%5 == 0 || i == len(days)-1 {
			b.Label = d.Format("Jan 2")
		}
		y := height
		var parts []string
		for _, t := range topicOrder {
			v := per[key][t]
			if v == 0 || max == 0 {
				continue
			}
			h := int(float64(v) / float64(max) * float64(height-16))
			if h < 1 {
				h = 1
			}
			y -= h
			b.Segments = append(b.Segments, views.Segment{Y: y, Height: h, Color: topicColors[t]})
			parts = append(parts, fmt.Sprintf("%s %d", t, v))
			used[t] = true
		}
		if len(parts) > 0 {
			b.Title += ": " + strings.Join(parts, ", ")
		}
		c.Bars = append(c.Bars, b)
	}
	for _, t := range topicOrder {
		if used[t] {
			c.Legend = append(c.Legend, views.LegendItem{Label: t, Color: topicColors[t]})
		}
	}
	return c
}

func (cn *Console) overview(c *fiber.Ctx) error {
	v := viewerOf(c)
	ctx := c.UserContext()
	mode := tenants.ModeLive
	if c.Query("mode") == tenants.ModeTest {
		mode = tenants.ModeTest
	}
	bal, err := cn.store.Balance(ctx, v.tenant, v.plan, mode)
	if err != nil {
		return cn.failed(c, err)
	}
	start, end := tenants.PeriodAt(v.tenant.PeriodAnchor, time.Now())
	today := time.Now().UTC().Truncate(24 * time.Hour)
	calls, err := cn.store.CallsSince(ctx, v.tenant.ID, mode, today)
	if err != nil {
		return cn.failed(c, err)
	}
	usage, err := cn.store.UsageByDay(ctx, v.tenant.ID, mode, start)
	if err != nil {
		return cn.failed(c, err)
	}
	var days []time.Time
	// The whole period is laid out, days to come included, so bars keep their width as it fills.
	for d := start.UTC().Truncate(24 * time.Hour); d.Before(end); d = d.Add(24 * time.Hour) {
		days = append(days, d)
	}
	pct := 0
	if bal.Cap > 0 {
		pct = int(bal.Used * 100 / bal.Cap)
	}
	o := views.Overview{Plan: v.plan.ID, Status: v.tenant.Status, Used: bal.Used, Cap: bal.Cap, Percent: pct, PeriodEnd: bal.PeriodEnd,
		CallsToday: calls, Mode: mode, Chart: UsageChart(days, usage, cn.topicOf)}
	return cn.page(c, "Overview", "overview", views.OverviewPage(o))
}

func (cn *Console) available(cp *providers.Capability) (bool, string) {
	for _, id := range cp.Providers {
		if ok, why := cn.opts.Client.Configured(id); !ok {
			return false, why
		}
	}
	return true, ""
}

func (cn *Console) catalog(c *fiber.Ctx) error {
	v := viewerOf(c)
	var rows []views.CatalogRow
	for _, cp := range cn.opts.Capabilities {
		ok, why := cn.available(cp)
		schema, _ := json.MarshalIndent(cp.Schema().Doc, "", "  ")
		r := views.CatalogRow{ID: cp.ID, Title: cp.Title, Summary: cp.Summary, Topic: cp.Topic, Enabled: v.plan.Enables(cp.ID, cp.Cost.Typical),
			Available: ok, Reason: why, TypicalCredits: cp.Cost.Typical, Schema: string(schema)}
		for _, ex := range cp.Examples {
			b, _ := json.MarshalIndent(ex.Body, "", "  ")
			r.Examples = append(r.Examples, views.Example{Title: ex.Title, Body: string(b)})
		}
		rows = append(rows, r)
	}
	return cn.page(c, "Catalog", "catalog", views.CatalogPage(rows))
}

func (cn *Console) keyRows(c *fiber.Ctx) ([]views.KeyRow, error) {
	ks, err := cn.store.Keys(c.UserContext(), viewerOf(c).tenant.ID)
	if err != nil {
		return nil, err
	}
	rows := make([]views.KeyRow, 0, len(ks))
	for _, k := range ks {
		rows = append(rows, views.KeyRow{ID: k.ID, Prefix: k.Prefix, Label: k.Label, Mode: k.Mode, Created: k.CreatedAt, LastUsed: k.LastUsedAt, Revoked: k.RevokedAt != nil})
	}
	return rows, nil
}

func (cn *Console) keys(c *fiber.Ctx) error {
	rows, err := cn.keyRows(c)
	if err != nil {
		return cn.failed(c, err)
	}
	return cn.page(c, "API keys", "keys", views.KeysPage(viewerOf(c).nav("keys"), views.Keys{Keys: rows}))
}

// createKey shows the new key once, on the answer to the POST (never in a URL or a later page).
func (cn *Console) createKey(c *fiber.Ctx) error {
	v := viewerOf(c)
	mode := c.FormValue("mode")
	_, raw, err := cn.store.CreateKey(c.UserContext(), v.tenant.ID, mode, strings.TrimSpace(c.FormValue("label")))
	if err != nil {
		return back(c, "/console/keys", "", err)
	}
	rows, err := cn.keyRows(c)
	if err != nil {
		return cn.failed(c, err)
	}
	nav := v.nav("keys")
	nav.Flash = "Key created."
	return render(c, fiber.StatusOK, views.Layout("API keys", nav, views.KeysPage(nav, views.Keys{Keys: rows, NewKey: raw})))
}

func (cn *Console) revokeKey(c *fiber.Ctx) error {
	v := viewerOf(c)
	if _, err := cn.store.RevokeKey(c.UserContext(), c.Params("id"), v.tenant.ID); err != nil {
		if errors.Is(err, tenants.ErrNotFound) {
			return cn.notFound(c)
		}
		return cn.failed(c, err)
	}
	cn.opts.AccessChanged()
	return back(c, "/console/keys", "Key revoked.", nil)
}

var stageMeaning = map[string]string{
	"stock":   "off: sharpen calls are refused",
	"stage1":  "one reviewer, a fast model",
	"stage2":  "one reviewer, a stronger model",
	"stage3":  "one reviewer, the vendor's strongest model",
	"stage3+": "two independent reviewers of two vendors",
}

var stageTier = map[string]string{"stage1": "sharpen", "stage2": "plus", "stage3": "ultra", "stage3+": "ultra2x"}
var tierCredits = map[string]int{"sharpen": 5, "plus": 15, "ultra": 40, "ultra2x": 80}

func (cn *Console) sharpen(c *fiber.Ctx) error {
	v := viewerOf(c)
	saved, err := cn.store.SharpenStage(c.UserContext(), v.tenant.ID)
	if err != nil {
		return cn.failed(c, err)
	}
	var opts []views.StageOption
	for _, st := range tenants.SharpenStages {
		tier := stageTier[st]
		opts = append(opts, views.StageOption{Stage: st, Tier: tier, Credits: tierCredits[tier], Meaning: stageMeaning[st],
			Allowed: v.plan.AllowsStage(st), Selected: st == saved})
	}
	return cn.page(c, "Sharpen", "sharpen", views.SharpenPage(v.nav("sharpen"), opts))
}

func (cn *Console) saveSharpen(c *fiber.Ctx) error {
	v := viewerOf(c)
	stage := c.FormValue("stage")
	if err := cn.store.SetSharpenStage(c.UserContext(), v.tenant.ID, v.plan, stage); err != nil {
		return back(c, "/console/sharpen", "", err)
	}
	return back(c, "/console/sharpen", "Saved: sharpen stage "+stage+".", nil)
}

func workoutRow(w *tenants.Workout) views.WorkoutRow {
	return views.WorkoutRow{ID: w.ID, Title: w.Title, Muscles: tenants.List(w.Muscles), Equipment: tenants.List(w.Equipment),
		Saved: w.CreatedAt, VideoAvailable: w.VideoAvailable}
}

func (cn *Console) workouts(c *fiber.Ctx) error {
	ws, err := cn.store.Workouts(c.UserContext(), viewerOf(c).tenant.ID)
	if err != nil {
		return cn.failed(c, err)
	}
	rows := make([]views.WorkoutRow, 0, len(ws))
	for i := range ws {
		rows = append(rows, workoutRow(&ws[i]))
	}
	return cn.page(c, "Workouts", "workouts", views.WorkoutsPage(rows))
}

// workout is the page workout_resource.url points to; another tenant's workout is a 404. The page
// resolves the demonstration first so it can say plainly why one cannot be played; the video
// element then plays it through the protected redirect, which the player's cache answers.
func (cn *Console) workout(c *fiber.Ctx) error {
	w, err := cn.store.Workout(c.UserContext(), viewerOf(c).tenant.ID, c.Params("id"))
	if errors.Is(err, tenants.ErrNotFound) {
		return cn.notFound(c)
	}
	if err != nil {
		return cn.failed(c, err)
	}
	row := workoutRow(w)
	if _, err := cn.videoURL(c, w); err != nil {
		row.VideoProblem = providers.MessageOf(err)
		// A stale link worth retrying says "reload"; anything else is plainly unavailable.
		e, _ := providers.AsError(err)
		row.VideoStale = e != nil && e.Code == providers.CodeMediaStale && e.IsRetryable()
	} else {
		row.VideoURL = "/console/workouts/" + w.ID + "/video"
	}
	return cn.page(c, w.Title, "workouts", views.WorkoutPage(row))
}

func (cn *Console) videoURL(c *fiber.Ctx, w *tenants.Workout) (string, error) {
	if cn.opts.Videos == nil {
		return "", providers.Errorf(providers.CodeWorkoutUnavailable, "demonstration videos are not set up on this gateway")
	}
	return cn.opts.Videos.VideoURL(c.UserContext(), w.Provider, w.ExerciseRef, w.VideoAvailable)
}

// workoutVideo is the protected playback redirect: for a signed-in user of the workout's tenant,
// a 302 to the demonstration's current (renewed when expired) video URL; another tenant's or an
// unknown workout is the console's 404 page. A demonstration that cannot be played answers the
// spec's error envelope as JSON: workout_unavailable (404) or media_stale (409). Free.
func (cn *Console) workoutVideo(c *fiber.Ctx) error {
	w, err := cn.store.Workout(c.UserContext(), viewerOf(c).tenant.ID, c.Params("id"))
	if errors.Is(err, tenants.ErrNotFound) {
		return cn.notFound(c)
	}
	if err != nil {
		return cn.failed(c, err)
	}
	link, err := cn.videoURL(c, w)
	if err != nil {
		return playbackError(c, err)
	}
	// The signed URL changes on renewal: never cache the redirect, never leak this page.
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Set(fiber.HeaderReferrerPolicy, "no-referrer")
	return c.Redirect(link, fiber.StatusFound)
}

// playbackError writes the spec's error envelope {error: {code, message, retryable, hint?,
// requestId?}} with the code's status.
func playbackError(c *fiber.Ctx, err error) error {
	e, ok := providers.AsError(err)
	if !ok {
		e = &providers.Error{Code: providers.CodeInternal, Message: "an internal error occurred"}
	}
	body := map[string]any{"code": e.Code, "message": e.Message, "retryable": e.IsRetryable()}
	if e.Hint != "" {
		body["hint"] = e.Hint
	}
	if rid, ok := c.Locals("request_id").(string); ok && rid != "" {
		body["requestId"] = rid
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.Status(e.HTTPStatus()).JSON(map[string]any{"error": body})
}

// usageFilter reads the usage page's filter.
func (cn *Console) usageFilter(c *fiber.Ctx) (tenants.UsageFilter, views.Usage, error) {
	v := viewerOf(c)
	f := tenants.UsageFilter{TenantID: v.tenant.ID, Capability: c.Query("capability")}
	u := views.Usage{Capability: f.Capability, From: c.Query("from"), To: c.Query("to"), Page: 1}
	if f.Capability != "" && f.Capability != "sharpen" && !cn.knownCapability(f.Capability) {
		return f, u, errors.New("unknown capability")
	}
	if u.From != "" {
		t, err := time.Parse("2006-01-02", u.From)
		if err != nil {
			return f, u, errors.New("from must be a date")
		}
		f.From = t
	}
	if u.To != "" {
		t, err := time.Parse("2006-01-02", u.To)
		if err != nil {
			return f, u, errors.New("to must be a date")
		}
		f.To = t.Add(24 * time.Hour)
	}
	if p, err := strconv.Atoi(c.Query("page")); err == nil && p > 1 {
		u.Page = p
	}
	q := url.Values{}
	for k, val := range map[string]string{"capability": u.Capability, "from": u.From, "to": u.To} {
		if val != "" {
			q.Set(k, val)
		}
	}
	u.Query = q.Encode()
	for _, cp := range cn.opts.Capabilities {
		u.Capabilities = append(u.Capabilities, cp.ID)
	}
	u.Capabilities = append(u.Capabilities, "sharpen")
	sort.Strings(u.Capabilities)
	return f, u, nil
}

func (cn *Console) knownCapability(id string) bool {
	for _, cp := range cn.opts.Capabilities {
		if cp.ID == id {
			return true
		}
	}
	return false
}

const usagePageSize = 50

func (cn *Console) usage(c *fiber.Ctx) error {
	f, u, err := cn.usageFilter(c)
	if err != nil {
		return back(c, "/console/usage", "", err)
	}
	f.Limit, f.Offset = usagePageSize+1, (u.Page-1)*usagePageSize
	es, err := cn.store.Usage(c.UserContext(), f)
	if err != nil {
		return cn.failed(c, err)
	}
	if len(es) > usagePageSize {
		es, u.HasNext = es[:usagePageSize], true
	}
	for _, e := range es {
		u.Rows = append(u.Rows, views.UsageRow{Time: e.CreatedAt, Capability: e.Capability, Action: e.Action, Mode: e.Mode, Credits: e.Credits, RequestID: e.RequestID})
	}
	return cn.page(c, "Usage", "usage", views.UsagePage(u))
}

func (cn *Console) usageCSV(c *fiber.Ctx) error {
	f, _, err := cn.usageFilter(c)
	if err != nil {
		return back(c, "/console/usage", "", err)
	}
	f.Limit = 100000
	es, err := cn.store.Usage(c.UserContext(), f)
	if err != nil {
		return cn.failed(c, err)
	}
	c.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="capgate-usage.csv"`)
	w := csv.NewWriter(c.Response().BodyWriter())
	_ = w.Write([]string{"time", "capability", "action", "mode", "credits", "request_id", "key_id"})
	for _, e := range es {
		_ = w.Write([]string{e.CreatedAt.UTC().Format(time.RFC3339), e.Capability, e.Action, e.Mode, strconv.FormatInt(e.Credits, 10), e.RequestID, e.KeyID})
	}
	w.Flush()
	return w.Error()
}

func (cn *Console) projects(c *fiber.Ctx) error {
	v := viewerOf(c)
	ctx := c.UserContext()
	ps, err := cn.store.Projects(ctx, v.tenant.ID, 100, 0)
	if err != nil {
		return cn.failed(c, err)
	}
	var rows []views.ProjectRow
	for _, p := range ps {
		items, err := cn.store.Items(ctx, v.tenant.ID, p.ID, 100, 0)
		if err != nil {
			return cn.failed(c, err)
		}
		row := views.ProjectRow{ID: p.ID, Name: p.Name, Created: p.CreatedAt}
		for _, it := range items {
			ir := views.ProjectItemRow{Kind: it.Kind, Capability: it.Capability, Note: it.Note, Created: it.CreatedAt}
			var rec struct {
				Title string `json:"title"`
			}
			if json.Unmarshal([]byte(it.Snapshot), &rec) == nil {
				ir.Title = rec.Title
			}
			row.Items = append(row.Items, ir)
		}
		rows = append(rows, row)
	}
	return cn.page(c, "Projects", "projects", views.ProjectsPage(rows))
}
