package jsjson_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"

	"piweb/internal/jsjson"
)

// FuzzRawView holds the raw view to its contract on any input (no panic,
// results inside the input, offsets in range) and, on valid JSON, to what
// jsontext and encoding/json read.
func FuzzRawView(f *testing.F) {
	addSeeds(f)
	for _, s := range []string{`{"a":1,"a":[2,{"b":"}"}]}`, `["x\\",{"y":"\"]"}]`, `{"t\u0079pe":"x"}`, `{"a":[1,2}`, `[1 2]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		checkRawAnyInput(t, in)
		checkValidEnd(t, in)
		if !json.Valid(in) {
			return
		}
		start := jsjson.SkipSpace(in, 0)
		if end := jsjson.ValueEnd(in, start); end < 0 || jsjson.SkipSpace(in, end) != len(in) {
			t.Fatalf("ValueEnd(%q, %d) = %d on valid JSON", in, start, end)
		}
		switch in[start] {
		case '{':
			checkMembers(t, in)
		case '[':
			checkElements(t, in)
		}
	})
}

// checkValidEnd checks ValidEnd against Valid on the value that starts
// after the input's leading white space, and against ValueEnd when the
// value is followed by a byte that ends a number.
func checkValidEnd(t *testing.T, in []byte) {
	start := jsjson.SkipSpace(in, 0)
	end := jsjson.ValidEnd(in, start)
	if end < 0 {
		if jsjson.Valid(in) {
			t.Fatalf("ValidEnd(%q, %d) = -1, but Valid accepts it", in, start)
		}
		return
	}
	if end <= start || end > len(in) || !jsjson.Valid(in[start:end]) {
		t.Fatalf("ValidEnd(%q, %d) = %d", in, start, end)
	}
	if jsjson.Valid(in) != (jsjson.SkipSpace(in, end) == len(in)) {
		t.Fatalf("ValidEnd(%q, %d) = %d disagrees with Valid", in, start, end)
	}
	if (end == len(in) || strings.IndexByte(" \t\n\r,:{}[]\"", in[end]) >= 0) && jsjson.ValueEnd(in, start) != end {
		t.Fatalf("ValueEnd(%q, %d) = %d, ValidEnd %d", in, start, jsjson.ValueEnd(in, start), end)
	}
}

// checkRawAnyInput runs every raw-view function on in and checks that what
// they return lies inside in.
func checkRawAnyInput(t *testing.T, in []byte) {
	for i := -1; i <= len(in); i++ {
		if i == 64 && len(in) > 128 {
			i = len(in) - 64 // the ends of long inputs are enough
		}
		if end := jsjson.ValueEnd(in, i); end != -1 && (end <= i || end > len(in)) {
			t.Fatalf("ValueEnd(%q, %d) = %d", in, i, end)
		}
	}
	inside := func(what string, s []byte) {
		off := cap(in) - cap(s)
		if len(s) == 0 || off < 0 || off+len(s) > len(in) || !bytes.Equal(in[off:off+len(s)], s) {
			t.Fatalf("%s yielded %q, not a non-empty part of %q", what, s, in)
		}
	}
	for k, v := range jsjson.Members(in) {
		inside("Members key", k)
		inside("Members value", v)
		s, ok := jsjson.DecodeString(k)
		if ok && !jsjson.KeyIs(k, s) {
			t.Fatalf("KeyIs(%q, %q) = false", k, s)
		}
		if v := jsjson.Field(in, s); ok && v == nil {
			t.Fatalf("Field(%q, %q) = nil, but Members yields the key", in, s)
		}
		jsjson.FirstField(in, s)
	}
	for el := range jsjson.Elements(in) {
		inside("Elements", el)
	}
	jsjson.DecodeString(in)
	jsjson.KeyIs(in, "a")
}

// checkMembers compares Members with jsontext's reading of the valid
// object in, raw key for raw key and raw value for raw value, and Field
// with encoding/json's last-one-wins map.
func checkMembers(t *testing.T, in []byte) {
	var got [][2]string
	for k, v := range jsjson.Members(in) {
		got = append(got, [2]string{string(k), string(v)})
	}
	d := jsontext.NewDecoder(bytes.NewReader(in), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	var want [][2]string
	if _, err := d.ReadToken(); err != nil {
		t.Fatalf("jsontext: %v", err)
	}
	for d.PeekKind() != '}' {
		k, err := d.ReadValue()
		if err != nil {
			t.Fatalf("jsontext: %v", err)
		}
		key := string(k)
		v, err := d.ReadValue()
		if err != nil {
			t.Fatalf("jsontext: %v", err)
		}
		want = append(want, [2]string{key, string(v)})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Members(%q) (-jsontext +got):\n%s", in, diff)
	}
	if !utf8.Valid(in) {
		return // encoding/json replaces invalid UTF-8 in keys
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(in, &m) != nil {
		return
	}
	for name, v := range m {
		if got := jsjson.Field(in, name); !bytes.Equal(got, v) {
			t.Fatalf("Field(%q, %q) = %q, encoding/json %q", in, name, got, v)
		}
	}
}

// checkElements compares Elements with encoding/json on the valid array in.
func checkElements(t *testing.T, in []byte) {
	var want []json.RawMessage
	if err := json.Unmarshal(in, &want); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	var got []json.RawMessage
	for el := range jsjson.Elements(in) {
		got = append(got, el)
	}
	if len(want) == 0 {
		want = nil
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Elements(%q) (-encoding/json +got):\n%s", in, diff)
	}
}

// FuzzDecodeString checks DecodeString against encoding/json on valid UTF-8
// (where both replace lone surrogates with U+FFFD) and against Unquote
// everywhere.
func FuzzDecodeString(f *testing.F) {
	for _, s := range []string{`"a"`, `"\n"`, `"\u0041"`, `"x\"y"`, `"é"`, `"\ud800"`, `"\ud83d\ude00"`, "\"\xff\"", `"a\u12"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := jsjson.DecodeString(b)
		u, uok := jsjson.Unquote(b)
		if ok != uok {
			t.Fatalf("%q: DecodeString ok %v, Unquote ok %v", b, ok, uok)
		}
		if !utf8.Valid(b) {
			return // encoding/json replaces invalid UTF-8; DecodeString keeps it
		}
		if ok && got != jsjson.FromWTF8(u) {
			t.Fatalf("%q: %q, Unquote %q", b, got, u)
		}
		var want string
		err := json.Unmarshal(b, &want)
		bare := len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"'
		if ok != (err == nil && bare) {
			t.Fatalf("%q: ok %v, encoding/json error %v", b, ok, err)
		}
		if ok && got != want {
			t.Fatalf("%q: %q, encoding/json %q", b, got, want)
		}
	})
}
