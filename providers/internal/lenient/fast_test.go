package lenient

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/valyala/fastjson"
)

type namedStr string

// fPlain has a plain field of every kind the fast path binds.
type fPlain struct {
	S      string
	B      bool
	I      int
	I8     int8
	I16    int16
	I32    int32
	I64    int64
	U      uint
	U8     uint8
	U16    uint16
	U32    uint32
	U64    uint64
	F32    float32
	F64    float64
	P      *int
	Self   *fPlain
	Sl     []int
	SlS    []fPlain
	M      map[string]int
	MN     map[namedStr]*fPlain
	A      any
	N      namedStr
	Tagged string `json:"tag_name,omitempty"`
	Dash   string `json:"-"`
	Lower  int    `json:"lower"`
	hidden int
}

// fAll has every lenient kind, nested, next to plain fields.
type fAll struct {
	I     Int
	F     Float
	S     Str
	B     Bool
	ID    ID
	L     List[int]
	LS    List[Str]
	LP    List[fPlain]
	LL    List[List[int]]
	O     Obj[fPlain]
	OL    Obj[fAll]
	P     Opt[fPlain]
	PL    Opt[[]Opt[int]]
	SS    Strs
	LO    List[Obj[fAll]]
	LM    List[map[string]any]
	PS    *Str
	Plain fPlain
	PP    *fPlain
}

// targets are the types the differential tests decode into.
var targets = []struct {
	name string
	new  func() any
}{
	{"fAll", func() any { return new(fAll) }},
	{"Obj[fAll]", func() any { return new(Obj[fAll]) }},
	{"List[fAll]", func() any { return new(List[fAll]) }},
	{"fPlain", func() any { return new(fPlain) }},
	{"Opt[fPlain]", func() any { return new(Opt[fPlain]) }},
	{"any", func() any { return new(any) }},
	{"map", func() any { return new(map[string]List[Int]) }},
}

// compare decodes in with both paths into a fresh value of each target and reports any
// difference: a value, or an error on one side only.
func compare(t *testing.T, in []byte) {
	t.Helper()
	for _, tg := range targets {
		fast, streamed := tg.new(), tg.new()
		ok := unmarshalFast(in, fast)
		err := unmarshalStreaming(in, streamed)
		switch {
		case ok && err != nil:
			t.Errorf("%s %q: the fast path decoded, the streaming path failed: %v", tg.name, in, err)
		case ok && !reflect.DeepEqual(fast, streamed):
			t.Errorf("%s %q:\nfast      %s\nstreaming %s", tg.name, in, show(fast), show(streamed))
		case !ok && err == nil && !declined(in):
			t.Errorf("%s %q: the fast path found a type error, the streaming path none", tg.name, in)
		}
	}
}

// declined tells whether the fast path leaves valid input to the streaming path.
func declined(in []byte) bool {
	var p fastjson.Parser
	_, err := p.ParseBytes(in)
	_, ok := escapes(in)
	return err != nil || !ok || fastjson.ValidateBytes(in) != nil
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return string(b)
}

func TestFastPathMatchesStreaming(t *testing.T) {
	for _, in := range seeds {
		compare(t, []byte(in))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		var b strings.Builder
		randomValue(r, &b, 0)
		compare(t, []byte(b.String()))
	}
}

func FuzzFastPath(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		compare(t, in)
	})
}

