package pisession

import (
	"fmt"
	"testing"
)

// TestIDTable files keys with repeats, grows the table from empty and
// from a reserved size, and checks each lookup against a Go map (the
// last entry of a key wins, as in pi's byId).
func TestIDTable(t *testing.T) {
	for _, reserve := range []int{0, 3, 5000} {
		var entries []*Entry
		want := map[string]*Entry{}
		var tab idTable
		tab.grow(nil, reserve)
		for i := range 3000 {
			e := &Entry{}
			e.setKeys(fmt.Sprintf("s%x", i*7919%1000), keyNull)
			if i%11 == 0 {
				e.setKeys(keyUndefined, keyUndefined)
			}
			entries = append(entries, e)
			want[e.idK()] = e
			tab.add(entries, i)
		}
		if tab.keys() != len(want) {
			t.Errorf("reserve %d: %d keys, want %d", reserve, tab.keys(), len(want))
		}
		for k, e := range want {
			if got := tab.get(entries, k); got != e {
				t.Errorf("reserve %d: key %q: line of another entry", reserve, k)
			}
		}
		if got := tab.get(entries, "sabsent"); got != nil {
			t.Errorf("reserve %d: absent key found", reserve)
		}
	}
}
