package pisession

import "testing"

// TestFindBase checks the one-pass lookup of the base members against
// lastMember's, on names that share their first eight bytes or length
// with a base name, repeats and escapes.
func TestFindBase(t *testing.T) {
	for _, line := range []string{
		`{"type":"a","id":"b","parentId":"c","timestamp":"d","message":{}}`,
		`{"timestamq":1,"timestamps":2,"timestam":3,"ids":4,"i":5,"typ":6,"types":7,"messages":8,"parentIdx":9}`,
		`{"id":1,"type":2,"id":3,"timestamp":4,"timestamp":5,"message":6,"message":{"content":null}}`,
		`{"\u0074ype":"x","id":"y"}`,
		`{"type":"x","\u0069d":"y","timestamp":"z"}`,
		`{}`,
	} {
		var msg []member
		top, _, ok := scanRecord([]byte(line), nil, &msg)
		if !ok {
			t.Fatalf("%s: not JSON", line)
		}
		want := lookupBase(top, []byte(line))
		if got, ok := findBase(top, []byte(line)); ok && got != want {
			t.Errorf("%s: findBase %+v, lastMember %+v", line, got, want)
		}
	}
}
