package lenient_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/capgate/capgate/providers/internal/lenient"
)

type decoder struct {
	name   string
	decode func([]byte, any) error
}

// decoders are the ways an adapter reaches the lenient types: lenient.Unmarshal's two paths, the
// fast one (which must take the input) and the streaming one, and encoding/json (which calls
// UnmarshalJSON). All must give the same values.
var decoders = []decoder{
	{"fast", fastOnly},
	{"streaming", lenient.UnmarshalStreaming},
	{"encoding/json", json.Unmarshal},
}

// fastOnly fails when the fast path leaves the input to the streaming path.
func fastOnly(data []byte, v any) error {
	if !lenient.UnmarshalFast(data, v) {
		return errors.New("the fast path did not decode it")
	}
	return nil
}

type plainItem struct {
	A int
	B int
}

// all holds one field of every lenient type.
type all struct {
	I  lenient.Int
	F  lenient.Float
	S  lenient.Str
	B  lenient.Bool
	ID lenient.ID
	L  lenient.List[int]
	LS lenient.List[lenient.Str]
	LP lenient.List[plainItem]
	LL lenient.List[lenient.List[int]]
	O  lenient.Obj[plainItem]
	OL lenient.Obj[all]
	P  lenient.Opt[plainItem]
	PL lenient.Opt[[]lenient.Opt[int]]
	SS lenient.Strs
}

