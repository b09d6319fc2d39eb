package pisession

import (
	"encoding/json"
	"strings"
	"testing"

	"piweb/internal/jsjson"
)

// FuzzSetMember: replacing a header member keeps a valid object with the
// other members unchanged.
func FuzzSetMember(f *testing.F) {
	f.Add(`{"type":"session","id":"x","parentSession":"/a"}`, "/b")
	f.Add(`{"a":1,"b":[1,2],"c":{"d":null}}`, "")
	f.Fuzz(func(t *testing.T, obj, val string) {
		var v []byte
		if val != "" {
			v = jsjson.AppendString(nil, val)
		}
		if !json.Valid([]byte(obj)) || !strings.HasPrefix(strings.TrimSpace(obj), "{") {
			return
		}
		out := setMember([]byte(obj), "parentSession", v)
		if !json.Valid(out) {
			t.Fatalf("setMember(%q) = %q, not JSON", obj, out)
		}
	})
}
