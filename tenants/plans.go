package tenants

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/uptrace/bun"
)

// Sharpen stages in order; "stock" means sharpen is off.
var SharpenStages = []string{"stock", "stage1", "stage2", "stage3", "stage3+"}

// StageRank orders stages; -1 for an unknown stage.
func StageRank(stage string) int {
	for i, s := range SharpenStages {
		if s == stage {
			return i
		}
	}
	return -1
}

// Plan is what a tenant pays for: a credit cap per period, a request rate, a multiplier on every
// charge, the capabilities it enables, the highest sharpen stage and project quotas.
type Plan struct {
	bun.BaseModel `bun:"table:plans"`

	ID               string  `bun:"id,pk" json:"name"`
	CreditCap        int64   `bun:"credit_cap" json:"credit_cap"`
	RatePerMinute    int     `bun:"rate_per_minute" json:"rate_per_minute"`
	CreditMultiplier float64 `bun:"credit_multiplier" json:"credit_multiplier"`
	Capabilities     string  `bun:"capabilities" json:"capabilities"`
	SharpenMax       string  `bun:"sharpen_max" json:"sharpen_max"`
	ProjectLimit     int     `bun:"project_limit" json:"project_limit"`
	ItemLimit        int     `bun:"item_limit" json:"item_limit"`
	// CacheHitPercent is what an answer from the shared upstream cache costs, as a percentage of
	// the capability's charge (0, the default, makes hits free).
	CacheHitPercent int       `bun:"cache_hit_percent" json:"cache_hit_percent"`
	CreatedAt       time.Time `bun:"created_at" json:"created_at"`
	UpdatedAt       time.Time `bun:"updated_at" json:"updated_at"`
}

// Enables tells whether the plan enables a capability of the given typical cost.
// Capabilities is "all", "typical<=N" (every capability whose typical credits are at most N),
// or a comma-separated list of capability ids.
func (p *Plan) Enables(capability string, typicalCredits int) bool {
	spec := strings.TrimSpace(p.Capabilities)
	switch {
	case spec == "all":
		return true
	case strings.HasPrefix(spec, "typical<="):
		n, err := strconv.Atoi(strings.TrimPrefix(spec, "typical<="))
		return err == nil && typicalCredits <= n
	}
	for _, id := range strings.Split(spec, ",") {
		if strings.TrimSpace(id) == capability {
			return true
		}
	}
	return false
}

// Charge applies the multiplier to a charge in credits, rounding up so a multiplier never makes
// a paid call free. A multiplier outside (0, MaxMultiplier] cannot be saved (Validate); one
// stored before that rule is read as 1 (AfterScanRow), and Charge treats it the same, so a
// corrupt plan bills list price: never free, never unbounded.
func (p *Plan) Charge(credits int64, noMultiplier bool) int64 {
	m := p.CreditMultiplier
	if credits <= 0 || noMultiplier || m == 1 || !validMultiplier(m) {
		return credits
	}
	v := float64(credits) * m
	if v >= math.MaxInt64/2 {
		return math.MaxInt64 / 2
	}
	n := int64(v)
	if float64(n) < v {
		n++
	}
	return n
}

// AllowsStage tells whether the plan allows a sharpen stage.
func (p *Plan) AllowsStage(stage string) bool {
	r := StageRank(stage)
	return r >= 0 && r <= StageRank(p.SharpenMax)
}

// Bounds of a plan's numbers: far above any real plan, far below where sums and the rate
// limiter's arithmetic overflow.
const (
	MaxCreditCap     = 1_000_000_000_000_000 // 10^15 credits a period
	MaxRatePerMinute = 1_000_000_000         // benchmarks and internal tenants run effectively unlimited plans
	MaxMultiplier    = 100
	MaxTypical       = 1_000_000
	MaxProjects      = 1_000_000
	MaxItems         = 100_000_000
)

func validMultiplier(m float64) bool { return m > 0 && m <= MaxMultiplier } // false for NaN

var capabilityIDPattern = regexp.MustCompile(`^[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)*$`)

// validCapabilities checks the grammar Enables reads: "all", "typical<=N" or a list of ids.
func validCapabilities(spec string) bool {
	spec = strings.TrimSpace(spec)
	if spec == "all" {
		return true
	}
	if n, ok := strings.CutPrefix(spec, "typical<="); ok {
		v, err := strconv.Atoi(n)
		return err == nil && v >= 0 && v <= MaxTypical
	}
	for _, id := range strings.Split(spec, ",") {
		if !capabilityIDPattern.MatchString(strings.TrimSpace(id)) {
			return false
		}
	}
	return true
}

