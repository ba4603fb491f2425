package lenienttest

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/capgate/capgate/providers/internal/lenient"
)

type inner struct {
	N lenient.Int `json:"n"`
}

type shape struct {
	S    lenient.Str                      `json:"s"`
	F    lenient.Float                    `json:"f"`
	B    lenient.Bool                     `json:"b"`
	ID   lenient.ID                       `json:"id"`
	L    lenient.List[inner]              `json:"l"`
	O    lenient.Obj[inner]               `json:"o"`
	P    lenient.Opt[inner]               `json:"p"`
	SS   lenient.Strs                     `json:"ss"`
	M    map[string]lenient.Str           `json:"m"`
	Raw  json.RawMessage                  `json:"raw"`
	Self lenient.Obj[shape]               `json:"self"`
	hid  int                              //nolint:unused // unexported fields are left out
	Deep lenient.List[lenient.Opt[inner]] `json:"deep"`
}

func TestPlain(t *testing.T) {
	got := Plain(reflect.TypeFor[shape]())
	innerPlain := reflect.StructOf([]reflect.StructField{{Name: "N", Type: reflect.TypeFor[json.Number](), Tag: `json:"n"`}})
	want := map[string]reflect.Type{
		"S": reflect.TypeFor[string](), "F": reflect.TypeFor[json.Number](), "B": reflect.TypeFor[bool](),
		"ID": reflect.TypeFor[any](), "L": reflect.SliceOf(innerPlain), "O": reflect.PointerTo(innerPlain),
		"P": reflect.PointerTo(innerPlain), "SS": reflect.TypeFor[[]string](), "M": reflect.TypeFor[map[string]string](),
		"Raw": reflect.TypeFor[json.RawMessage](), "Self": reflect.TypeFor[*json.RawMessage](),
		"Deep": reflect.SliceOf(reflect.PointerTo(innerPlain)),
	}
	if got.NumField() != len(want) {
		t.Fatalf("%d fields: %v", got.NumField(), got)
	}
	for name, w := range want {
		f, ok := got.FieldByName(name)
		if !ok || f.Type != w {
			t.Errorf("%s: %v, want %v", name, f.Type, w)
		}
	}
	// The plain type decodes what the lenient one does when every value has its documented type.
	in := `{"s":"x","f":1.5,"b":true,"id":7,"l":[{"n":1}],"o":{"n":2},"p":{"n":3},"ss":["a"],"m":{"k":"v"},"raw":[1],"self":{"s":"y"},"deep":[{"n":4}]}`
	v := reflect.New(got).Interface()
	if err := json.Unmarshal([]byte(in), v); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	if string(b) != `{"s":"x","f":1.5,"b":true,"id":7,"l":[{"n":1}],"o":{"n":2},"p":{"n":3},"ss":["a"],"m":{"k":"v"},"raw":[1],"self":{"s":"y"},"deep":[{"n":4}]}` {
		t.Errorf("plain round trip: %s", b)
	}
}
