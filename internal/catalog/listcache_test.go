package catalog

import (
	"strings"
	"sync"
	"testing"
)

// TestListCacheNeverOlderThanRequest: a request that comes while another
// one rebuilds the listing from an older generation does not get that
// rebuild's answer. The sidebar applies a change event, then may ask for
// the listing: a listing from before the change would undo it for good
// (pi 1.x's first user message, seen after the system message, stayed
// "(no messages)" in a CI run).
func TestListCacheNeverOlderThanRequest(t *testing.T) {
	var mu sync.Mutex
	gen, name := uint64(0), "older"
	entered, release := make(chan struct{}), make(chan struct{})
	lists, armed := 0, false
	src := ListSource{
		Gen: func() Gen {
			mu.Lock()
			defer mu.Unlock()
			if armed { // the second request has begun: let the first one end
				armed = false
				close(release)
			}
			return Gen{Catalog: gen}
		},
		List: func() (Listed, error) {
			mu.Lock()
			m := Meta{ID: "a", Path: "/a", FirstMessage: name}
			lists++
			block := lists == 2
			mu.Unlock()
			if block {
				close(entered)
				<-release
			}
			return Listed{Metas: []Meta{m}, Total: 1}, nil
		},
		Links: func(Meta) Links { return Links{} },
	}
	var c ListCache
	c.Get("", true, src) // generation 0 is cached
	mu.Lock()
	gen, name = 1, "old"
	mu.Unlock()
	first := make(chan string)
	go func() { b, _, _ := c.Get("", true, src); first <- string(b) }()
	<-entered // the first rebuild has listed generation 1
	mu.Lock()
	gen, name, armed = 2, "new", true
	mu.Unlock()
	second := make(chan string)
	go func() { b, _, _ := c.Get("", true, src); second <- string(b) }()
	if b := <-first; !strings.Contains(b, `"old"`) {
		t.Errorf("first answer %s, want generation 1's", b)
	}
	if b := <-second; !strings.Contains(b, `"new"`) {
		t.Errorf("a request made after the change got %s", b)
	}
	if b, _, _ := c.Get("", true, src); !strings.Contains(string(b), `"new"`) {
		t.Errorf("cached answer %s", b)
	}
}
