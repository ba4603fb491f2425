package lenient

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"unsafe"

	"github.com/valyala/fastjson"
)

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
