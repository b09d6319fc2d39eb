package pisession

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"

	"piweb/internal/jsjson"
)

// TreeJSON writes the tree as pi's getTree result would be stringified:
// nodes {entry, children, label, labelTimestamp}, undefined keys left out.
// Entries keep their raw bytes; the JSON handed to others has invalid UTF-8
// replaced as Node's decoder, which pi reads files with, replaces it
// (jsjson.WellFormedBytes), so that they see what pi sees.
func TreeJSON(roots []*Node) []byte {
	var b bytes.Buffer
	writeNodes(&b, roots)
	return jsjson.WellFormedBytes(b.Bytes())
}

func writeNodes(b *bytes.Buffer, nodes []*Node) {
	b.WriteByte('[')
	for i, n := range nodes {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"entry":`)
		b.Write(n.Entry.Raw)
		b.WriteString(`,"children":`)
		writeNodes(b, n.Children)
		if n.Label != nil {
			b.WriteString(`,"label":`)
			b.Write(n.Label)
		}
		if n.LabelTimestamp != nil {
			b.WriteString(`,"labelTimestamp":`)
			b.Write(n.LabelTimestamp)
		}
		b.WriteByte('}')
	}
	b.WriteByte(']')
}

// MarshalJSON writes the listing metadata as pi's SessionInfo looks after
// JSON.stringify: dates as ISO strings (null when invalid), undefined fields
// left out. allMessagesText is left out too: it only feeds pi's search.
func (in Info) MarshalJSON() ([]byte, error) {
	b := []byte(`{"path":`)
	b = appendJSString(b, in.Path)
	b = appendRaw(b, "id", in.ID)
	b = appendRaw(b, "cwd", appendJSString(nil, in.Cwd))
	if in.HasName {
		b = appendRaw(b, "name", appendJSString(nil, in.Name))
	}
	b = appendRaw(b, "parentSessionPath", in.ParentSessionPath)
	b = appendRaw(b, "created", jsDateJSON(in.Created))
	b = appendRaw(b, "modified", jsDateJSON(in.Modified))
	b = appendRaw(b, "messageCount", strconv.AppendInt(nil, int64(in.MessageCount), 10))
	b = appendRaw(b, "firstMessage", appendJSString(nil, in.FirstMessage))
	return append(b, '}'), nil
}

func appendRaw(b []byte, key string, raw []byte) []byte {
	if raw == nil {
		return b
	}
	b = append(appendJSString(append(b, ','), key), ':')
	return append(b, raw...)
}

// jsDateJSON is a Date after JSON.stringify: its ISO string, or null.
func jsDateJSON(ms float64) []byte {
	if math.IsNaN(ms) {
		return []byte("null")
	}
	return appendJSString(nil, jsISOString(ms))
}

// appendJSString appends s quoted exactly as JSON.stringify quotes it.
func appendJSString(b []byte, s string) []byte { return jsjson.AppendString(b, s) }

// FlatTreeJSON is a tree in a flat form: nodes in depth-first pre-order,
// each listed once, children and roots as indexes, so that two trees
// compare as JSON (piweb's tests compare this package's tree with pi's
// getTree in this form).
func FlatTreeJSON(roots []*Node) []byte {
	type flat struct {
		Entry          json.RawMessage `json:"entry"`
		Label          json.RawMessage `json:"label,omitempty"`
		LabelTimestamp json.RawMessage `json:"labelTimestamp,omitempty"`
		Children       []int           `json:"children"`
	}
	index := map[*Node]int{}
	var order []*Node
	stack := make([]*Node, 0, len(roots))
	for i := len(roots) - 1; i >= 0; i-- {
		stack = append(stack, roots[i])
	}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if _, ok := index[n]; ok {
			continue
		}
		index[n] = len(order)
		order = append(order, n)
		for i := len(n.Children) - 1; i >= 0; i-- {
			stack = append(stack, n.Children[i])
		}
	}
	out := struct {
		Roots []int  `json:"roots"`
		Nodes []flat `json:"nodes"`
	}{Roots: []int{}, Nodes: []flat{}}
	for _, r := range roots {
		out.Roots = append(out.Roots, index[r])
	}
	for _, n := range order {
		f := flat{Entry: n.Entry.Raw, Label: n.Label, LabelTimestamp: n.LabelTimestamp, Children: []int{}}
		for _, c := range n.Children {
			f.Children = append(f.Children, index[c])
		}
		out.Nodes = append(out.Nodes, f)
	}
	b, _ := json.Marshal(out)
	return jsjson.WellFormedBytes(b)
}
