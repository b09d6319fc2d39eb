package pisession

import (
	"slices"
	"strings"
)

// PathTo returns the entries from the root down to leaf, following parentId
// links the way pi's getBranch does. Unlike pi it stops when a link loops
// back, so a corrupt file cannot hang piweb.
func (s *Session) PathTo(leaf *Entry) []*Entry {
	var path []*Entry
	j := -1 // the index of cur in Entries while the path runs back through them one by one
	if s.linked && len(s.Entries) > 0 && s.Entries[len(s.Entries)-1] == leaf {
		j = len(s.Entries) - 1
	}
	for cur := leaf; cur != nil; {
		if len(path) > len(s.Entries) { // a loop: walk again, watching for it
			return s.pathToLooping(leaf)
		}
		path = append(path, cur)
		if j > 0 && (cur.afterParent || s.Entries[j-1].idK() == cur.parentK() && cur.HasParent()) {
			j-- // ids are unique (linked): the entry before is the parent
			cur = s.Entries[j]
			continue
		}
		cur, j = s.parentOf(cur), -1
	}
	slices.Reverse(path)
	return path
}

// pathToLooping is PathTo for a path that loops back.
func (s *Session) pathToLooping(leaf *Entry) []*Entry {
	var path []*Entry
	seen := map[*Entry]bool{}
	for cur := leaf; cur != nil && !seen[cur]; cur = s.parentOf(cur) {
		seen[cur] = true
		path = append(path, cur)
	}
	slices.Reverse(path)
	return path
}

// Node is one entry of the tree pi's getTree returns.
type Node struct {
	Entry    *Entry
	Children []*Node
	// Label is the entry's current label and LabelTimestamp the timestamp
	// of the label entry that set it; both raw JSON, nil when unlabelled.
	Label          []byte
	LabelTimestamp []byte
}

// Label is the resolved bookmark of one entry.
type Label struct {
	// TargetKey is the target's id as a map key (see Entry.IDKey).
	TargetKey string
	// Value is the raw JSON of the label, Timestamp the raw JSON of the
	// label entry's timestamp.
	Value, Timestamp []byte
}

// Labels resolves labels over all entries in file order, as pi does: the
// last label entry for a target wins and a falsy label clears it. The result
// keeps pi's map order (a re-set keeps its place, a clear then set moves to
// the end).
func (s *Session) Labels() []Label {
	var out []Label
	index := map[string]int{}
	for _, e := range s.Entries {
		if e.Type != "label" || !e.IsObject() {
			continue
		}
		target := valueKey(e.Field("targetId"))
		v := e.Field("label")
		if !truthyKey(valueKey(v)) {
			if i, ok := index[target]; ok {
				out = slices.Delete(out, i, i+1)
				delete(index, target)
				for k, j := range index {
					if j > i {
						index[k] = j - 1
					}
				}
			}
			continue
		}
		l := Label{TargetKey: target, Value: v, Timestamp: e.Field("timestamp")}
		if i, ok := index[target]; ok {
			out[i] = l
		} else {
			index[target] = len(out)
			out = append(out, l)
		}
	}
	return out
}

// LabelOf returns the current label of the entry with the given id.
func (s *Session) LabelOf(id string) (string, bool) {
	for _, l := range s.Labels() {
		if l.TargetKey == "s"+id {
			return jsonString(l.Value)
		}
	}
	return "", false
}

// Name returns the session name as pi 0.73 reads it: the latest session_info
// entry in file order wins, trimmed; an empty name clears it.
func (s *Session) Name() string {
	for i := len(s.Entries) - 1; i >= 0; i-- {
		if e := s.Entries[i]; e.Type == "session_info" && e.IsObject() {
			name, _ := e.String("name")
			return strings.TrimFunc(name, isJSSpace)
		}
	}
	return ""
}

// Tree builds pi's getTree: roots in file order, children sorted by
// timestamp (oldest first, stable), with labels attached. Entries whose
// parent is missing are roots, as are entries that name themselves.
func (s *Session) Tree() []*Node {
	labels := map[string]Label{}
	for _, l := range s.Labels() {
		labels[l.TargetKey] = l
	}
	nodes := make(map[string]*Node, len(s.Entries))
	for _, e := range s.Entries {
		n := &Node{Entry: e}
		if l, ok := labels[e.idK()]; ok {
			n.Label, n.LabelTimestamp = l.Value, l.Timestamp
		}
		nodes[e.idK()] = n
	}
	var roots []*Node
	for _, e := range s.Entries {
		n := nodes[e.idK()]
		if e.parentIsNull() || e.parentK() == e.idK() {
			roots = append(roots, n)
		} else if p := nodes[e.parentK()]; p != nil {
			p.Children = append(p.Children, n)
		} else {
			roots = append(roots, n)
		}
	}
	sortChildren(roots)
	return roots
}

// sortChildren sorts every node's children by timestamp, iteratively. A node
// reachable twice (duplicate ids) is sorted once; sorting is idempotent.
func sortChildren(roots []*Node) {
	stack := slices.Clone(roots)
	done := map[*Node]bool{}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if done[n] {
			continue
		}
		done[n] = true
		slices.SortStableFunc(n.Children, func(a, b *Node) int {
			return compareTime(jsDateMs(a.Entry.timeValue()), jsDateMs(b.Entry.timeValue()))
		})
		stack = append(stack, n.Children...)
	}
}

// compareTime compares two times in ms the way pi's sort comparator does:
// a NaN difference counts as equal.
func compareTime(a, b float64) int {
	d := a - b
	switch {
	case d < 0:
		return -1
	case d > 0:
		return 1
	}
	return 0
}

// timeValue returns the raw JSON of the entry's timestamp member.
func (e *Entry) timeValue() []byte {
	if e.kind != kindObject {
		return nil
	}
	return e.Field("timestamp")
}

// OnChainAfter reports whether want is on the path from the root to the
// file's leaf, at or after base (anywhere when base is "").
func (s *Session) OnChainAfter(want, base string) bool {
	path := s.PathTo(s.Leaf())
	for i := len(path) - 1; i >= 0; i-- {
		id := path[i].ID
		if id == want {
			return true
		}
		if id == base {
			return false
		}
	}
	return false
}
