package lenient_test

import (
	"encoding/json"
	"testing"

	"github.com/capgate/capgate/providers/lenient"
)

func TestLenientDecoding(t *testing.T) {
	var v struct {
		A, B, C, D lenient.Int
		F          lenient.Float
		S, T       lenient.Str
		Bo, Bx     lenient.Bool
		I1, I2     lenient.ID
		L          lenient.List[int]
		Ln         lenient.List[int]
		O          lenient.Obj[struct{ X int }]
		On         lenient.Obj[struct{ X int }]
	}
	in := `{"A":3,"B":"42","C":1.5,"D":null,"F":"2.5","S":"  hi ","T":7,"Bo":true,"Bx":"yes","I1":123,"I2":"mb-1",
"L":[1,"x",null,2],"Ln":"nope","O":{"X":1},"On":[1]}`
	if err := json.Unmarshal([]byte(in), &v); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		ok   bool
	}{
		{"int", v.A.OK && v.A.V == 3}, {"numeric string", v.B.OK && v.B.V == 42}, {"fraction is not an int", !v.C.OK},
		{"null", !v.D.OK}, {"float string", v.F.OK && v.F.V == 2.5}, {"trimmed string", v.S == "hi"}, {"number is not a string", v.T == ""},
		{"bool", v.Bo.OK && v.Bo.V}, {"string is not a bool", !v.Bx.OK}, {"numeric id", v.I1 == "123"}, {"string id", v.I2 == "mb-1"},
		{"list skips bad elements", len(v.L) == 2}, {"non-list", v.Ln == nil}, {"object", v.O.V != nil && v.O.V.X == 1}, {"non-object", v.On.V == nil},
	}
	for _, c := range cases {
		if !c.ok {
			t.Errorf("%s: decoded %+v", c.name, v)
		}
	}
}
