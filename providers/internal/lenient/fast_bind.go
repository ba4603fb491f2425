package lenient

import (
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/valyala/fastjson"
)

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
