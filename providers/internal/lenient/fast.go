package lenient

import (
	"encoding"
	jsonv1 "encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/go-json-experiment/json"
	"github.com/valyala/fastjson"
)

// The fast path: the answer is parsed into a fastjson value tree (a pooled parser, no
// allocation per value) and bound to the Go value through a plan computed once per type with
// reflection. It gives exactly what the streaming path gives; whatever it cannot do the same way
// goes to the streaming path: a type the plan does not support (decided once per top-level
// type), input that is not valid JSON (for the streaming path's error), nesting deeper than
// fastjson's limit, escapes fastjson reads differently (see escapes), and a type error of a
// plain field that fails the whole call (for the streaming path's error).

// bind decodes v into the Go value at p. false is a type error of a plain value (encoding/json's
// UnmarshalTypeError): the enclosing List element, Obj or Opt is not there, or the call fails.
type bind func(d *decoder, p unsafe.Pointer, v *fastjson.Value) bool

// plan binds one Go type; bind is set once the type's plan is complete, so recursive types refer
// to their own plan.
type plan struct{ bind bind }

// fastBinder is implemented by the lenient types: they bind themselves.
type fastBinder interface {
	fastBind(pl *planner) bind
}

// decoder is the pooled per-call state.
type decoder struct {
	parser  fastjson.Parser
	scratch []byte // a number's text
	// arena holds the text of the strings a call keeps: one allocation for many strings. It
	// belongs to the decoded value, so it is dropped, never reused, when the call ends.
	arena     []byte
	arenaSize int
}

// keep copies s (which points into the parser's buffer) into the arena.
func (d *decoder) keep(s string) string {
	if len(s) == 0 {
		return ""
	}
	if cap(d.arena)-len(d.arena) < len(s) {
		if len(s) > d.arenaSize/4 {
			return strings.Clone(s)
		}
		d.arena = make([]byte, 0, d.arenaSize)
	}
	start := len(d.arena)
	d.arena = append(d.arena, s...)
	return unsafe.String(&d.arena[start], len(s))
}

// keepInt is the decimal text of i in the arena.
func (d *decoder) keepInt(i int64) string {
	var buf [20]byte
	b := strconv.AppendInt(buf[:0], i, 10)
	return d.keep(unsafe.String(unsafe.SliceData(b), len(b)))
}

var (
	plans    sync.Map // reflect.Type → *plan; a nil *plan means the streaming path
	decoders = sync.Pool{New: func() any { return new(decoder) }}
)

// fastLimit sends answers above it to the streaming path: fastjson's value tree of a huge answer
// takes many times its size in memory, which the streaming path does not.
const fastLimit = 1 << 20

// unmarshalFast decodes data into v and tells whether it did; when it did not, v must be decoded
// by the streaming path (v may hold part of a value after a type error).
func unmarshalFast(data []byte, v any) bool {
	t := reflect.TypeOf(v)
	if t == nil || t.Kind() != reflect.Pointer {
		return false
	}
	ptr := reflect.ValueOf(v).UnsafePointer()
	if ptr == nil {
		return false
	}
	if len(data) > fastLimit {
		return false
	}
	pl := planFor(t.Elem())
	if pl == nil {
		return false
	}
	escapedControls, ok := escapes(data)
	if !ok {
		return false
	}
	d := decoders.Get().(*decoder)
	d.arenaSize = min(max(len(data)/4, 512), 16<<10)
	defer func() {
		d.arena = nil
		decoders.Put(d)
	}()
	root, err := d.parser.ParseBytes(data)
	if err != nil {
		return false // malformed, or deeper than fastjson.MaxDepth
	}
	// fastjson's parser accepts more than JSON: loose numbers, NaN, raw control characters and
	// any escape in strings. escapes has checked the escapes; the value tree has every number,
	// and every string and member name once, so its strings hold exactly as many control
	// characters as there are escapes of one unless a string holds a raw one.
	if controls, ok := d.grammatical(root); !ok || controls != escapedControls {
		return false
	}
	return pl.bind(d, ptr, root)
}

// planFor is the cached plan of a top-level type, nil when the streaming path decodes it.
func planFor(t reflect.Type) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	pl := &planner{plans: map[reflect.Type]*plan{}}
	p := pl.plan(t)
	if pl.unsupported {
		p = nil
	}
	plans.Store(t, p)
	return p
}

// planner builds the plans of one top-level type and everything it reaches.
type planner struct {
	plans       map[reflect.Type]*plan
	unsupported bool
}

func (pl *planner) plan(t reflect.Type) *plan {
	if p, ok := pl.plans[t]; ok {
		return p
	}
	p := &plan{}
	pl.plans[t] = p
	p.bind = pl.build(t)
	if p.bind == nil {
		pl.unsupported = true
	}
	return p
}

var (
	fastBinderType = reflect.TypeFor[fastBinder]()
	// Types that decode themselves, and types encoding/json treats specially.
	customTypes = []reflect.Type{
		reflect.TypeFor[jsonv1.Unmarshaler](),
		reflect.TypeFor[encoding.TextUnmarshaler](),
		reflect.TypeFor[json.UnmarshalerFrom](),
		reflect.TypeFor[json.Unmarshaler](),
	}
	specialTypes = map[reflect.Type]bool{
		reflect.TypeFor[jsonv1.Number](): true,
		reflect.TypeFor[time.Duration](): true,
	}
)

// build returns the binder of t, nil when t is not supported.
func (pl *planner) build(t reflect.Type) bind {
	if t.Kind() == reflect.Pointer && t.Name() == "" {
		return pl.bindPointer(t) // *T has the methods of T
	}
	pt := reflect.PointerTo(t)
	// Only the lenient types themselves: a type embedding one has its methods too.
	if t.PkgPath() == fastBinderType.PkgPath() && pt.Implements(fastBinderType) {
		return reflect.New(t).Interface().(fastBinder).fastBind(pl)
	}
	for _, c := range customTypes {
		if t.Implements(c) || pt.Implements(c) {
			return nil
		}
	}
	if specialTypes[t] {
		return nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return bindBool
	case reflect.String:
		return bindString
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return bindInt(t)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return bindUint(t)
	case reflect.Float32, reflect.Float64:
		return bindFloat(t)
	case reflect.Interface:
		if t.NumMethod() != 0 {
			return nil
		}
		return bindAny
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil // []byte is base64 text
		}
		return pl.bindSlice(t)
	case reflect.Map:
		if t.Key().Kind() != reflect.String || pl.build(t.Key()) == nil {
			return nil
		}
		return pl.bindMap(t)
	case reflect.Struct:
		return pl.bindStruct(t)
	}
	return nil
}
