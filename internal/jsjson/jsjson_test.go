package jsjson_test

import (
	"errors"
	"math"
	"testing"

	"piweb/internal/jsjson"
)

func TestCanonicalTraps(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"b":1,"10":2,"2":3}`, `{"2":3,"10":2,"b":1}`},
		{`{"a":1,"b":2,"a":3}`, `{"a":3,"b":2}`},
		{`{"1":"x","0":"y","1":"z"}`, `{"0":"y","1":"z"}`},
		{`{"4294967295":1,"4294967294":2,"01":3,"-1":4,"1.0":5,"0":6}`, `{"0":6,"4294967294":2,"4294967295":1,"01":3,"-1":4,"1.0":5}`},
		{`{"__proto__":1}`, `{"__proto__":1}`},
		{`1.0`, `1`},
		{`1e2`, `100`},
		{`1E+2`, `100`},
		{`1e21`, `1e+21`},
		{`1.5e21`, `1.5e+21`},
		{`1e-7`, `1e-7`},
		{`1.25e-7`, `1.25e-7`},
		{`0.000001`, `0.000001`},
		{`0.0000012`, `0.0000012`},
		{`-0`, `0`},
		{`-0.0e5`, `0`},
		{`123456789012345680000`, `123456789012345680000`},
		{`123456789012345678901`, `123456789012345680000`},
		{`9007199254740993`, `9007199254740992`},
		{`0.30000000000000004`, `0.30000000000000004`},
		{`0.013875000000000002`, `0.013875000000000002`},
		{`1e400`, `null`},
		{`-1e400`, `null`},
		{`1e-400`, `0`},
		{`5e-324`, `5e-324`},
		{`1.7976931348623157e308`, `1.7976931348623157e+308`},
		{`100000000000000000000`, `100000000000000000000`},
		{`[1e20,1e21]`, `[100000000000000000000,1e+21]`},
		{`"\u00e9"`, `"é"`},
		{`"\u00E9"`, `"é"`},
		{`"\/"`, `"/"`},
		{`"\u2028\u2029"`, "\"\u2028\u2029\""},
		{"\"\u2028\"", "\"\u2028\""},
		{`"<>&\u003c"`, `"<>&<"`},
		{`"\u007f"`, "\"\x7f\""},
		{`"\ud800"`, `"\ud800"`},
		{`"\uD800"`, `"\ud800"`},
		{`"\udc00\ud800"`, `"\udc00\ud800"`},
		{`"\ud83d\ude00"`, `"😀"`},
		{`"\ud83d\ud83d\ude00"`, `"\ud83d😀"`},
		{`"\u0000\u001F\u0008\u000c"`, `"\u0000\u001f\b\f"`},
		{`"\b\f\n\r\t\"\\"`, `"\b\f\n\r\t\"\\"`},
		{` { "a" : [ 1 , true , null , false ] } `, `{"a":[1,true,null,false]}`},
		{"\t\r\n[]\n", `[]`},
		{`{}`, `{}`},
		{`[]`, `[]`},
		{`""`, `""`},
		{"\"a\xe2\x82A\xed\xa0\x80\xf0\x9f\x98\xc0\xff\"", "\"a\uFFFDA\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD\""},
	}
	for _, tt := range tests {
		got, err := jsjson.Canonical([]byte(tt.in))
		if err != nil {
			t.Errorf("Canonical(%q): %v", tt.in, err)
			continue
		}
		if string(got) != tt.want {
			t.Errorf("Canonical(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if !jsjson.IsCanonical([]byte(tt.want)) {
			t.Errorf("IsCanonical(%q) = false", tt.want)
		}
		if jsjson.IsCanonical([]byte(tt.in)) != (tt.in == tt.want) {
			t.Errorf("IsCanonical(%q) = %v", tt.in, !(tt.in == tt.want))
		}
	}
}

func TestInvalid(t *testing.T) {
	for _, in := range []string{
		``, ` `, `[`, `[1,]`, `{"a":1,}`, `{,}`, `[,1]`, `01`, `-01`, `1.`, `.5`, `+1`, `1e`, `1e+`,
		`-`, `--1`, `0x10`, `NaN`, `Infinity`, `undefined`, `tru`, `nul`, `truex`, `[1 2]`,
		`{"a" 1}`, `{a:1}`, `{'a':1}`, `"\x"`, `"\u12"`, `"\u12g4"`, `"abc`, `"\`, "\"\x01\"", "\"\t\"",
		"\"\n\"", "\xef\xbb\xbf{}", "\u00a0{}", "\u2028{}", "{}\u2028", "\f1", "\v1", `1 2`, `[]]`, `{}}`,
		`[}`, `{]`, `/*c*/1`, `"a"b`, `{"a":1 "b":2}`, `{"a"}`, `{"a":}`,
	} {
		if jsjson.Valid([]byte(in)) {
			t.Errorf("Valid(%q) = true", in)
		}
		if _, err := jsjson.Parse([]byte(in)); err == nil {
			t.Errorf("Parse(%q) succeeded", in)
		}
		if jsjson.IsCanonical([]byte(in)) {
			t.Errorf("IsCanonical(%q) = true", in)
		}
	}
}

func TestAppendNumber(t *testing.T) {
	tests := []struct {
		f    float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "0"}, {1, "1"}, {-1, "-1"}, {0.1, "0.1"}, {0.30000000000000004, "0.30000000000000004"},
		{1e21, "1e+21"}, {1e-7, "1e-7"}, {1.5e-7, "1.5e-7"}, {1e-6, "0.000001"}, {123e-20, "1.23e-18"},
		{1765233665292, "1765233665292"}, {1 << 53, "9007199254740992"}, {1<<53 + 2, "9007199254740994"},
		{123456789012345680000, "123456789012345680000"}, {-1.5e300, "-1.5e+300"}, {math.MaxFloat64, "1.7976931348623157e+308"},
		{5e-324, "5e-324"}, {math.NaN(), "null"}, {math.Inf(1), "null"}, {math.Inf(-1), "null"}, {3.14, "3.14"},
		{123.456, "123.456"}, {1e20, "100000000000000000000"}, {0.00003, "0.00003"},
	}
	for _, tt := range tests {
		if got := string(jsjson.AppendNumber(nil, tt.f)); got != tt.want {
			t.Errorf("AppendNumber(%v) = %q, want %q", tt.f, got, tt.want)
		}
	}
}

func TestAppendString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `""`},
		{"plain", `"plain"`},
		{"<a href=\"x\">&amp;</a>/", `"<a href=\"x\">&amp;</a>/"`},
		{"\x00\x01\x07\x08\x09\x0a\x0b\x0c\x0d\x1b\x1f\x7f", `"\u0000\u0001\u0007\b\t\n\u000b\f\r\u001b\u001f` + "\x7f\""},
		{"\u2028\u2029é😀\uFFFD", "\"\u2028\u2029é😀\uFFFD\""},
		{"\\", `"\\"`},
		{"\xff", "\"\uFFFD\""},
		{"\xe2\x82", "\"\uFFFD\""},
		{"\xe2\x82\xe2\x82\xac", "\"\uFFFD€\""},
		{"\xed\xa0\x80", "\"\uFFFD\uFFFD\uFFFD\""},
		{"\xf4\x90\x80\x80", "\"\uFFFD\uFFFD\uFFFD\uFFFD\""},
		{"\xc0\xaf", "\"\uFFFD\uFFFD\""},
		{"\xe0\x80\xaf", "\"\uFFFD\uFFFD\uFFFD\""},
		{"\xf0\x9f\x98", "\"\uFFFD\""},
		{"\xf0\x9f\x98\"", "\"\uFFFD\\\"\""},
	}
	for _, tt := range tests {
		if got := string(jsjson.AppendString(nil, tt.in)); got != tt.want {
			t.Errorf("AppendString(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestValue(t *testing.T) {
	v, err := jsjson.Parse([]byte(`{"s":"x\ud800y","n":1.50,"big":12345678901234567890,"a":[true,null],"o":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Get("s").Str(); got != "x\uFFFDy" {
		t.Errorf("Str = %q", got)
	}
	if got := v.Get("n").Literal(); got != "1.50" {
		t.Errorf("Literal = %q", got)
	}
	if got := v.Get("n").Float(); got != 1.5 {
		t.Errorf("Float = %v", got)
	}
	if got := v.Get("big").Literal(); got != "12345678901234567890" {
		t.Errorf("Literal = %q", got)
	}
	if a := v.Get("a"); a.Kind() != jsjson.ArrayKind || a.Len() != 2 || !a.Index(0).Bool() || a.Index(1).Kind() != jsjson.NullKind {
		t.Errorf("array = %s", jsjson.Stringify(a))
	}
	if v.Get("missing").Kind() != jsjson.UndefinedKind || v.Len() != 5 || v.Key(4) != "o" {
		t.Errorf("object accessors wrong")
	}
	if got := string(jsjson.Stringify(v)); got != `{"s":"x\ud800y","n":1.5,"big":12345678901234567000,"a":[true,null],"o":{}}` {
		t.Errorf("Stringify = %s", got)
	}
	if z := mustParse(t, []byte("-0")).Float(); z != 0 || !math.Signbit(z) {
		t.Errorf("-0 parsed as %v", z)
	}
	if jsjson.Stringify(jsjson.Value{}) != nil {
		t.Errorf("Stringify(undefined) not nil")
	}
	if got := string(jsjson.Stringify(jsjson.Array(jsjson.Value{}, jsjson.Number(math.NaN()), jsjson.String("\xff")))); got != "[null,null,\"\uFFFD\"]" {
		t.Errorf("array = %s", got)
	}
}

func TestObject(t *testing.T) {
	var o jsjson.Object
	o.Set("type", jsjson.String("label"))
	o.Set("id", jsjson.String("a1"))
	o.Set("parentId", jsjson.Null())
	o.Set("label", jsjson.Value{}) // undefined: omitted
	o.Set("10", jsjson.Number(1))
	o.Set("2", jsjson.Number(2))
	o.Set("id", jsjson.String("a2")) // replaced in place
	if err := o.SetRaw("details", []byte(` { "b" : 1.0 , "0" : [ ] } `)); err != nil {
		t.Fatal(err)
	}
	o.SetCanonical("message", []byte(`{"role":"user"}`))
	if err := o.SetRaw("bad", []byte(`{`)); err == nil {
		t.Error("SetRaw accepted invalid JSON")
	}
	want := `{"2":2,"10":1,"type":"label","id":"a2","parentId":null,"details":{"0":[],"b":1},"message":{"role":"user"}}`
	if got := string(o.AppendJSON(nil)); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	v := o.Value()
	if got := v.Get("message").Get("role").Str(); got != "user" {
		t.Errorf("verbatim member read back as %q", got)
	}
	if v.Get("message").Kind() != jsjson.ObjectKind {
		t.Errorf("verbatim kind = %v", v.Get("message").Kind())
	}
	o.Delete("type")
	o.Set("type", jsjson.String("x"))
	e := v.Object()
	e.Set("z", jsjson.Bool(false))
	if got := string(jsjson.Stringify(e.Value())); got != want[:len(want)-1]+`,"z":false}` {
		t.Errorf("edited copy = %s", got)
	}
	if got := string(o.AppendJSON(nil)); got != `{"2":2,"10":1,"id":"a2","parentId":null,"details":{"0":[],"b":1},"message":{"role":"user"},"type":"x"}` {
		t.Errorf("after delete = %s", got)
	}
}

func TestDepth(t *testing.T) {
	deep := func(n int) []byte {
		b := make([]byte, 0, 2*n)
		for range n {
			b = append(b, '[')
		}
		for range n {
			b = append(b, ']')
		}
		return b
	}
	if _, err := jsjson.Parse(deep(jsjson.MaxDepth)); err != nil {
		t.Errorf("depth MaxDepth: %v", err)
	}
	if _, err := jsjson.Parse(deep(jsjson.MaxDepth + 1)); !errors.Is(err, jsjson.ErrTooDeep) {
		t.Errorf("depth MaxDepth+1: %v", err)
	}
	if !jsjson.Valid(deep(1_000_000)) {
		t.Errorf("Valid rejects deep nesting that JSON.parse accepts")
	}
}
