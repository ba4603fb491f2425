package lenient

import (
	"bytes"
	"encoding"
	"encoding/binary"
	jsonv1 "encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
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

// text is a string value as the streaming path reads it: escapes undone, invalid UTF-8 bytes
// replaced. It points into the parser's buffer: copy what is kept.
func text(v *fastjson.Value) string {
	b, _ := v.StringBytes()
	return validUTF8(unsafe.String(unsafe.SliceData(b), len(b)))
}

// validUTF8 replaces every byte that is not part of a UTF-8 sequence with U+FFFD, as
// encoding/json does.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = utf8.AppendRune(b, utf8.RuneError)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// numberText is a JSON number's literal text, valid until the next call.
func (d *decoder) numberText(v *fastjson.Value) string {
	d.scratch = v.MarshalTo(d.scratch[:0])
	return unsafe.String(unsafe.SliceData(d.scratch), len(d.scratch))
}

// escapes counts the escapes of control characters in data and tells whether fastjson reads
// every escape as encoding/json does: not an escape JSON does not have (fastjson keeps it as
// text) or an escaped UTF-16 surrogate that is not part of a valid pair (fastjson keeps it as
// text, encoding/json writes U+FFFD). Outside strings valid JSON has no backslash, inside a
// backslash always starts an escape, so escapes are found by walking from one backslash to the
// next.
func escapes(data []byte) (controls int, ok bool) {
	for i := 0; i < len(data); {
		j := bytes.IndexByte(data[i:], '\\')
		if j < 0 {
			break
		}
		i += j
		if i+1 >= len(data) {
			return 0, false
		}
		switch data[i+1] {
		case '"', '\\', '/':
			i += 2
		case 'b', 'f', 'n', 'r', 't':
			controls++
			i += 2
		case 'u':
			r, ok := hex4(data, i+2)
			switch {
			case !ok || r >= 0xDC00 && r <= 0xDFFF:
				return 0, false
			case r < 0x20:
				controls++
				i += 6
			case r < 0xD800 || r > 0xDFFF:
				i += 6
			default:
				if i+7 >= len(data) || data[i+6] != '\\' || data[i+7] != 'u' {
					return 0, false
				}
				if r2, ok := hex4(data, i+8); !ok || r2 < 0xDC00 || r2 > 0xDFFF {
					return 0, false
				}
				i += 12
			}
		default:
			return 0, false
		}
	}
	return controls, true
}

// grammatical tells whether every number in the tree is a JSON number, and counts the control
// characters of its strings and member names.
func (d *decoder) grammatical(v *fastjson.Value) (controls int, ok bool) {
	switch v.Type() {
	case fastjson.TypeNumber:
		return 0, jsonNumber(d.numberText(v))
	case fastjson.TypeString:
		b, _ := v.StringBytes()
		return countControls(b), true
	case fastjson.TypeArray:
		arr, _ := v.Array()
		for _, e := range arr {
			n, ok := d.grammatical(e)
			if !ok {
				return 0, false
			}
			controls += n
		}
	case fastjson.TypeObject:
		o, _ := v.Object()
		ok = true
		o.Visit(func(key []byte, e *fastjson.Value) {
			if !ok {
				return
			}
			n, eok := d.grammatical(e)
			controls += countControls(key) + n
			ok = eok
		})
		return controls, ok
	}
	return controls, true
}

// countControls counts the bytes of b below 0x20, skipping eight bytes at a time where there are
// none: (x - 0x20 in every byte) & ^x & 0x80 in every byte is zero exactly when no byte of x is
// below 0x20.
func countControls(b []byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	n, i := 0, 0
	for ; i+8 <= len(b); i += 8 {
		if x := binary.LittleEndian.Uint64(b[i:]); (x-0x20*ones)&^x&highs == 0 {
			continue
		}
		for _, c := range b[i : i+8] {
			if c < 0x20 {
				n++
			}
		}
	}
	for _, c := range b[i:] {
		if c < 0x20 {
			n++
		}
	}
	return n
}

// jsonNumber tells whether s is a number in JSON's grammar.
func jsonNumber(s string) bool {
	i := 0
	digits := func() int {
		start := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		return i - start
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

func hex4(data []byte, at int) (rune, bool) {
	if at+4 > len(data) {
		return 0, false
	}
	var r rune
	for _, c := range data[at : at+4] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// Plain values, with encoding/json's semantics: null leaves a bool, number, string or struct
// as it is and sets a pointer, slice, map or interface to nil; another JSON type is a type
// error.

func bindBool(_ *decoder, p unsafe.Pointer, v *fastjson.Value) bool {
	switch v.Type() {
	case fastjson.TypeNull:
	case fastjson.TypeTrue:
		*(*bool)(p) = true
	case fastjson.TypeFalse:
		*(*bool)(p) = false
	default:
		return false
	}
	return true
}

func bindString(d *decoder, p unsafe.Pointer, v *fastjson.Value) bool {
	switch v.Type() {
	case fastjson.TypeNull:
	case fastjson.TypeString:
		*(*string)(p) = d.keep(text(v))
	default:
		return false
	}
	return true
}

func bindInt(t reflect.Type) bind {
	bits := t.Bits()
	return func(d *decoder, p unsafe.Pointer, v *fastjson.Value) bool {
		switch v.Type() {
		case fastjson.TypeNull:
			return true
		case fastjson.TypeNumber:
		default:
			return false
		}
		n, err := strconv.ParseInt(d.numberText(v), 10, bits)
		if err != nil {
			return false
		}
		switch bits {
		case 8:
			*(*int8)(p) = int8(n)
		case 16:
			*(*int16)(p) = int16(n)
		case 32:
			*(*int32)(p) = int32(n)
		default:
			*(*int64)(p) = n
		}
		return true
	}
}

func bindUint(t reflect.Type) bind {
	bits := t.Bits()
	return func(d *decoder, p unsafe.Pointer, v *fastjson.Value) bool {
		switch v.Type() {
		case fastjson.TypeNull:
			return true
		case fastjson.TypeNumber:
		default:
			return false
		}
		n, err := strconv.ParseUint(d.numberText(v), 10, bits)
		if err != nil {
			return false
		}
		switch bits {
		case 8:
			*(*uint8)(p) = uint8(n)
		case 16:
			*(*uint16)(p) = uint16(n)
		case 32:
			*(*uint32)(p) = uint32(n)
		default:
			*(*uint64)(p) = n
		}
		return true
	}
}

func bindFloat(t reflect.Type) bind {
	bits := t.Bits()
	return func(d *decoder, p unsafe.Pointer, v *fastjson.Value) bool {
		switch v.Type() {
		case fastjson.TypeNull:
			return true
		case fastjson.TypeNumber:
		default:
			return false
		}
		f, err := strconv.ParseFloat(d.numberText(v), bits)
		if err != nil {
			return false
		}
		if bits == 32 {
			*(*float32)(p) = float32(f)
		} else {
			*(*float64)(p) = f
		}
		return true
	}
}

// bindAny decodes like encoding/json into an empty interface: map[string]any, []any, float64,
// string, bool or nil.
func bindAny(d *decoder, p unsafe.Pointer, v *fastjson.Value) bool {
	a, ok := d.anyValue(v)
	if ok {
		*(*any)(p) = a
	}
	return ok
}

func (d *decoder) anyValue(v *fastjson.Value) (any, bool) {
	switch v.Type() {
	case fastjson.TypeNull:
		return nil, true
	case fastjson.TypeTrue:
		return true, true
	case fastjson.TypeFalse:
		return false, true
	case fastjson.TypeString:
		return d.keep(text(v)), true
	case fastjson.TypeNumber:
		f, err := strconv.ParseFloat(d.numberText(v), 64)
		return f, err == nil
	case fastjson.TypeArray:
		arr, _ := v.Array()
		out := make([]any, len(arr))
		for i, e := range arr {
			a, ok := d.anyValue(e)
			if !ok {
				return nil, false
			}
			out[i] = a
		}
		return out, true
	default:
		o, _ := v.Object()
		out := make(map[string]any, o.Len())
		ok := true
		o.Visit(func(key []byte, e *fastjson.Value) {
			if !ok {
				return
			}
			var a any
			if a, ok = d.anyValue(e); ok {
				out[d.keyString(key)] = a
			}
		})
		return out, ok
	}
}

// keyString is an object member's name as a Go string of its own.
func (d *decoder) keyString(key []byte) string {
	return d.keep(validUTF8(unsafe.String(unsafe.SliceData(key), len(key))))
}

func (pl *planner) bindPointer(t reflect.Type) bind {
	elemType := t.Elem()
	elem := pl.plan(elemType)
	return func(d *decoder, p unsafe.Pointer, v *fastjson.Value) bool {
		pp := (*unsafe.Pointer)(p)
		if v.Type() == fastjson.TypeNull {
			*pp = nil
			return true
		}
		if *pp == nil {
			*pp = reflect.New(elemType).UnsafePointer()
		}
		return elem.bind(d, *pp, v)
	}
}

// bindSlice reuses the slice's array and merges into its elements, as encoding/json does; an
// empty JSON array is an empty, non-nil slice.
func (pl *planner) bindSlice(t reflect.Type) bind {
	elemType := t.Elem()
	elem := pl.plan(elemType)
	size := elemType.Size()
	return func(d *decoder, p unsafe.Pointer, v *fastjson.Value) bool {
		switch v.Type() {
		case fastjson.TypeNull:
			reflect.NewAt(t, p).Elem().SetZero()
			return true
		case fastjson.TypeArray:
		default:
			return false
		}
		arr, _ := v.Array()
		s := reflect.NewAt(t, p).Elem()
		if s.Cap() < len(arr) || s.IsNil() {
			grown := reflect.MakeSlice(t, s.Len(), max(len(arr), s.Len()))
			reflect.Copy(grown, s)
			s.Set(grown)
		}
		s.SetLen(len(arr))
		base := s.UnsafePointer()
		for i, e := range arr {
			if !elem.bind(d, unsafe.Add(base, uintptr(i)*size), e) {
				return false
			}
		}
		return true
	}
}

// bindMap adds to the map (made when nil); each member decodes into a new value.
func (pl *planner) bindMap(t reflect.Type) bind {
	elemType := t.Elem()
	elem := pl.plan(elemType)
	keyType := t.Key()
	return func(d *decoder, p unsafe.Pointer, v *fastjson.Value) bool {
		m := reflect.NewAt(t, p).Elem()
		switch v.Type() {
		case fastjson.TypeNull:
			m.SetZero()
			return true
		case fastjson.TypeObject:
		default:
			return false
		}
		o, _ := v.Object()
		if m.IsNil() {
			m.Set(reflect.MakeMapWithSize(t, o.Len()))
		}
		ok := true
		o.Visit(func(key []byte, e *fastjson.Value) {
			if !ok {
				return
			}
			ev := reflect.New(elemType)
			if ok = elem.bind(d, ev.UnsafePointer(), e); ok {
				m.SetMapIndex(reflect.ValueOf(d.keyString(key)).Convert(keyType), ev.Elem())
			}
		})
		return ok
	}
}

type field struct {
	name   string
	offset uintptr
	plan   *plan
}

// structPlan finds a member's field as encoding/json does: the exact name first, then the
// first field whose name matches case-insensitively (strings.EqualFold).
type structPlan struct {
	fields []field
	byLen  [][]int // indexes of the fields by the length of their names, in field order
	ascii  bool    // every field name is ASCII (else matching takes the slow way)
}

func (sp *structPlan) lookup(key []byte) *field {
	if !sp.ascii {
		return sp.lookupSlow(key)
	}
	if len(key) < len(sp.byLen) {
		var folded *field
		for _, i := range sp.byLen[len(key)] {
			f := &sp.fields[i]
			if f.name == string(key) {
				return f
			}
			if folded == nil && asciiEqualFold(f.name, key) {
				folded = f
			}
		}
		if folded != nil {
			return folded
		}
	}
	// A name with non-ASCII letters may still fold to an ASCII one ("K" is "k").
	for _, c := range key {
		if c >= utf8.RuneSelf {
			return sp.lookupSlow(key)
		}
	}
	return nil
}

// asciiEqualFold is strings.EqualFold for an ASCII name and a key of the same length.
func asciiEqualFold(name string, key []byte) bool {
	for i := range len(key) {
		a, b := name[i], key[i]
		if a == b {
			continue
		}
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}

func (sp *structPlan) lookupSlow(key []byte) *field {
	for i := range sp.fields {
		if sp.fields[i].name == string(key) {
			return &sp.fields[i]
		}
	}
	k := validUTF8(unsafe.String(unsafe.SliceData(key), len(key)))
	for i := range sp.fields {
		if strings.EqualFold(k, sp.fields[i].name) {
			return &sp.fields[i]
		}
	}
	return nil
}

func (pl *planner) bindStruct(t reflect.Type) bind {
	sp := &structPlan{ascii: true}
	names := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag, tagged := f.Tag.Lookup("json")
		if f.Anonymous {
			return nil // embedded structs: the streaming path
		}
		if !f.IsExported() {
			if tagged && tag != "-" {
				return nil
			}
			continue
		}
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		for opt := range strings.SplitSeq(opts, ",") {
			if opt != "" && opt != "omitempty" && opt != "omitzero" {
				return nil // ",string" and json v2's options
			}
		}
		if name == "" {
			name = f.Name
		}
		if !plainName(name) {
			return nil
		}
		if names[name] {
			return nil
		}
		names[name] = true
		for len(sp.byLen) <= len(name) {
			sp.byLen = append(sp.byLen, nil)
		}
		sp.byLen[len(name)] = append(sp.byLen[len(name)], len(sp.fields))
		for _, c := range []byte(name) {
			if c >= utf8.RuneSelf {
				sp.ascii = false
			}
		}
		sp.fields = append(sp.fields, field{name: name, offset: f.Offset, plan: pl.plan(f.Type)})
	}
	return func(d *decoder, p unsafe.Pointer, v *fastjson.Value) bool {
		switch v.Type() {
		case fastjson.TypeNull:
			return true
		case fastjson.TypeObject:
		default:
			return false
		}
		o, _ := v.Object()
		ok := true
		o.Visit(func(key []byte, e *fastjson.Value) {
			if !ok {
				return
			}
			if f := sp.lookup(key); f != nil {
				ok = f.plan.bind(d, unsafe.Add(p, f.offset), e)
			}
		})
		return ok
	}
}

// plainName tells whether a tag's name is one both decoders read the same way: letters, digits
// and common punctuation, no quotes.
func plainName(name string) bool {
	for _, r := range name {
		switch {
		case r == '_' || r == '-' || r == '.' || r == '$' || r == '@' || r == ':' || r == '/' || r == ' ':
		case r >= utf8.RuneSelf || ('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z'):
		default:
			return false
		}
	}
	return true
}

// The lenient types.

// lenientNumber is number for the fast path.
func (d *decoder) lenientNumber(v *fastjson.Value) (float64, bool) {
	var s string
	switch v.Type() {
	case fastjson.TypeNumber:
		s = d.numberText(v)
	case fastjson.TypeString:
		b, _ := v.StringBytes()
		s = strings.TrimSpace(unsafe.String(unsafe.SliceData(b), len(b)))
	default:
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

func (*Int) fastBind(*planner) bind {
	return func(d *decoder, p unsafe.Pointer, v *fastjson.Value) bool {
		n := (*Int)(p)
		*n = Int{}
		if f, ok := d.lenientNumber(v); ok && f == math.Trunc(f) && math.Abs(f) <= 1<<53 {
			*n = Int{V: int64(f), OK: true}
		}
		return true
	}
}

func (*Float) fastBind(*planner) bind {
	return func(d *decoder, p unsafe.Pointer, v *fastjson.Value) bool {
		n := (*Float)(p)
		*n = Float{}
		if f, ok := d.lenientNumber(v); ok {
			*n = Float{V: f, OK: true}
		}
		return true
	}
}

// trimmed is a string value trimmed, as a Go string of its own.
func (d *decoder) trimmed(v *fastjson.Value) string {
	return d.keep(strings.TrimSpace(text(v)))
}

func (*Str) fastBind(*planner) bind {
	return func(d *decoder, p unsafe.Pointer, v *fastjson.Value) bool {
		s := (*Str)(p)
		*s = ""
		if v.Type() == fastjson.TypeString {
			*s = Str(d.trimmed(v))
		}
		return true
	}
}

func (*Bool) fastBind(*planner) bind {
	return func(_ *decoder, p unsafe.Pointer, v *fastjson.Value) bool {
		o := (*Bool)(p)
		switch v.Type() {
		case fastjson.TypeTrue:
			*o = Bool{V: true, OK: true}
		case fastjson.TypeFalse:
			*o = Bool{V: false, OK: true}
		default:
			*o = Bool{}
		}
		return true
	}
}

func (*ID) fastBind(*planner) bind {
	return func(d *decoder, p unsafe.Pointer, v *fastjson.Value) bool {
		id := (*ID)(p)
		*id = ""
		switch v.Type() {
		case fastjson.TypeString:
			*id = ID(d.trimmed(v))
		case fastjson.TypeNumber:
			if i, err := strconv.ParseInt(d.numberText(v), 10, 64); err == nil {
				*id = ID(d.keepInt(i))
			}
		}
		return true
	}
}

func (*Strs) fastBind(*planner) bind {
	return func(d *decoder, p unsafe.Pointer, v *fastjson.Value) bool {
		s := (*Strs)(p)
		*s = nil
		arr, _ := v.Array()
		for _, e := range arr {
			if e.Type() != fastjson.TypeString {
				continue
			}
			if t := d.trimmed(e); t != "" {
				*s = append(*s, t)
			}
		}
		return true
	}
}

func (*List[T]) fastBind(pl *planner) bind {
	elem := pl.plan(reflect.TypeFor[T]())
	return func(d *decoder, p unsafe.Pointer, v *fastjson.Value) bool {
		l := (*List[T])(p)
		*l = nil
		if v.Type() != fastjson.TypeArray {
			return true
		}
		arr, _ := v.Array()
		out := make(List[T], 0, len(arr))
		var zero T
		for _, e := range arr {
			if e.Type() == fastjson.TypeNull {
				continue
			}
			out = append(out, zero)
			if !elem.bind(d, unsafe.Pointer(&out[len(out)-1]), e) {
				out = out[:len(out)-1]
			}
		}
		*l = out
		return true
	}
}

func (*Obj[T]) fastBind(pl *planner) bind {
	elem := pl.plan(reflect.TypeFor[T]())
	return func(d *decoder, p unsafe.Pointer, v *fastjson.Value) bool {
		o := (*Obj[T])(p)
		o.V = nil
		if v.Type() != fastjson.TypeObject {
			return true
		}
		nv := new(T)
		if elem.bind(d, unsafe.Pointer(nv), v) {
			o.V = nv
		}
		return true
	}
}

func (*Opt[T]) fastBind(pl *planner) bind {
	elem := pl.plan(reflect.TypeFor[T]())
	return func(d *decoder, p unsafe.Pointer, v *fastjson.Value) bool {
		o := (*Opt[T])(p)
		*o = Opt[T]{}
		if v.Type() == fastjson.TypeNull {
			return true
		}
		if elem.bind(d, unsafe.Pointer(&o.V), v) {
			o.OK = true
		} else {
			var zero T
			o.V = zero
		}
		return true
	}
}
