package pisession

import (
	"encoding/json"
	"strings"
)

// TreeNode is one entry of a compact, flat tree (CompactTree; piweb's API
// answers it for a session): every entry with an id, its parent, its
// one-line preview (Text) and its label, the JSON keys as tagged; a nil
// ParentID is a root, a nil Label none.
type TreeNode struct {
	ID        string  `json:"id"`
	ParentID  *string `json:"parentId"`
	Type      string  `json:"type"`
	Role      string  `json:"role,omitempty"`
	Timestamp string  `json:"timestamp"`
	Text      string  `json:"text"`
	Label     *string `json:"label"`
}

// CompactTree lists every entry with an id in file order, labelled from
// labels (LabelMap's).
func (s *Session) CompactTree(labels map[string]string) []TreeNode {
	tree := make([]TreeNode, 0, len(s.Entries))
	for _, e := range s.Entries {
		if e.ID == "" {
			continue
		}
		n := nodeOf(e)
		if l, found := labels[e.ID]; found {
			n.Label = &l
		}
		tree = append(tree, n)
	}
	return tree
}

// nodeOf is e's node, without label.
func nodeOf(e *Entry) TreeNode {
	n := TreeNode{ID: e.ID, Type: e.Type, Role: e.Role(), Timestamp: e.Timestamp, Text: preview(e)}
	if e.HasParent() && e.ParentID != "" {
		p := e.ParentID
		n.ParentID = &p
	}
	return n
}

// LabelMap resolves the labels once (Labels), keyed by entry id; labels of
// targets that are not string ids, and values that are not strings, are
// left out.
func (s *Session) LabelMap() map[string]string {
	labels := map[string]string{}
	for _, l := range s.Labels() {
		id, isStr := strings.CutPrefix(l.TargetKey, "s")
		var v string
		if isStr && json.Unmarshal(l.Value, &v) == nil {
			labels[id] = v
		}
	}
	return labels
}