func TestContract(t *testing.T) {
	cases := []struct {
		name, in string
		want     all
	}{
		{"absent", `{}`, all{}},
		{"null everywhere", `{"I":null,"F":null,"S":null,"B":null,"ID":null,"L":null,"LS":null,"LP":null,"O":null,"OL":null}`, all{}},
		{"int", `{"I":3}`, all{I: lenient.Int{V: 3, OK: true}}},
		{"negative int", `{"I":-7}`, all{I: lenient.Int{V: -7, OK: true}}},
		{"numeric string int", `{"I":" 42 "}`, all{I: lenient.Int{V: 42, OK: true}}},
		{"exponent int", `{"I":1e3}`, all{I: lenient.Int{V: 1000, OK: true}}},
		{"fraction is not an int", `{"I":1.5}`, all{}},
		{"int beyond 2^53", `{"I":1e16}`, all{}},
		{"int string beyond 2^53", `{"I":"-9007199254740994"}`, all{}},
		{"int at 2^53", `{"I":9007199254740992}`, all{I: lenient.Int{V: 1 << 53, OK: true}}},
		{"non-numeric string int", `{"I":"12 apples"}`, all{}},
		{"NaN string", `{"I":"NaN","F":"NaN"}`, all{}},
		{"Inf string", `{"F":"-Inf"}`, all{}},
		{"overflowing float", `{"F":1e400}`, all{}},
		{"bool is not a number", `{"I":true,"F":false}`, all{}},
		{"object is not a number", `{"I":{"V":1},"F":[1]}`, all{}},
		{"float", `{"F":2.5}`, all{F: lenient.Float{V: 2.5, OK: true}}},
		{"numeric string float", `{"F":"2.5"}`, all{F: lenient.Float{V: 2.5, OK: true}}},
		{"escaped numeric string", `{"F":"\u0031.5"}`, all{F: lenient.Float{V: 1.5, OK: true}}},
		{"trimmed string", `{"S":"  hi \n"}`, all{S: "hi"}},
		{"blank string", `{"S":"   "}`, all{}},
		{"escaped string", `{"S":"caf\u00e9 \"x\""}`, all{S: `café "x"`}},
		{"number is not a string", `{"S":7}`, all{}},
		{"array is not a string", `{"S":["a"]}`, all{}},
		{"true", `{"B":true}`, all{B: lenient.Bool{V: true, OK: true}}},
		{"false", `{"B":false}`, all{B: lenient.Bool{V: false, OK: true}}},
		{"string is not a bool", `{"B":"yes"}`, all{}},
		{"number is not a bool", `{"B":1}`, all{}},
		{"numeric id", `{"ID":123}`, all{ID: "123"}},
		{"string id", `{"ID":" mb-1 "}`, all{ID: "mb-1"}},
		{"negative id", `{"ID":-5}`, all{ID: "-5"}},
		{"fractional id", `{"ID":1.5}`, all{}},
		{"id beyond int64", `{"ID":99999999999999999999}`, all{}},
		{"object id", `{"ID":{"id":1}}`, all{}},
		{"list", `{"L":[1,2]}`, all{L: lenient.List[int]{1, 2}}},
		{"empty list is present", `{"L":[]}`, all{L: lenient.List[int]{}}},
		{"list skips null and bad elements", `{"L":[null,1,"x",1.5,{},[],2,null]}`, all{L: lenient.List[int]{1, 2}}},
		{"non-list", `{"L":"nope","LS":{"a":1},"LP":3}`, all{}},
		{"list of lenient keeps mistyped elements as blank", `{"LS":[" a ",5,null,"b"]}`, all{LS: lenient.List[lenient.Str]{"a", "", "b"}}},
		{"list drops an element with a type error inside", `{"LP":[{"A":1,"B":"x","C":{"deep":[1,[2]]}},{"A":3,"B":4}]}`,
			all{LP: lenient.List[plainItem]{{A: 3, B: 4}}}},
		{"list drops an element whose error is deep", `{"LP":[{"A":[1,{"x":[2]}],"B":2},{"A":5}],"I":9}`,
			all{LP: lenient.List[plainItem]{{A: 5}}, I: lenient.Int{V: 9, OK: true}}},
		{"nested lists", `{"LL":[[1,"x"],"no",null,[],[3]]}`, all{LL: lenient.List[lenient.List[int]]{{1}, nil, {}, {3}}}},
		{"object", `{"O":{"A":1,"B":2}}`, all{O: lenient.Obj[plainItem]{V: &plainItem{A: 1, B: 2}}}},
		{"empty object is present", `{"O":{}}`, all{O: lenient.Obj[plainItem]{V: &plainItem{}}}},
		{"non-object", `{"O":[1],"OL":"x"}`, all{}},
		{"object with a type error is absent, the rest decodes", `{"O":{"A":"x","B":2},"S":"after"}`, all{S: "after"}},
		{"nested lenient object", `{"OL":{"I":"5","OL":{"S":"deep"}}}`,
			all{OL: lenient.Obj[all]{V: &all{I: lenient.Int{V: 5, OK: true}, OL: lenient.Obj[all]{V: &all{S: "deep"}}}}}},
		{"opt", `{"P":{"A":1}}`, all{P: lenient.Opt[plainItem]{V: plainItem{A: 1}, OK: true}}},
		{"opt of the wrong shape", `{"P":[1],"PL":{"a":1}}`, all{}},
		{"opt with a type error inside", `{"P":{"A":1,"B":"x"},"I":2}`, all{I: lenient.Int{V: 2, OK: true}}},
		{"opt list keeps absent elements", `{"PL":[1,null,"x"]}`,
			all{PL: lenient.Opt[[]lenient.Opt[int]]{V: []lenient.Opt[int]{{V: 1, OK: true}, {}, {}}, OK: true}}},
		{"strings", `{"SS":[" a ",1,"",null,"b",["c"]]}`, all{SS: lenient.Strs{"a", "b"}}},
		{"strings not a list", `{"SS":"a"}`, all{}},
		{"unknown members are ignored", `{"X":{"a":[1,2,{"b":null}]},"S":"kept"}`, all{S: "kept"}},
		{"names match case-insensitively", `{"s":"lower","i":1}`, all{S: "lower", I: lenient.Int{V: 1, OK: true}}},
		{"duplicate names: the last wins", `{"S":"first","S":"second","I":1,"I":"x"}`, all{S: "second"}},
		{"invalid UTF-8 is replaced", "{\"S\":\"a\xffb\"}", all{S: "a\uFFFDb"}},
	}
	for _, d := range decoders {
		for _, c := range cases {
			t.Run(d.name+"/"+c.name, func(t *testing.T) {
				var got all
				if err := d.decode([]byte(c.in), &got); err != nil {
					t.Fatalf("decode: %v", err)
				}
				if !reflect.DeepEqual(got, c.want) {
					t.Errorf("got  %s\nwant %s", dump(got), dump(c.want))
				}
			})
		}
	}
}