// seeds are the differential test's fixed inputs and the fuzz target's seeds (more are in
// testdata/fuzz/FuzzFastPath).
var seeds = []string{
	`{}`, `null`, `[]`, `"s"`, `1`, `true`,
	`{"I":"42","F":"2.5","S":" x ","B":true,"ID":7,"L":[1,null,"x"],"LS":["a",1]}`,
	`{"LP":[{"I":1,"S":5},{"I":2}],"LL":[[1],[null,"x"],3],"O":{"I":1},"OL":{"OL":{"S":"deep"}}}`,
	`{"I":1e400,"F":-0,"ID":1.0,"S":"\ud800","B":null,"s":"case","S":"dup"}`,
	`{"S":"\ud83d\ude00 \ud800\u0041 \udc00 \\ud800"}`,
	`{"S":"\ud83d\ude00 ok","Plain":{"S":"\u00e9\ud83d\ude00"}}`,
	"{\"S\":\"a\xffb\xe2\x82\",\"Plain\":{\"S\":\"\xc3\",\"M\":{\"k\xff\":1},\"A\":{\"\xfe\":\"\xfd\"}}}",
	`{"Plain":{"S":"x","B":true,"I":-3,"I8":127,"I16":-32768,"I32":5,"I64":9223372036854775807,"U":1,"U8":255,"U16":65535,"U32":4294967295,"U64":18446744073709551615,"F32":1.5,"F64":-2e-3}}`,
	`{"Plain":{"I8":128}}`, `{"Plain":{"U":-1}}`, `{"Plain":{"U":-0}}`, `{"Plain":{"I":-0}}`, `{"Plain":{"I":1e2}}`, `{"Plain":{"I":1.0}}`,
	`{"Plain":{"F32":1e39}}`, `{"Plain":{"F64":1e400}}`, `{"Plain":{"A":1e400}}`, `{"Plain":{"F64":1e-400}}`,
	`{"Plain":{"S":null,"B":null,"I":null,"P":null,"Sl":null,"M":null,"A":null,"Self":null}}`,
	`{"Plain":{"S":"a"},"Plain":{"B":true}}`,
	`{"PP":{"S":"a"},"PP":{"I":1},"PP":null}`,
	`{"Plain":{"Sl":[1,2,3],"Sl":[4]},"LP":[{"Sl":[]}]}`,
	`{"Plain":{"SlS":[{"S":"a","I":1}],"SlS":[{"I":2},{"B":true}]}}`,
	`{"Plain":{"M":{"a":1},"M":{"b":2}},"LP":[{"M":{"a":"x"}},{"M":{}}]}`,
	`{"Plain":{"MN":{"a":{"S":"x"},"a":{"I":1}}}}`,
	`{"Plain":{"A":{"x":[1,"y",null,true,{"z":{}}]},"A":[1]}}`,
	`{"plain":{"s":"lower","TAG_NAME":"t","Tag_Name":"u","-":"no","Dash":"no","LOWER":3,"hidden":1}}`,
	`{"Plain":{"N":"named","n":"again","tagged":"no","Tagged":"no"}}`,
	`{"Plain":{"S":5}}`, `{"LP":[{"S":5},{"S":"ok"}],"O":{"B":"x"},"P":{"I":"1"}}`,
	`{"PL":[1,null,"x",{"a":1}],"P":[1],"O":[1]}`,
	`{"SS":[" a ",1,"",null,"b",["c"]],"LO":[{"S":"x"},null,1,{"Plain":{"I":"bad"}}]}`,
	`{"LM":[{"a":1},null,{"b":[1,{"c":null}]},[1],"x"]}`,
	`{"PS":" p ","PS":null}`, `{"PS":5}`,
	`{"ID":"  ","ID":-12,"ID":99999999999999999999,"I":"9007199254740993","F":"0x10","F":" 1_0 "}`,
	`{"I":"Infinity","F":"nan","I":" 1e3 "}`,
	`{"k":1,"K":2,"\u004b":3}`, `{"\u0053":"escaped key","ſ":"long s","K":"kelvin"}`,
	`{"S":1,"S":"x"}`, `{"L":[1],"L":{}}`,
	`[{"S":"a"},null,{"S":"b"}]`, `{"a":[1,2],"b":[]}`,
	`{"S":"x"} `, ` {"S":"x"}`, `{"S":"x"}}`, `{"S":`, `{"S":NaN}`, `{"I":01}`, `{"I":1.}`, `{"I":.5}`,
	`{"I":+1}`, `{"S":"tab	in"}`, `{"S":"\x"}`, `{"S":"\u12"}`, "\xef\xbb\xbf{}", `{"I":-}`, `[1,]`, `{,}`,
}

// randomValue writes a random JSON value that often fits the targets' fields: their names in
// several cases, values of every JSON type, nulls, duplicates and nesting.
func randomValue(r *rand.Rand, b *strings.Builder, depth int) {
	n := r.IntN(12)
	if depth > 6 && n >= 9 {
		n = r.IntN(9)
	}
	switch n {
	case 0:
		b.WriteString("null")
	case 1:
		b.WriteString([]string{"true", "false"}[r.IntN(2)])
	case 2, 3:
		b.WriteString([]string{"0", "-0", "1", "-1", "1.5", "1e3", "1e400", "255", "256", "-129", "65536", "4294967296",
			"9007199254740993", "18446744073709551616", "-9223372036854775809", "2.5e-3", "1E2", "0.0"}[r.IntN(18)])
	case 4, 5:
		b.WriteString(strconv.Quote([]string{"", " ", "x", " 42 ", "1.5", "1e3", "-7", "abc", "é", "NaN",
			"9007199254740992", " t "}[r.IntN(12)]))
	case 6:
		b.WriteString([]string{`"\u00e9\ud83d\ude00"`, `"\ud800"`, "\"\xff\"", `"a\"b\\c\/"`, `"\u0031"`}[r.IntN(5)])
	case 7, 8:
		b.WriteByte('[')
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			randomValue(r, b, depth+1)
		}
		b.WriteByte(']')
	default:
		b.WriteByte('{')
		for i := range r.IntN(6) {
			if i > 0 {
				b.WriteByte(',')
			}
			name := names[r.IntN(len(names))]
			switch r.IntN(4) {
			case 0:
				name = strings.ToLower(name)
			case 1:
				name = strings.ToUpper(name)
			}
			b.WriteString(strconv.Quote(name))
			b.WriteByte(':')
			randomValue(r, b, depth+1)
		}
		b.WriteByte('}')
	}
}

