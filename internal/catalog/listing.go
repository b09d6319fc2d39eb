package catalog

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"piweb/internal/broker"
	"piweb/pisession"
)

// listing is the in-memory snapshot the catalog answers from. Entries are
// replaced, never changed in place, so a reader may keep one after
// releasing mu.
type listing struct {
	mu      sync.RWMutex
	byPath  map[string]*entry
	byKey   map[string]*entry
	byID    map[string][]*entry    // every listed file with that header id
	changes *broker.Broker[Change] // changesTopic: every change, in order
	gen     atomic.Uint64
}

type entry struct {
	meta Meta
}

func newListing() *listing {
	return &listing{byPath: map[string]*entry{}, byKey: map[string]*entry{}, byID: map[string][]*entry{},
		changes: broker.New[Change](broker.Options{KeepEvents: 1, QueueEvents: 4096})}
}

// Generation changes whenever the listing does, so answers built from it
// can be cached.
func (c *listing) Generation() uint64 { return c.gen.Load() }

// Put stores (or replaces) the listing of the file at m.Path and tells
// subscribers. The catalog's reload calls it; tests use it to fill a
// catalog without an index.
func (c *listing) Put(m Meta) {
	c.put(m.Path, &entry{meta: m})
}

// Remove drops the file at path from the listing and tells subscribers.
func (c *listing) Remove(path string) { c.put(path, nil) }

// put stores (or, for nil, removes) a file's listing, re-keys the files
// sharing its header id, and notifies subscribers of the differences.
func (c *listing) put(path string, e *entry) {
	c.mu.Lock()
	old := c.byPath[path]
	var changes []Change
	if old != nil {
		c.unlink(old)
	}
	if e != nil {
		c.byPath[path] = e
		c.byID[e.meta.ID] = append(c.byID[e.meta.ID], e)
	}
	rekeyed := c.rekey(old, e)
	switch {
	case e == nil && old != nil:
		changes = append(changes, Change{Kind: Removed, Meta: old.meta})
	case e != nil && old != nil && old.meta.Key != e.meta.Key:
		changes = append(changes, Change{Kind: Removed, Meta: old.meta}, Change{Kind: Added, Meta: e.meta})
	case e != nil && old != nil:
		changes = append(changes, Change{Kind: Updated, Meta: e.meta})
	case e != nil:
		changes = append(changes, Change{Kind: Added, Meta: e.meta})
	}
	changes = removalsFirst(append(changes, rekeyed...))
	if len(changes) > 0 {
		c.gen.Add(1)
	}
	c.mu.Unlock()
	for _, ch := range changes {
		c.changes.Publish(changesTopic, ch)
	}
}

