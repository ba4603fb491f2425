// Package lenienttest measures an adapter's lenient decode against the plain decode it replaces:
// the same answer bytes decoded with encoding/json into a plain struct of the same shape.
package lenienttest

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/capgate/capgate/providers/internal/lenient"
)

var (
	numberType  = reflect.TypeFor[json.Number]()
	anyType     = reflect.TypeFor[any]()
	rawType     = reflect.TypeFor[json.RawMessage]()
	lenientPath = reflect.TypeFor[lenient.Int]().PkgPath()
	plainOf     = map[reflect.Type]reflect.Type{
		reflect.TypeFor[lenient.Int]():   numberType, // a number or a numeric string
		reflect.TypeFor[lenient.Float](): numberType,
		reflect.TypeFor[lenient.Str]():   reflect.TypeFor[string](),
		reflect.TypeFor[lenient.Bool]():  reflect.TypeFor[bool](),
		reflect.TypeFor[lenient.ID]():    anyType, // a number or a string
	}
)

// Plain is the plain Go type an engineer would decode t's JSON into with encoding/json: lenient
// scalars become json.Number, string, bool and (for ids, numbers or strings) any; List[T] a
// slice; Obj[T] and Opt[T] a pointer; structs keep their field names and tags. A type that
// refers to itself is json.RawMessage where it recurs (reflect cannot build recursive types).
func Plain(t reflect.Type) reflect.Type {
	return plain(t, map[reflect.Type]bool{})
}

func plain(t reflect.Type, open map[reflect.Type]bool) reflect.Type {
	if p, ok := plainOf[t]; ok {
		return p
	}
	if open[t] {
		return rawType
	}
	if t.PkgPath() == lenientPath {
		switch {
		case strings.HasPrefix(t.Name(), "Obj["):
			return plain(t.Field(0).Type, open) // Obj[T]{V *T}: *T
		case strings.HasPrefix(t.Name(), "Opt["):
			return reflect.PointerTo(plain(t.Field(0).Type, open)) // Opt[T]{V T; OK bool}: *T
		}
	}
	open[t] = true
	defer delete(open, t)
	switch t.Kind() {
	case reflect.Struct:
		fields := make([]reflect.StructField, 0, t.NumField())
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			fields = append(fields, reflect.StructField{Name: f.Name, Type: plain(f.Type, open), Tag: f.Tag})
		}
		return reflect.StructOf(fields)
	case reflect.Slice:
		if t == rawType {
			return t
		}
		return reflect.SliceOf(plain(t.Elem(), open))
	case reflect.Pointer:
		return reflect.PointerTo(plain(t.Elem(), open))
	case reflect.Map:
		return reflect.MapOf(t.Key(), plain(t.Elem(), open))
	}
	return t
}

// Compare runs three sub-benchmarks over the same answer: "plain", encoding/json decoding it
// into Plain(T), the plain struct of the same shape; "lenient", lenient.Unmarshal into a T;
// "lenient+map", decodeAndMap, the adapter's own path from the answer's bytes to its records
// (decode and mapping). The plain decode keeps going past a value of another type, as
// encoding/json does, so it always reads the whole answer; a syntax error fails the benchmark.
func Compare[T any](b *testing.B, answer []byte, decodeAndMap func([]byte) error) {
	b.Helper()
	if err := lenient.Unmarshal(answer, new(T)); err != nil {
		b.Fatalf("lenient decode: %v", err)
	}
	if err := decodeAndMap(answer); err != nil {
		b.Fatalf("decode and map: %v", err)
	}
	pt := Plain(reflect.TypeFor[T]())
	b.Run("plain", func(b *testing.B) {
		b.SetBytes(int64(len(answer)))
		b.ReportAllocs()
		for b.Loop() {
			v := reflect.New(pt).Interface()
			if err := json.Unmarshal(answer, v); err != nil {
				if _, typeErr := errors.AsType[*json.UnmarshalTypeError](err); !typeErr {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("lenient", func(b *testing.B) {
		b.SetBytes(int64(len(answer)))
		b.ReportAllocs()
		for b.Loop() {
			if err := lenient.Unmarshal(answer, new(T)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("lenient+map", func(b *testing.B) {
		b.SetBytes(int64(len(answer)))
		b.ReportAllocs()
		for b.Loop() {
			if err := decodeAndMap(answer); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// DecodeAndMap is the usual adapter path: lenient.Unmarshal into a T, then mapRecords.
func DecodeAndMap[T any](mapRecords func(*T)) func([]byte) error {
	return func(answer []byte) error {
		v := new(T)
		if err := lenient.Unmarshal(answer, v); err != nil {
			return err
		}
		mapRecords(v)
		return nil
	}
}

// Answer reads a recorded answer.
func Answer(tb testing.TB, path string) []byte {
	tb.Helper()
	body, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return body
}
