package server

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"piweb/internal/apitype"
	"piweb/internal/catalog"
	"piweb/internal/fleet"
)

// fakeFleet is a fleet whose other machine, "far", has one session: a
// copy of a local session (same id, same path) with a line this machine's
// file does not have.
type fakeFleet struct {
	meta catalog.Meta
	data []byte
}

func (f *fakeFleet) Sessions(context.Context, catalog.ListQuery, string) (fleet.List, error) {
	return fleet.List{}, nil
}
func (f *fakeFleet) Search(context.Context, catalog.SearchQuery) (fleet.Search, error) {
	return fleet.Search{}, nil
}
func (f *fakeFleet) Usage(context.Context, string, string, time.Time) ([]catalog.UsageRow, error) {
	return nil, nil
}
func (f *fakeFleet) Session(_ context.Context, machine, id string) (catalog.Meta, []byte, error) {
	if machine != "far" || id != f.meta.Key {
		return catalog.Meta{}, nil, fleet.ErrNoSession
	}
	return f.meta, f.data, nil
}
func (f *fakeFleet) Machines(context.Context, time.Time) ([]fleet.MachineInfo, error) {
	return nil, nil
}
func (f *fakeFleet) Machine() string             { return "near" }
func (f *fakeFleet) Status() apitype.FleetStatus { return apitype.FleetStatus{} }

// TestRemoteSession: another machine's session is read from what the
// fleet has (detail with its tree, context, every export) even where this
// machine has a file of the same id and path, and a route that writes
// refuses it instead of acting on the local file.
func TestRemoteSession(t *testing.T) {
	f := &fakeFleet{}
	r := newRig(t, Options{Fleet: f})
	local := r.items()[0]
	data, err := os.ReadFile(local.Path)
	if err != nil {
		t.Fatal(err)
	}
	leaf := lastID(t, r, local.ID)
	extra := `{"type":"message","id":"far00001","parentId":"` + leaf + `","timestamp":"2026-12-04T10:01:00.000Z","message":{"role":"user","content":"only on the far machine","timestamp":1796378460000}}` + "\n"
	f.data = append(append([]byte{}, data...), extra...)
	f.meta = catalog.Meta{Key: local.ID, ID: local.ID, Path: local.Path, Cwd: local.Cwd}
	q := "?machine=far"
	det := r.json("GET", "/api/sessions/"+local.ID+q, nil, 200)
	if det["leaf"] != "far00001" || !strings.Contains(jsonOf(det["tree"]), "only on the far machine") {
		t.Errorf("detail of the far copy: leaf %v, tree without the far line", det["leaf"])
	}
	ctx := r.json("GET", "/api/sessions/"+local.ID+"/context"+q, nil, 200)
	if !strings.Contains(jsonOf(ctx["messages"]), "only on the far machine") {
		t.Errorf("context of the far copy lacks its line")
	}
	for _, c := range []struct{ query, want string }{
		{"format=jsonl", string(f.data)},
		{"format=jsonl&scope=branch", "only on the far machine"},
		{"format=md", "only on the far machine"},
		{"format=html", "only on the far machine"},
	} {
		resp := r.do("GET", "/api/sessions/"+local.ID+"/export"+q+"&"+c.query, nil)
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || !strings.Contains(string(b), c.want) {
			t.Errorf("export %s: %d, %d bytes without %.40q", c.query, resp.StatusCode, len(b), c.want)
		}
	}
	r.json("POST", "/api/sessions/"+local.ID+"/rename"+q, map[string]any{"name": "renamed from afar"}, 403)
	// files is forwarded to its machine (proxy.go); this piweb has no
	// fleet key, so nothing goes and nothing is served from here.
	r.json("GET", "/api/sessions/"+local.ID+"/files"+q, nil, 502)
	r.json("GET", "/api/sessions/"+local.ID+"/changes"+q, nil, 502)
	if got, _ := os.ReadFile(local.Path); string(got) != string(data) {
		t.Errorf("the local file changed")
	}
	r.json("GET", "/api/sessions/"+local.ID+"?machine=nowhere", nil, 404)
	if det := r.json("GET", "/api/sessions/"+local.ID+"?machine=near", nil, 200); det["leaf"] != leaf {
		t.Errorf("this machine's own name reads the local file: leaf %v, want %s", det["leaf"], leaf)
	}
}

// lastID is the leaf of a local session.
func lastID(t *testing.T, r *rig, id string) string {
	t.Helper()
	leaf, _ := r.json("GET", "/api/sessions/"+id, nil, 200)["leaf"].(string)
	return leaf
}

// jsonOf is v as JSON text.
func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