// removalsFirst orders changes so that every removal comes before every
// addition or update: a re-keyed copy's removal names the key the put file
// may now hold, and a subscriber applying them in order must not drop it.
func removalsFirst(changes []Change) []Change {
	slices.SortStableFunc(changes, func(a, b Change) int {
		return cmp.Compare(b2i(a.Kind != Removed), b2i(b.Kind != Removed))
	})
	return changes
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// unlink removes e from every map. The caller holds mu.
func (c *listing) unlink(e *entry) {
	delete(c.byPath, e.meta.Path)
	if c.byKey[e.meta.Key] == e {
		delete(c.byKey, e.meta.Key)
	}
	group := slices.DeleteFunc(c.byID[e.meta.ID], func(x *entry) bool { return x == e })
	if len(group) == 0 {
		delete(c.byID, e.meta.ID)
	} else {
		c.byID[e.meta.ID] = group
	}
}

// rekey gives every file of the header-id groups of old and e its key, e
// included, and returns the changes of the other files whose key changed
// (a copy became canonical or stopped being it). The caller holds mu.
func (c *listing) rekey(old, e *entry) []Change {
	var changes []Change
	ids := []string{}
	if e != nil {
		ids = append(ids, e.meta.ID)
	}
	if old != nil && (e == nil || old.meta.ID != e.meta.ID) {
		ids = append(ids, old.meta.ID)
	}
	for _, id := range ids {
		group := c.byID[id]
		canon := canonical(id, group)
		for i, x := range group {
			key := keyOf(id, x.meta.Path, x == canon)
			if x == e {
				e.meta.Key = key
				c.byKey[key] = e
				continue
			}
			if x.meta.Key == key {
				continue
			}
			nx := &entry{meta: x.meta}
			nx.meta.Key = key
			if c.byKey[x.meta.Key] == x {
				delete(c.byKey, x.meta.Key)
			}
			group[i], c.byPath[x.meta.Path], c.byKey[key] = nx, nx, nx
			changes = append(changes, Change{Kind: Removed, Meta: x.meta}, Change{Kind: Added, Meta: nx.meta})
		}
	}
	return changes
}

// canonical picks the file of a header-id group that keeps the header id
// as its key, by rank (rank): the file where pi itself writes that session
// (its cwd's folder, a file name holding the id), else one whose file name
// holds the id, else any; the smallest path among equals. It depends only
// on the group's paths and cwds, so keys are stable across restarts.
func canonical(id string, group []*entry) *entry {
	var best *entry
	for _, x := range group {
		if best == nil {
			best = x
			continue
		}
		if rx, rb := rank(id, x.meta), rank(id, best.meta); rx > rb || rx == rb && x.meta.Path < best.meta.Path {
			best = x
		}
	}
	return best
}

// rank says how much the file m looks like the original of session id: 2
// for pi's own place for it, 1 for a file name holding the id, else 0.
func rank(id string, m Meta) int {
	if pisession.IDFromFileName(m.Path) != id {
		return 0
	}
	if filepath.Base(filepath.Dir(m.Path)) == pisession.EncodeCwd(m.Cwd) {
		return 2
	}
	return 1
}

// keyOf is the API id of the file at path with header id id: the id for
// the canonical file, else the id, "~" and 8 hex digits of the SHA-256 of
// the file's name and folder (so it survives restarts, not moves).
func keyOf(id, path string, canon bool) string {
	if canon {
		return id
	}
	sum := sha256.Sum256([]byte(filepath.Clean(path)))
	return id + "~" + hex.EncodeToString(sum[:4])
}

// changesTopic is the one topic of the listing's changes.
const changesTopic = "changes"

// Changes subscribes to every later change of the listing, in order. The
// channel closes on Close, or when the subscriber fell more than 4,096
// changes behind (Lagged: subscribe again and re-read the listing).
func (c *listing) Changes() *broker.Sub[Change] {
	sub := c.changes.NewSub()
	sub.Follow(changesTopic)
	return sub
}

// ByKey finds a session by its API id.
func (c *listing) ByKey(key string) (Meta, bool) {
	return c.lookup(func() *entry { return c.byKey[key] })
}

// lookup is the session of the entry find returns under the read lock;
// false when it returns none.
func (c *listing) lookup(find func() *entry) (Meta, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if e := find(); e != nil {
		return e.meta, true
	}
	return Meta{}, false
}

// Each calls f with every listed session, under the listing's read lock:
// f must not call the catalog, change m or keep it (a copy of *m is
// the caller's).
func (c *listing) Each(f func(m *Meta)) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, e := range c.byPath {
		f(&e.meta)
	}
}

// ByPath finds a session by file path.
func (c *listing) ByPath(path string) (Meta, bool) {
	return c.lookup(func() *entry { return c.byPath[path] })
}

// Parent finds the session m was forked or cloned from.
func (c *listing) Parent(m Meta) (Meta, bool) {
	return c.lookup(func() *entry { return c.parentOf(m) })
}

// parentOf is the one place that links a fork to its parent: the session
// at the path in its header, else, when no session is listed there, the
// canonical session whose id pi wrote into that path's file name. The
// path goes stale when the user moves or copies session files or renames
// a project folder (and forkFrom may store it relative), while the parent
// is still listed under another path. The caller holds c.mu.
func (c *listing) parentOf(m Meta) *entry {
	if m.ParentPath == "" {
		return nil
	}
	if e := c.byPath[m.ParentPath]; e != nil {
		return e
	}
	id := pisession.IDFromFileName(m.ParentPath)
	if e := c.byKey[id]; e != nil && e.meta.ID == id && e.meta.Path != m.Path {
		return e
	}
	return nil
}

