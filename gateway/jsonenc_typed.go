package gateway

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Typed records (providers.Record.Data) are rendered by an encoder planned once per Go type:
// struct fields in the order of their json names, so a typed record writes the same bytes as the
// sorted map it replaced, whatever order its fields are declared in. Values are written as
// encoding/json writes them (HTML escaped strings, ES6 floats, omitempty and omitzero, nil
// slices and maps as null); a type with its own MarshalJSON or MarshalText goes through
// json.Marshal. TestTypedEncoderMatchesMarshal holds the two to the same bytes.

// typedEncoder appends the JSON of v (addressable or not).
type typedEncoder func(b []byte, v reflect.Value) ([]byte, error)

// structField is one field of a struct plan.
type structField struct {
	name      string
	key       []byte // "name":
	index     []int
	omitEmpty bool
	omitZero  bool
	enc       typedEncoder
}

// structPlan is a struct type's fields in json-name order.
type structPlan struct {
	fields []structField
}

var typedEncoders sync.Map // reflect.Type → typedEncoder

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	numberType        = reflect.TypeFor[json.Number]()
)

// encoderOf is the encoder of t, planned on first use.
func encoderOf(t reflect.Type) typedEncoder {
	if e, ok := typedEncoders.Load(t); ok {
		return e.(typedEncoder)
	}
	// A recursive type meets itself while being planned: the placeholder defers to the finished
	// encoder.
	var (
		wg  sync.WaitGroup
		enc typedEncoder
	)
	wg.Add(1)
	if e, loaded := typedEncoders.LoadOrStore(t, typedEncoder(func(b []byte, v reflect.Value) ([]byte, error) {
		wg.Wait()
		return enc(b, v)
	})); loaded {
		return e.(typedEncoder)
	}
	enc = newEncoder(t)
	wg.Done()
	typedEncoders.Store(t, enc)
	return enc
}

func newEncoder(t reflect.Type) typedEncoder {
	if t == rawType {
		return marshalValue // compacted, as encoding/json does
	}
	if t == numberType {
		return func(b []byte, v reflect.Value) ([]byte, error) { return appendAny(b, json.Number(v.String())) }
	}
	if t.Kind() != reflect.Pointer && (t.Implements(marshalerType) || t.Implements(textMarshalerType) ||
		reflect.PointerTo(t).Implements(marshalerType) || reflect.PointerTo(t).Implements(textMarshalerType)) {
		return marshalValue
	}
	switch t.Kind() {
	case reflect.String:
		return func(b []byte, v reflect.Value) ([]byte, error) { return appendString(b, v.String()), nil }
	case reflect.Bool:
		return func(b []byte, v reflect.Value) ([]byte, error) { return strconv.AppendBool(b, v.Bool()), nil }
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(b []byte, v reflect.Value) ([]byte, error) { return strconv.AppendInt(b, v.Int(), 10), nil }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return func(b []byte, v reflect.Value) ([]byte, error) { return strconv.AppendUint(b, v.Uint(), 10), nil }
	case reflect.Float64:
		return func(b []byte, v reflect.Value) ([]byte, error) { return appendFloat(b, v.Float()) }
	case reflect.Interface:
		return func(b []byte, v reflect.Value) ([]byte, error) {
			if v.IsNil() {
				return append(b, "null"...), nil
			}
			e := v.Elem()
			switch x := e.Interface().(type) {
			case string, bool, int, int64, float64, json.Number, map[string]any, []any, []string:
				return appendAny(b, x)
			}
			return encoderOf(e.Type())(b, e)
		}
	case reflect.Pointer:
		elem := encoderOf(t.Elem())
		return func(b []byte, v reflect.Value) ([]byte, error) {
			if v.IsNil() {
				return append(b, "null"...), nil
			}
			return elem(b, v.Elem())
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return marshalValue // base64, as encoding/json writes []byte
		}
		elem := encoderOf(t.Elem())
		return func(b []byte, v reflect.Value) ([]byte, error) {
			if v.IsNil() {
				return append(b, "null"...), nil
			}
			return appendElems(b, v, elem)
		}
	case reflect.Array:
		elem := encoderOf(t.Elem())
		return func(b []byte, v reflect.Value) ([]byte, error) { return appendElems(b, v, elem) }
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return marshalValue
		}
		elem := encoderOf(t.Elem())
		return func(b []byte, v reflect.Value) ([]byte, error) { return appendMap(b, v, elem) }
	case reflect.Struct:
		p := planOf(t)
		if p == nil {
			return marshalValue
		}
		return func(b []byte, v reflect.Value) ([]byte, error) { return p.appendObject(b, v) }
	}
	return marshalValue // float32, complex, chan, func: encoding/json's own answer or error
}

func marshalValue(b []byte, v reflect.Value) ([]byte, error) { return marshalInto(b, v.Interface()) }

func appendElems(b []byte, v reflect.Value, elem typedEncoder) ([]byte, error) {
	b = append(b, '[')
	var err error
	for i := range v.Len() {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = elem(b, v.Index(i)); err != nil {
			return b, err
		}
	}
	return append(b, ']'), nil
}

func appendMap(b []byte, v reflect.Value, elem typedEncoder) ([]byte, error) {
	if v.IsNil() {
		return append(b, "null"...), nil
	}
	keys := v.MapKeys()
	slices.SortFunc(keys, func(x, y reflect.Value) int { return strings.Compare(x.String(), y.String()) })
	b = append(b, '{')
	var err error
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k.String())
		b = append(b, ':')
		if b, err = elem(b, v.MapIndex(k)); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

