package index

import (
	"encoding/json"
	"testing"
)

func FuzzValidObject(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, ` {"a":[1,2,{"b":null}]} `, `{"a":"\u00e9\n"}`, `{"a":"x` + "\x01" + `"}`,
		`{"a":1,}`, `{"a":01}`, `{"a":-0.5e+3}`, `[]`, `{"a\"":1}`, `{"a":"12345678\"12345678"}`, `{"a":"1234567\\"}`, hdr, usr, asst} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ok := validObject(b)
		var v any
		if ok && json.Unmarshal(b, &v) != nil {
			t.Fatalf("accepted invalid JSON %q", b)
		}
		if ok {
			if _, isObj := v.(map[string]any); !isObj {
				t.Fatalf("accepted non-object %q", b)
			}
		}
	})
}