// Children lists the sessions forked or cloned from the session at path
// (those whose header names path when no session is listed there), oldest
// first.
func (c *listing) Children(path string) []Meta {
	c.mu.RLock()
	defer c.mu.RUnlock()
	self := c.byPath[path]
	var out []Meta
	for _, e := range c.byPath {
		if self != nil && e != self && c.parentOf(e.meta) == self ||
			self == nil && e.meta.ParentPath == path {
			out = append(out, e.meta)
		}
	}
	slices.SortFunc(out, func(a, b Meta) int {
		return cmp.Or(cmp.Compare(a.Created, b.Created), cmp.Compare(a.Path, b.Path))
	})
	return out
}

// list filters, sorts and pages the sessions. It sorts pointers (a Meta
// is ~150 bytes to swap) and copies out only the page. match, when not
// nil, keeps the sessions it accepts besides those whose name or first
// message contains q.Text.
func (c *listing) list(q ListQuery, match func(*entry) bool) Listed {
	text := strings.ToLower(q.Text)
	var counts map[string]int
	left := 0
	if q.Counts {
		counts = map[string]int{}
	}
	c.mu.RLock()
	sel := make([]*entry, 0, len(c.byPath))
	for _, e := range c.byPath {
		if q.Project != "" && e.meta.Cwd != q.Project {
			continue
		}
		if text != "" && !e.matches(text) && (match == nil || !match(e)) {
			continue
		}
		if q.Keep != nil && !q.Keep(e.meta) {
			left++
			continue
		}
		sel = append(sel, e)
		if counts != nil {
			counts[e.meta.Cwd]++
		}
	}
	c.mu.RUnlock()
	sortEntries(sel, q.Sort, q.Asc, q.First)
	total := len(sel)
	sel = Page(sel, q.Offset, q.Limit)
	out := make([]Meta, len(sel))
	for i, e := range sel {
		out[i] = e.meta
	}
	return Listed{Metas: out, Total: total, Projects: counts, Left: left}
}

// matches says whether the session's name, first message or folder
// holds text (lower case), in any case, or its id starts with it. The listing keeps no lower-cased
// copy of them: at 100,000 sessions that copy was 20 MB held for a filter
// typed now and then.
func (e *entry) matches(text string) bool {
	return containsLower(e.meta.Name, text) || containsLower(e.meta.FirstMessage, text) ||
		containsLower(e.meta.Cwd, text) || strings.HasPrefix(e.meta.Key, text)
}

// containsLower says whether s holds t (lower case) in any case: ASCII
// without allocating, other text through strings.ToLower.
func containsLower(s, t string) bool {
	if t == "" {
		return true
	}
	for i := range len(t) {
		if t[i] >= utf8.RuneSelf {
			return strings.Contains(strings.ToLower(s), t)
		}
	}
	for i := 0; i+len(t) <= len(s); i++ {
		if lowerASCII(s[i]) == t[0] && asciiEqualLower(s[i:i+len(t)], t) {
			return true
		}
	}
	return false
}

func asciiEqualLower(s, t string) bool {
	for i := range len(t) {
		if lowerASCII(s[i]) != t[i] {
			return false
		}
	}
	return true
}

func lowerASCII(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// sortEntries orders sessions, those first accepts (when set) before
// the others; ties break on path so pages are stable.
func sortEntries(es []*entry, by string, asc bool, first func(Meta) bool) {
	var names map[*entry]string
	if by == "name" {
		names = make(map[*entry]string, len(es))
		for _, e := range es {
			names[e] = strings.ToLower(DisplayName(e.meta))
		}
	}
	var firsts map[*entry]bool
	if first != nil {
		firsts = map[*entry]bool{}
		for _, e := range es {
			if first(e.meta) {
				firsts[e] = true
			}
		}
	}
	key := func(a, b *Meta) int {
		switch by {
		case "created":
			return cmp.Compare(a.Created, b.Created)
		case "messages":
			return cmp.Compare(a.MessageCount, b.MessageCount)
		case "size":
			return cmp.Compare(a.Size, b.Size)
		}
		return cmp.Compare(a.Modified, b.Modified)
	}
	slices.SortFunc(es, func(a, b *entry) int {
		if fa, fb := firsts[a], firsts[b]; fa != fb {
			return -cmp.Compare(b2i(fa), b2i(fb))
		}
		var r int
		if names != nil {
			r = cmp.Compare(names[a], names[b])
		} else {
			r = key(&a.meta, &b.meta)
		}
		if !asc {
			r = -r
		}
		if r == 0 {
			r = cmp.Compare(a.meta.Path, b.meta.Path)
		}
		return r
	})
}