var structPlans sync.Map // reflect.Type → *structPlan (nil: left to encoding/json)

// planOf is t's struct plan, made on first use; nil when encoding/json renders t.
func planOf(t reflect.Type) *structPlan {
	if p, ok := structPlans.Load(t); ok {
		return p.(*structPlan)
	}
	var plan *structPlan
	if p, ok := planStruct(t); ok {
		plan = &p
	}
	structPlans.Store(t, plan)
	return plan
}

// planStruct lists t's encoded fields in json-name order; ok is false for what the plan does not
// cover (embedded structs, the string option), which then goes through encoding/json.
func planStruct(t reflect.Type) (structPlan, bool) {
	var p structPlan
	for i := range t.NumField() {
		f := t.Field(i)
		tag, hasTag := f.Tag.Lookup("json")
		if tag == "-" {
			continue
		}
		if f.Anonymous {
			return p, false
		}
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if !hasTag || name == "" {
			name = f.Name
		}
		sf := structField{name: name, index: f.Index}
		for o := range strings.SplitSeq(opts, ",") {
			switch o {
			case "omitempty":
				sf.omitEmpty = true
			case "omitzero":
				sf.omitZero = true
			case "string":
				return p, false
			}
		}
		if strings.ContainsAny(name, "\"\\<>&") {
			return p, false
		}
		sf.key = append(appendString(nil, name), ':')
		sf.enc = encoderOf(f.Type)
		p.fields = append(p.fields, sf)
	}
	slices.SortStableFunc(p.fields, func(a, b structField) int { return strings.Compare(a.name, b.name) })
	for i := 1; i < len(p.fields); i++ {
		if p.fields[i].name == p.fields[i-1].name {
			return p, false // encoding/json's duplicate-name rules
		}
	}
	return p, true
}

// skip reports whether a field's value is left out.
func (f *structField) skip(v reflect.Value) bool {
	return (f.omitEmpty && isEmptyValue(v)) || (f.omitZero && isZeroValue(v))
}

func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

func isZeroValue(v reflect.Value) bool {
	if z, ok := v.Interface().(interface{ IsZero() bool }); ok {
		if v.Kind() == reflect.Pointer && v.IsNil() {
			return true
		}
		return z.IsZero()
	}
	return v.IsZero()
}

func (p *structPlan) appendObject(b []byte, v reflect.Value) ([]byte, error) {
	b = append(b, '{')
	first := true
	var err error
	for i := range p.fields {
		f := &p.fields[i]
		fv := v.FieldByIndex(f.index)
		if f.skip(fv) {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, f.key...)
		if b, err = f.enc(b, fv); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// baseKey is one of the keys every record has besides its capability's own.
type baseKey struct {
	name  string
	value string
}

// appendRecordObject renders a record: the typed data's fields (a pointer to a struct) merged
// with the base keys (sorted by name, empty values already left out) and any map fields, in
// key order. A key of the data or the map that a base key also names is the base key's.
func appendRecordObject(b []byte, base []baseKey, data any, fields map[string]any) ([]byte, error) {
	v := reflect.ValueOf(data)
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return b, fmt.Errorf("record data is a nil %s", v.Type())
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return b, fmt.Errorf("record data is a %s, not a struct", v.Type())
	}
	p := planOf(v.Type())
	if p == nil || len(fields) > 0 {
		return appendMergedRecord(b, base, v, encoderOf(v.Type()), fields)
	}
	b = append(b, '{')
	first := true
	comma := func() {
		if !first {
			b = append(b, ',')
		}
		first = false
	}
	bi := 0
	var err error
	for i := range p.fields {
		f := &p.fields[i]
		for bi < len(base) && base[bi].name <= f.name {
			comma()
			b = appendString(b, base[bi].name)
			b = append(b, ':')
			b = appendString(b, base[bi].value)
			bi++
		}
		if isBaseKey(f.name) {
			continue // the record's own: left out when empty, never taken from the data
		}
		fv := v.FieldByIndex(f.index)
		if f.skip(fv) {
			continue
		}
		comma()
		b = append(b, f.key...)
		if b, err = f.enc(b, fv); err != nil {
			return b, err
		}
	}
	for ; bi < len(base); bi++ {
		comma()
		b = appendString(b, base[bi].name)
		b = append(b, ':')
		b = appendString(b, base[bi].value)
	}
	return append(b, '}'), nil
}

func isBaseKey(k string) bool {
	switch k {
	case "record_id", "title", "url", "snippet":
		return true
	}
	return false
}

// appendMergedRecord is the general path: typed data and map fields together (a capability part
// way through its conversion), or a struct the plan leaves to encoding/json.
func appendMergedRecord(b []byte, base []baseKey, v reflect.Value, enc typedEncoder, fields map[string]any) ([]byte, error) {
	obj, err := enc(nil, v)
	if err != nil {
		return b, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(obj, &m); err != nil {
		return b, err
	}
	for _, k := range []string{"record_id", "title", "url", "snippet"} {
		delete(m, k)
	}
	for k, val := range fields {
		if isBaseKey(k) {
			continue
		}
		raw, err := appendAny(nil, val)
		if err != nil {
			return b, err
		}
		m[k] = raw
	}
	for _, k := range base {
		m[k.name] = appendString(nil, k.value)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		b = append(b, m[k]...)
	}
	return append(b, '}'), nil
}
