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
// chartLeft is the room the y-scale's labels take left of the bars.
const chartLeft = 52

// niceCeil is the smallest 1, 2 or 5 times a power of ten at or above n (at least 1).
func niceCeil(n int64) int64 {
	if n <= 1 {
		return 1
	}
	for p := int64(1); ; p *= 10 {
		for _, m := range []int64{1, 2, 5} {
			if m*p >= n {
				return m * p
			}
		}
	}
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

// chartDays are the days the overview's chart shows: the period so far, at least a week (the
// days to come included), so one day of use is not a sliver on a month's axis.
func chartDays(start, end, now time.Time) []time.Time {
	var days []time.Time
	last := now.UTC().Truncate(24 * time.Hour)
	for d := start.UTC().Truncate(24 * time.Hour); d.Before(end) && (!d.After(last) || len(days) < 7); d = d.Add(24 * time.Hour) {
		days = append(days, d)
	}
	return days
}

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
	c := views.Chart{Width: width, Height: height, Empty: max == 0, MaxLabel: views.Num(max) + " credits", Left: chartLeft}
	if len(days) == 0 {
		return c
	}
	// The y-scale ends at a round number above the busiest day, with a tick at half of it.
	top := niceCeil(max)
	max = top
	for _, v := range []int64{0, top / 2, top} {
		c.Ticks = append(c.Ticks, views.Tick{Y: height - int(float64(v)/float64(top)*float64(height-16)), Label: views.Num(v)})
	}
	slot := (width - chartLeft) / len(days)
	bw := min(slot*7/10, 48)
	if bw < 2 {
		bw = 2
	}
	every := max64(1, int64(len(days)+6)/7) // at most about seven labels
	used := map[string]bool{}
	for i, d := range days {
		key := d.Format("2006-01-02")
		b := views.Bar{X: chartLeft + i*slot + (slot-bw)/2, Width: bw, Label: "", Title: key}
		if int64(i)%every == 0 || i == len(days)-1 {
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
	mode := modeOf(c)
	bal, err := cn.store.Balance(ctx, v.tenant, v.plan, mode)
	if err != nil {
		return err
	}
	start, end := tenants.PeriodAt(v.tenant.PeriodAnchor, time.Now())
	today := time.Now().UTC().Truncate(24 * time.Hour)
	callsToday, err := cn.store.CallsSince(ctx, v.tenant.ID, mode, today)
	if err != nil {
		return err
	}
	callsPeriod, err := cn.store.CallsSince(ctx, v.tenant.ID, mode, start)
	if err != nil {
		return err
	}
	usage, err := cn.store.UsageByDay(ctx, v.tenant.ID, mode, start)
	if err != nil {
		return err
	}
	cacheUsage, err := cn.store.CacheUsageSince(ctx, v.tenant.ID, mode, start)
	if err != nil {
		return err
	}
	var cached []views.CacheUsage
	for _, u := range cacheUsage {
		if u.CallsSaved() > 0 {
			cached = append(cached, views.CacheUsage{ID: u.Capability, Calls: u.Calls, Hits: u.Hits, CallsSaved: u.CallsSaved(), CreditsSaved: u.CreditsSaved})
		}
	}
	days := chartDays(start, end, time.Now())
	pct := 0
	if bal.Cap > 0 {
		pct = int(min(bal.Used*100/bal.Cap, 100))
	}
	o := views.Overview{Plan: v.plan.ID, Status: v.tenant.Status, Used: bal.Used, Cap: bal.Cap, Remaining: max(bal.Cap-bal.Used, 0), Percent: pct,
		PeriodStart: start, PeriodEnd: bal.PeriodEnd, CallsToday: callsToday, CallsPeriod: callsPeriod,
		Mode: views.ModeView{Path: "/console/", Mode: mode}, Chart: UsageChart(days, usage, cn.topicOf), Top: topCapabilities(usage, 5), Cache: cached}
	if v.user.Role == tenants.RoleAdmin {
		g := cn.goingLive()
		o.GoingLive = &g
	}
	return cn.page(c, "Overview", "overview", views.OverviewPage(o))
}

// topCapabilities are the n capabilities that spent the most credits, with their share.
func topCapabilities(usage []tenants.DailyUsage, n int) []views.TopCapability {
	per := map[string]int64{}
	var total int64
	for _, u := range usage {
		per[u.Capability] += u.Credits
		total += u.Credits
	}
	var out []views.TopCapability
	for id, credits := range per {
		if credits > 0 {
			out = append(out, views.TopCapability{ID: id, Credits: credits, Percent: int(credits * 100 / total)})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Credits != out[j].Credits {
			return out[i].Credits > out[j].Credits
		}
		return out[i].ID < out[j].ID
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}

var stageMeaning = map[string]string{
	"stock":   "sharpen is off: calls to it are refused, nothing is reviewed or charged",
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
		return err
	}
	var opts []views.StageOption
	for _, st := range tenants.SharpenStages {
		tier := stageTier[st]
		opts = append(opts, views.StageOption{Stage: st, Tier: tier, Credits: tierCredits[tier], Meaning: stageMeaning[st],
			Allowed: v.plan.AllowsStage(st), Selected: st == saved,
			Reason: "Not on the " + v.plan.ID + " plan, which allows up to " + views.StageName(v.plan.SharpenMax) + "."})
	}
	return cn.page(c, "Sharpen", "sharpen", views.SharpenPage(v.nav("sharpen"), opts))
}

func (cn *Console) saveSharpen(c *fiber.Ctx) error {
	v := viewerOf(c)
	stage := c.FormValue("stage")
	prev, err := cn.store.SharpenStage(c.UserContext(), v.tenant.ID)
	if err != nil {
		return err
	}
	if err := cn.store.SetSharpenStage(c.UserContext(), v.tenant.ID, v.plan, stage); err != nil {
		return back(c, "/console/sharpen", "", err)
	}
	cn.record(c, auditSharpenStage, v.tenant.ID, state{"sharpen_stage": prev}, state{"sharpen_stage": stage})
	return back(c, "/console/sharpen", "Saved: sharpen stage "+stage+".", nil)
}

func workoutRow(w *tenants.Workout) views.WorkoutRow {
	return views.WorkoutRow{ID: w.ID, Title: w.Title, Muscles: tenants.List(w.Muscles), Equipment: tenants.List(w.Equipment),
		Saved: w.CreatedAt, VideoAvailable: w.VideoAvailable}
}

func (cn *Console) workouts(c *fiber.Ctx) error {
	ws, err := cn.store.Workouts(c.UserContext(), viewerOf(c).tenant.ID)
	if err != nil {
		return err
	}
	rows := make([]views.WorkoutRow, 0, len(ws))
	for i := range ws {
		rows = append(rows, workoutRow(&ws[i]))
	}
	return cn.page(c, "Workouts", "workouts", views.WorkoutsPage(viewerOf(c).nav("workouts"), rows))
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
		return err
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
	return cn.page(c, w.Title, "workouts", views.WorkoutPage(viewerOf(c).nav("workouts"), row))
}

func (cn *Console) deleteWorkout(c *fiber.Ctx) error {
	v := viewerOf(c)
	w, err := cn.store.Workout(c.UserContext(), v.tenant.ID, c.Params("id"))
	if errors.Is(err, tenants.ErrNotFound) {
		return cn.notFound(c)
	}
	if err != nil {
		return err
	}
	if err := cn.store.DeleteWorkout(c.UserContext(), v.tenant.ID, w.ID); err != nil {
		if errors.Is(err, tenants.ErrNotFound) {
			return cn.notFound(c)
		}
		return err
	}
	cn.record(c, auditWorkoutDel, w.ID, workoutState(w), nil)
	return back(c, "/console/workouts", "Workout "+w.Title+" deleted.", nil)
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
		return err
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

// usageFilter reads the usage page's filter; the CSV uses the same.
func (cn *Console) usageFilter(c *fiber.Ctx) (tenants.UsageFilter, views.Usage, error) {
	v := viewerOf(c)
	mode := modeOf(c)
	f := tenants.UsageFilter{TenantID: v.tenant.ID, Mode: mode, Capability: c.Query("capability")}
	u := views.Usage{Mode: views.ModeView{Path: "/console/usage", Mode: mode}, Capability: f.Capability, Key: c.Query("key"),
		From: c.Query("from"), To: c.Query("to"), Page: 1}
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
	keys, err := cn.keyRows(c, mode)
	if err != nil {
		return f, u, err
	}
	u.Keys = keys
	q := url.Values{"mode": {mode}}
	for k, val := range map[string]string{"capability": u.Capability, "key": u.Key, "from": u.From, "to": u.To} {
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

const (
	usagePageSize = 50
	// usageMax bounds what one usage view or CSV reads.
	usageMax = 100000
)

// usageEntries are the ledger entries of the filter, the key included, newest first.
func (cn *Console) usageEntries(c *fiber.Ctx, f tenants.UsageFilter, key string) ([]tenants.LedgerEntry, error) {
	f.Limit = usageMax
	es, err := cn.store.Usage(c.UserContext(), f)
	if err != nil || key == "" {
		return es, err
	}
	kept := es[:0]
	for _, e := range es {
		if e.KeyID == key {
			kept = append(kept, e)
		}
	}
	return kept, nil
}

func (cn *Console) usage(c *fiber.Ctx) error {
	f, u, err := cn.usageFilter(c)
	if err != nil {
		return back(c, "/console/usage", "", err)
	}
	es, err := cn.usageEntries(c, f, u.Key)
	if err != nil {
		return err
	}
	u.Calls = len(es)
	for _, e := range es {
		u.Credits += e.Credits
	}
	u.Pages = max((len(es)+usagePageSize-1)/usagePageSize, 1)
	u.Page = min(u.Page, u.Pages)
	for _, e := range es[min((u.Page-1)*usagePageSize, len(es)):min(u.Page*usagePageSize, len(es))] {
		u.Rows = append(u.Rows, views.UsageRow{Time: e.CreatedAt, Capability: e.Capability, Action: e.Action, Mode: e.Mode, Credits: e.Credits, RequestID: e.RequestID})
	}
	return cn.page(c, "Usage", "usage", views.UsagePage(u))
}

func (cn *Console) usageCSV(c *fiber.Ctx) error {
	f, u, err := cn.usageFilter(c)
	if err != nil {
		return back(c, "/console/usage", "", err)
	}
	es, err := cn.usageEntries(c, f, u.Key)
	if err != nil {
		return err
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
	mode := modeOf(c)
	owner := tenants.ProjectOwner{TenantID: v.tenant.ID, Mode: mode}
	ps, err := cn.store.Projects(ctx, owner, 100, 0)
	if err != nil {
		return err
	}
	var rows []views.ProjectRow
	for _, p := range ps {
		items, err := cn.store.Items(ctx, owner, p.ID, 100, 0)
		if err != nil {
			return err
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
	return cn.page(c, "Projects", "projects", views.ProjectsPage(views.ModeView{Path: "/console/projects", Mode: mode}, rows))
}
