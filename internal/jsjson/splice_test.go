package jsjson

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestAppendWithArray(t *testing.T) {
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	for _, c := range []struct {
		name, obj, key string
		items          []json.RawMessage
		want           string
	}{
		{"empty object, no items", `{}`, "entries", nil, `{"entries":[]}`},
		{"empty object", `{}`, "entries", []json.RawMessage{json.RawMessage(`1`), json.RawMessage(`{"a":"b"}`)}, `{"entries":[1,{"a":"b"}]}`},
		{"after members", `{"total":2,"leaf":null}`, "messages", []json.RawMessage{json.RawMessage(`"x"`)}, `{"total":2,"leaf":null,"messages":["x"]}`},
		{"key escaped", `{"a":1}`, "q\"\n", nil, `{"a":1,"q\"\n":[]}`},
		{"nested deeper than decoders allow", `{}`, "m", []json.RawMessage{json.RawMessage(deep)}, `{"m":[` + deep + `]}`},
	} {
		got := string(AppendWithArray([]byte("prefix:"), []byte(c.obj), c.key, c.items))
		if got != "prefix:"+c.want {
			t.Errorf("%s: %.200s, want %.200s", c.name, got, c.want)
		}
	}
}