var names = []string{"I", "F", "S", "B", "ID", "L", "LS", "LP", "LL", "O", "OL", "P", "PL", "SS", "LO", "LM", "PS",
	"Plain", "PP", "I8", "I16", "I32", "I64", "U", "U8", "U16", "U32", "U64", "F32", "F64", "Self", "Sl", "SlS", "M", "MN",
	"A", "N", "tag_name", "Tagged", "-", "Dash", "lower", "hidden", "V", "OK", "unknown"}

// Strings read the same on both paths: escapes undone, invalid UTF-8 replaced byte by byte, and
// escaped surrogates that are not a pair (which fastjson reads otherwise) left to the streaming
// path.
func TestFastPathStrings(t *testing.T) {
	type s struct{ S Str }
	for _, c := range []struct {
		in, want string
		fast     bool
	}{
		{`{"S":"caf\u00e9"}`, "café", true},
		{`{"S":"\ud83d\ude00"}`, "\U0001F600", true},
		{`{"S":"\uD83D\uDE00 \u0041"}`, "\U0001F600 A", true},
		{`{"S":"a\\ud800"}`, `a\ud800`, true},
		{`{"S":"line\nnext\t"}`, "line\nnext", true},
		{`{"S":" \u0000x"}`, "\x00x", true},
		{"{\"S\":\"a\xffb\xe2\x82c\"}", "a\uFFFDb\uFFFD\uFFFDc", true},
		{`{"S":"\ud800"}`, "\uFFFD", false},
		{`{"S":"\ud800\u0041"}`, "\uFFFDA", false},
		{`{"S":"\udc00x"}`, "\uFFFDx", false},
		{`{"S":"\ud83d"}`, "\uFFFD", false},
	} {
		var fast, got s
		if ok := unmarshalFast([]byte(c.in), &fast); ok != c.fast {
			t.Errorf("%s: fast path %v, want %v", c.in, ok, c.fast)
		}
		if err := Unmarshal([]byte(c.in), &got); err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if string(got.S) != c.want {
			t.Errorf("%s: %q, want %q", c.in, got.S, c.want)
		}
	}
}

// A type error that fails the whole call gives the streaming path's error.
func TestFastPathTypeError(t *testing.T) {
	for _, in := range []string{`{"Plain":{"I":"x"}}`, `{"Plain":{"I8":300}}`, `{"Plain":{"Sl":[1,"a"]}}`, `{"PP":{"M":{"a":true}}}`} {
		var a, b fAll
		errA, errB := Unmarshal([]byte(in), &a), unmarshalStreaming([]byte(in), &b)
		if errA == nil || errB == nil || errA.Error() != errB.Error() {
			t.Errorf("%s: %v, streaming %v", in, errA, errB)
		}
	}
}

// The pooled parsers and the plan cache are safe for concurrent calls (run with -race).
func TestFastPathConcurrent(t *testing.T) {
	done := make(chan struct{})
	for g := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := g; i < len(seeds); i += 4 {
				compare(t, []byte(seeds[i]))
			}
		}()
	}
	for range 4 {
		<-done
	}
}

func TestCountControls(t *testing.T) {
	for i := range 40 {
		for _, c := range []byte{0x00, 0x09, 0x1f, 0x20, 0x7f, 0x80, 0x9f, 0xa0, 0xff} {
			b := []byte(strings.Repeat("a\xff \x80", 10))[:i+1]
			b[i] = c
			want := 0
			if c < 0x20 {
				want = 1
			}
			if got := countControls(b); got != want {
				t.Errorf("%q: %d, want %d", b, got, want)
			}
			if got := countControls(bytes.Repeat(b, 3)); got != 3*want {
				t.Errorf("%q three times: %d, want %d", b, got, 3*want)
			}
		}
	}
}