func dump(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// A top-level value of the wrong type still decodes: a page never fails because of one value.
func TestTopLevelNeverFails(t *testing.T) {
	for _, in := range []string{`null`, `[1,2]`, `"s"`, `12`, `true`, `{"L":{"a":[1]}}`} {
		for _, d := range decoders {
			var o lenient.Obj[all]
			if err := d.decode([]byte(in), &o); err != nil {
				t.Errorf("%s %s: %v", d.name, in, err)
			}
			var l lenient.List[all]
			if err := d.decode([]byte(in), &l); err != nil {
				t.Errorf("%s %s: %v", d.name, in, err)
			}
		}
	}
}

// Malformed JSON is an error (the adapter's provider_error), as it is with encoding/json.
func TestMalformed(t *testing.T) {
	for _, in := range []string{``, `{`, `{"S":"x"`, `{"L":[1,2}`, `{"S":"x"}}`, `{"S":x}`, `<html>`, `{"S":"x"} {}`, "\xef\xbb\xbf{}",
		// What fastjson's parser lets through and the fast path must catch.
		`{"I":NaN}`, `{"I":-inf}`, `{"I":Infinity}`, `{"I":01}`, `{"I":1.}`, `{"I":.5}`, `{"I":+1}`, `{"I":-}`, `{"I":1e}`, `{"I":1-2}`,
		`{"S":"\x"}`, `{"S":"\u12"}`, `{"S":"\u12G4"}`, "{\"S\":\"a\tb\"}", "{\"S\":\"a\tb\\n\"}", "{\"S\":\"\\n\x01\"}", "{\"S\x02\":1}", "[\"\x1f\"]"} {
		var v all
		if err := lenient.Unmarshal([]byte(in), &v); err == nil {
			t.Errorf("%q: no error", in)
		}
		if lenient.UnmarshalFast([]byte(in), &v) {
			t.Errorf("%q: the fast path decoded it", in)
		}
		if err := json.Unmarshal([]byte(in), &v); err == nil {
			t.Errorf("%q: encoding/json found no error either", in)
		}
	}
}

// Plain fields keep encoding/json's semantics under lenient.Unmarshal.
func TestPlainFields(t *testing.T) {
	type plain struct {
		Name    string          `json:"display_name"`
		Raw     json.RawMessage `json:"raw"`
		Any     any             `json:"any"`
		Ptr     *int            `json:"ptr"`
		Map     map[string]int  `json:"map"`
		Quoted  int             `json:"quoted,string"`
		Skipped string          `json:"-"`
		Embedded
	}
	in := `{"DISPLAY_NAME":"n","raw":{ "a" : [1] },"any":{"x":[1,"y",null]},"ptr":null,"map":{"a":1},"quoted":"12","-":"no","inner":"in"}`
	if lenient.TakesFastPath(reflect.TypeFor[plain]()) {
		t.Fatal("a type with json.RawMessage, a string option and an embedded struct takes the fast path")
	}
	var a, b plain
	if err := lenient.Unmarshal([]byte(in), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(in), &b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("streaming %+v\nencoding/json %+v", a, b)
	}
	// A type error in a plain field is an error, as with encoding/json.
	if err := lenient.Unmarshal([]byte(`{"display_name":5}`), &a); err == nil {
		t.Error("a number into a plain string field decoded without error")
	}
}

// Types the fast path binds exactly as the streaming path decodes them take it; the others go
// to the streaming path as a whole.
func TestFastPathTypes(t *testing.T) {
	type withArray struct{ A [2]int }
	type withBytes struct{ B []byte }
	type withIface struct{ E error }
	type withIntKeys struct{ M map[int]string }
	type withTime struct{ T time.Time }
	type withNumber struct{ N json.Number }
	type withInline struct {
		X int `json:",inline"`
	}
	type withDupNames struct {
		A int `json:"B"`
		B int
	}
	type deep struct {
		L lenient.List[lenient.Obj[lenient.Opt[map[string][]*withRaw]]]
	}
	for _, c := range []struct {
		typ  reflect.Type
		fast bool
	}{
		{reflect.TypeFor[all](), true},
		{reflect.TypeFor[node](), true},
		{reflect.TypeFor[lenient.List[item]](), true},
		{reflect.TypeFor[map[string]any](), true},
		{reflect.TypeFor[*lenient.Str](), true},
		{reflect.TypeFor[withArray](), false},
		{reflect.TypeFor[withBytes](), false},
		{reflect.TypeFor[withIface](), false},
		{reflect.TypeFor[withIntKeys](), false},
		{reflect.TypeFor[withTime](), false},
		{reflect.TypeFor[withNumber](), false},
		{reflect.TypeFor[withInline](), false},
		{reflect.TypeFor[withDupNames](), false},
		{reflect.TypeFor[withRaw](), false},
		{reflect.TypeFor[deep](), false},
		{reflect.TypeFor[Embedded](), true},
		{reflect.TypeFor[embedsStr](), false},
	} {
		if got := lenient.TakesFastPath(c.typ); got != c.fast {
			t.Errorf("%v: fast path %v, want %v", c.typ, got, c.fast)
		}
	}
}

// embedsStr has Str's methods, promoted: it must not bind as a Str.
type embedsStr struct {
	N int
	lenient.Str
}

func TestEmbeddedLenient(t *testing.T) {
	in := `{"N":1,"Str":"x"}`
	var a, b embedsStr
	errA, errB := lenient.Unmarshal([]byte(in), &a), lenient.UnmarshalStreaming([]byte(in), &b)
	if (errA == nil) != (errB == nil) || !reflect.DeepEqual(a, b) {
		t.Errorf("%+v %v, streaming %+v %v", a, errA, b, errB)
	}
}

type withRaw struct {
	R json.RawMessage
}

type Embedded struct {
	Inner string `json:"inner"`
}

type node struct {
	Name  lenient.Str
	Child lenient.Obj[node]
	Kids  lenient.List[node]
}

// Beyond fastjson's nesting limit (300) the fast path leaves the input to the streaming path.
func TestDeeplyNested(t *testing.T) {
	decoders := []decoder{{"lenient.Unmarshal", lenient.Unmarshal}, {"streaming", lenient.UnmarshalStreaming}, {"encoding/json", json.Unmarshal}}
	const depth = 2000
	in := strings.Repeat(`{"Name":"n","Child":`, depth) + `null` + strings.Repeat(`}`, depth)
	if lenient.UnmarshalFast([]byte(in), new(node)) {
		t.Error("the fast path decoded 2,000 levels")
	}
	for _, d := range decoders {
		var n node
		if err := d.decode([]byte(in), &n); err != nil {
			t.Fatalf("%s: %v", d.name, err)
		}
		got := 0
		for p := &n; p != nil; p = p.Child.V {
			got++
		}
		if got != depth {
			t.Errorf("%s: decoded %d levels, want %d", d.name, got, depth)
		}
	}
	// A deep value of the wrong type is skipped without failing the page.
	deep := `{"Name":` + strings.Repeat(`[`, depth) + strings.Repeat(`]`, depth) + `,"Kids":[` + strings.Repeat(`[`, depth) + strings.Repeat(`]`, depth) + `,{"Name":"k"}]}`
	for _, d := range decoders {
		var n node
		if err := d.decode([]byte(deep), &n); err != nil {
			t.Fatalf("%s: %v", d.name, err)
		}
		if n.Name != "" || len(n.Kids) != 1 || n.Kids[0].Name != "k" {
			t.Errorf("%s: %+v", d.name, n)
		}
	}
}

// Nesting within fastjson's limit takes the fast path.
func TestNestedFast(t *testing.T) {
	const depth = 140 // two JSON levels (an object and its "Kids" array) per node
	in := strings.Repeat(`{"Name":"n","Kids":[`, depth) + `null` + strings.Repeat(`]}`, depth)
	var fast, streamed node
	if err := fastOnly([]byte(in), &fast); err != nil {
		t.Fatal(err)
	}
	if err := lenient.UnmarshalStreaming([]byte(in), &streamed); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fast, streamed) {
		t.Error("the paths differ")
	}
}