// Validate checks a plan's fields; every caller that saves a plan (the CLI, the console, the
// store itself) goes through it. The error is an *InvalidError naming the field.
func (p *Plan) Validate() error {
	switch {
	case p.ID == "" || len(p.ID) > 64 || strings.ContainsAny(p.ID, " \t,") || strings.ContainsFunc(p.ID, unicode.IsControl) || !utf8.ValidString(p.ID):
		return invalidf("name", "plan name must be 1..64 characters without spaces, commas or control characters")
	case p.CreditCap < 0 || p.CreditCap > MaxCreditCap:
		return invalidf("cap", fmt.Sprintf("credit cap must be from 0 to %d", int64(MaxCreditCap)))
	case p.RatePerMinute < 1 || p.RatePerMinute > MaxRatePerMinute:
		return invalidf("rate", fmt.Sprintf("rate must be from 1 to %d requests a minute", MaxRatePerMinute))
	case !validMultiplier(p.CreditMultiplier):
		return invalidf("multiplier", fmt.Sprintf("multiplier must be a number > 0 and <= %d", MaxMultiplier))
	case StageRank(p.SharpenMax) < 0:
		return invalidf("sharpen_max", fmt.Sprintf("sharpen stage must be one of %s", strings.Join(SharpenStages, ", ")))
	case !validCapabilities(p.Capabilities):
		return invalidf("capabilities", fmt.Sprintf("capabilities must be all, typical<=N (N from 0 to %d) or a comma-separated list of capability ids", MaxTypical))
	case p.ProjectLimit < 0 || p.ProjectLimit > MaxProjects:
		return invalidf("projects", fmt.Sprintf("project quota must be from 0 to %d", MaxProjects))
	case p.ItemLimit < 0 || p.ItemLimit > MaxItems:
		return invalidf("items", fmt.Sprintf("item quota must be from 0 to %d", MaxItems))
	case p.CacheHitPercent < 0 || p.CacheHitPercent > 100:
		return invalidf("cache_hit_percent", "a cache hit's share of the charge must be a percentage from 0 to 100")
	}
	return nil
}

var _ bun.AfterScanRowHook = (*Plan)(nil)

// AfterScanRow reads a multiplier that Validate would refuse (a NaN saved before the rule; SQLite
// hands a stored NaN back as NULL, that is 0) as 1, so a corrupt row bills list price and still
// renders as JSON, instead of failing /v1/account and "plan list". Saving the plan again
// writes the 1.
func (p *Plan) AfterScanRow(context.Context) error {
	if !validMultiplier(p.CreditMultiplier) {
		p.CreditMultiplier = 1
	}
	return nil
}

// DefaultPlans are seeded by migrate (DESIGN.md section 4).
func DefaultPlans() []Plan {
	return []Plan{
		{ID: "free", CreditCap: 1000, RatePerMinute: 60, CreditMultiplier: 1, Capabilities: "typical<=1", SharpenMax: "stock", ProjectLimit: 3, ItemLimit: 100},
		{ID: "pro", CreditCap: 50000, RatePerMinute: 600, CreditMultiplier: 1, Capabilities: "all", SharpenMax: "stage3", ProjectLimit: 50, ItemLimit: 5000},
		{ID: "scale", CreditCap: 500000, RatePerMinute: 3000, CreditMultiplier: 1, Capabilities: "all", SharpenMax: "stage3+", ProjectLimit: 500, ItemLimit: 50000},
	}
}

// Store is the accounts store over the database.
type Store struct {
	DB *DB
	// periods remembers the credit-period rows known to exist (tenant|mode|start).
	periods sync.Map
}

// NewStore wraps a database.
func NewStore(db *DB) *Store { return &Store{DB: db} }

// SeedPlans inserts the default plans that do not exist yet; existing plans are left as edited.
func (s *Store) SeedPlans(ctx context.Context) (int, error) {
	n := 0
	for _, p := range DefaultPlans() {
		p := p
		p.CreatedAt, p.UpdatedAt = Now(), Now()
		res, err := s.DB.NewInsert().Model(&p).On("CONFLICT (id) DO NOTHING").Exec(ctx)
		if err != nil {
			return n, err
		}
		if c, _ := res.RowsAffected(); c > 0 {
			n++
		}
	}
	return n, nil
}

// Plan loads a plan by name.
func (s *Store) Plan(ctx context.Context, id string) (*Plan, error) {
	p := new(Plan)
	if !storable(id) {
		return p, ErrNotFound // no stored id holds one; the query would fail instead
	}
	err := s.DB.NewSelect().Model(p).Where("id = ?", id).Scan(ctx)
	return p, notFound(err)
}

// Plans lists all plans by name.
func (s *Store) Plans(ctx context.Context) ([]Plan, error) {
	var ps []Plan
	err := s.DB.NewSelect().Model(&ps).Order("id").Scan(ctx)
	return ps, err
}

// ErrExists is returned when creating something that already exists.
var ErrExists = errors.New("already exists")

// CreatePlan inserts a new plan.
func (s *Store) CreatePlan(ctx context.Context, p *Plan) error {
	if err := p.Validate(); err != nil {
		return err
	}
	p.CreatedAt, p.UpdatedAt = Now(), Now()
	res, err := s.DB.NewInsert().Model(p).On("CONFLICT (id) DO NOTHING").Exec(ctx)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("plan %q: %w", p.ID, ErrExists)
	}
	return nil
}

// UpdatePlan saves an edited plan.
func (s *Store) UpdatePlan(ctx context.Context, p *Plan) error {
	if err := p.Validate(); err != nil {
		return err
	}
	p.UpdatedAt = Now()
	res, err := s.DB.NewUpdate().Model(p).ExcludeColumn("created_at").WherePK().Exec(ctx)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}
