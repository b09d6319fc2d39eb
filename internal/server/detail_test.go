package server

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/apitype"
	"piweb/pisession"
)

// TestWriteDetailAsOk: a detail written a tree node at a time is the
// answer ok writes for it (the same JSON, its tree last), whatever its
// parts hold.
func TestWriteDetailAsOk(t *testing.T) {
	parent, label, leaf := "a1", "start <here>", "b2"
	tree := []pisession.TreeNode{
		{ID: "a1", Type: "message", Role: "user", Timestamp: "2026-12-05T10:00:00Z", Text: "hi & \"bye\"", Label: &label},
		{ID: "b2", ParentID: &parent, Type: "message", Role: "assistant", Text: "\u2028ok"},
	}
	for name, d := range map[string]apitype.SessionDetail{
		"empty":      {},
		"no tree":    {Leaf: &leaf, Header: json.RawMessage(`{"type":"session"}`)},
		"empty tree": {Tree: []pisession.TreeNode{}},
		"full": {Session: apitype.Item{ID: "s1", Cwd: "<b>"}, Header: json.RawMessage(`{"type":"session","id":"s1"}`),
			Leaf: &leaf, Tree: tree, Labels: map[string]string{"a1": label},
			Problems: []apitype.Problem{{Line: 3, Kind: "bad_json", Message: "not JSON"}}},
	} {
		t.Run(name, func(t *testing.T) {
			want, got := httptest.NewRecorder(), httptest.NewRecorder()
			if err := ok(want, d); err != nil {
				t.Fatal(err)
			}
			if err := writeDetail(got, d); err != nil {
				t.Fatal(err)
			}
			var wantJSON, gotJSON any
			if err := json.Unmarshal(want.Body.Bytes(), &wantJSON); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(got.Body.Bytes(), &gotJSON); err != nil {
				t.Fatalf("writeDetail wrote no JSON: %v\n%s", err, got.Body)
			}
			if diff := cmp.Diff(wantJSON, gotJSON); diff != "" {
				t.Errorf("answer (-ok +writeDetail):\n%s", diff)
			}
			if d.Tree != nil && !strings.HasSuffix(got.Body.String(), "]}\n") {
				t.Errorf("the tree is not the answer's last member:\n%s", got.Body)
			}
			if diff := cmp.Diff(want.Header(), got.Header()); diff != "" || got.Code != want.Code {
				t.Errorf("status %d, want %d; headers (-ok +writeDetail):\n%s", got.Code, want.Code, diff)
			}
		})
	}
}