// Answers over 1 MiB take the streaming path, below they take the fast path; both give the same.
func TestVeryLarge(t *testing.T) {
	var small, smallStreamed lenient.List[item]
	if err := fastOnly(largeList(10_000), &small); err != nil {
		t.Fatal(err)
	}
	if err := lenient.UnmarshalStreaming(largeList(10_000), &smallStreamed); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(small, smallStreamed) {
		t.Error("the paths differ")
	}
	const n = 100_000
	in := largeList(n)
	if lenient.UnmarshalFast(in, new(lenient.List[item])) {
		t.Errorf("the fast path took %d bytes", len(in))
	}
	var l, streamed lenient.List[item]
	if err := lenient.Unmarshal(in, &l); err != nil {
		t.Fatal(err)
	}
	if err := lenient.UnmarshalStreaming(in, &streamed); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(l, streamed) {
		t.Error("the paths differ")
	}
	// Every third element has a mistyped id and stays; every seventh is null and is skipped.
	want := n - (n+6)/7
	if len(l) != want {
		t.Fatalf("decoded %d elements, want %d", len(l), want)
	}
	// l[0] is element 1, l[2] element 3 (element 0 is null).
	if l[0].ID != "1" || l[0].Title != "title 1" || !l[0].Rank.OK || l[2].ID != "" || l[2].Rank.V != 3 || len(l[2].Tags) != 2 {
		t.Errorf("elements: %+v %+v", l[0], l[2])
	}
}

