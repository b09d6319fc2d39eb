package own

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestOrderKeepsPinsAndArchive: pins and archive survive a reopen, a
// second pin keeps the first time, an absent change changes nothing, and
// the file is the user's alone; a corrupt file is refused, untouched.
func TestOrderKeepsPinsAndArchive(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "piweb")
	t0 := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	t1 := t0.Add(time.Minute)
	on, off := true, false
	s, err := OpenOrder(dir)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		ids       []string
		pin, arch *bool
		at        time.Time
	}{
		{[]string{"a", "b", "c"}, &on, nil, t0},
		{[]string{"a", "x@m2"}, &on, &on, t1}, // a stays pinned at t0
		{[]string{"b"}, &off, nil, t1},
		{[]string{"c"}, nil, nil, t1}, // nothing to change
		{[]string{"never"}, &off, &off, t1},
	}
	for _, st := range steps {
		if _, err := s.Set(st.ids, st.pin, st.arch, st.at); err != nil {
			t.Fatal(err)
		}
	}
	want := Order{Pinned: map[string]time.Time{"a": t0, "c": t0, "x@m2": t1},
		Archived: map[string]time.Time{"a": t1, "x@m2": t1}, Rev: 5}
	again, err := OpenOrder(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, again.State()); d != "" {
		t.Errorf("reopened (-want +got):\n%s", d)
	}
	p := filepath.Join(dir, "order.json")
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("order.json: %v, %v", fi, err)
	}
	os.WriteFile(p, []byte("{not json"), 0o600)
	if _, err := OpenOrder(dir); err == nil {
		t.Error("a corrupt order.json opened")
	}
	if b, _ := os.ReadFile(p); string(b) != "{not json" {
		t.Errorf("the corrupt file changed: %q", b)
	}
}

// TestOrderSaveFails: a change that cannot be saved is not adopted.
func TestOrderSaveFails(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "piweb")
	s, err := OpenOrder(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, nil, 0o600); err != nil { // a file where the folder should be
		t.Fatal(err)
	}
	on := true
	if _, err := s.Set([]string{"a"}, &on, nil, time.Now()); err == nil {
		t.Fatal("saved into a file")
	}
	if got := s.State(); len(got.Pinned) != 0 {
		t.Errorf("adopted a change not saved: %v", got)
	}
}