type item struct {
	ID    lenient.ID
	Title lenient.Str
	Rank  lenient.Int
	Tags  lenient.List[lenient.Str]
}

// largeList is a JSON array of n objects, every seventh null and every third with an object id.
func largeList(n int) []byte {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		switch {
		case i%7 == 0:
			b.WriteString("null")
		case i%3 == 0:
			fmt.Fprintf(&b, `{"ID":{"x":%d},"Title":"title %d","Rank":"%d","Tags":["a",1,null]}`, i, i, i)
		default:
			fmt.Fprintf(&b, `{"ID":%d,"Title":"title %d","Rank":%d,"Tags":["a","b"]}`, i, i, i)
		}
	}
	b.WriteByte(']')
	return []byte(b.String())
}

// Decoding time per element stays flat as the input grows (no quadratic path): compare ns/op
// across the sizes.
func BenchmarkLargeList(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		in := largeList(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				var l lenient.List[item]
				if err := lenient.Unmarshal(in, &l); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Decoding time grows linearly with nesting depth, for a decoded chain and for a skipped value.
func BenchmarkDeeplyNested(b *testing.B) {
	for _, depth := range []int{100, 1_000, 5_000} {
		chain := []byte(strings.Repeat(`{"Name":"n","Child":`, depth) + `null` + strings.Repeat(`}`, depth))
		skipped := []byte(`{"Name":` + strings.Repeat(`[`, depth) + strings.Repeat(`]`, depth) + `}`)
		for _, c := range []struct {
			name string
			in   []byte
		}{{"chain", chain}, {"skipped", skipped}} {
			b.Run(fmt.Sprintf("%s/%d", c.name, depth), func(b *testing.B) {
				b.SetBytes(int64(len(c.in)))
				b.ReportAllocs()
				for b.Loop() {
					var n node
					if err := lenient.Unmarshal(c.in, &n); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
