package server

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"piweb/internal/apitype"
	"piweb/internal/catalog"
	"piweb/internal/client"
	"piweb/internal/fleet"
	"piweb/internal/testkit"
)

// fakeFleet is a fleet whose other machine, "far", has one session: a
// copy of a local session (same id, same path) with a line this machine's
// file does not have.
type fakeFleet struct {
	meta catalog.Meta
	data []byte
}

func (f *fakeFleet) Sessions(context.Context, catalog.ListQuery, string) (apitype.SessionList, error) {
	return apitype.SessionList{}, nil
}
func (f *fakeFleet) Search(context.Context, catalog.SearchQuery) (apitype.Search, error) {
	return apitype.Search{}, nil
}
func (f *fakeFleet) Usage(context.Context, fleet.UsageQuery) ([]catalog.UsageRow, error) {
	return nil, nil
}
func (f *fakeFleet) UsageSessions(context.Context, time.Time, int) ([]apitype.UsageSession, error) {
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
	data := testkit.ReadFile(t, local.Path)
	leaf := lastID(t, r, local.ID)
	extra := `{"type":"message","id":"far00001","parentId":"` + leaf + `","timestamp":"2026-12-04T10:01:00.000Z","message":{"role":"user","content":"only on the far machine","timestamp":1796378460000}}` + "\n"
	f.data = append(append([]byte{}, data...), extra...)
	f.meta = catalog.Meta{Key: local.ID, ID: local.ID, Path: local.Path, Cwd: local.Cwd}
	ctx, far := t.Context(), r.api().On("far")
	det, err := far.Session(ctx, local.ID)
	if err != nil || det.Leaf == nil || *det.Leaf != "far00001" || det.Session.Machine != "far" ||
		!strings.Contains(jsonOf(det.Tree), "only on the far machine") {
		t.Errorf("detail of the far copy: leaf %v, machine %q, tree without the far line (%v)", det.Leaf, det.Session.Machine, err)
	}
	page, err := far.Context(ctx, local.ID, client.PageOptions{})
	if err != nil || !strings.Contains(jsonOf(page.Messages), "only on the far machine") {
		t.Errorf("context of the far copy lacks its line (%v)", err)
	}
	for _, c := range []struct{ format, scope, want string }{
		{"jsonl", "", string(f.data)},
		{"jsonl", "branch", "only on the far machine"},
		{"md", "", "only on the far machine"},
		{"html", "", "only on the far machine"},
	} {
		b, _, err := far.Export(ctx, local.ID, c.format, c.scope)
		if err != nil || !strings.Contains(string(b), c.want) {
			t.Errorf("export %s %s: %v, %d bytes without %.40q", c.format, c.scope, err, len(b), c.want)
		}
	}
	_, err = far.Rename(ctx, local.ID, "renamed from afar")
	wantErr(t, "a rename of the far copy", err, 403, "forbidden")
	// files is forwarded to its machine (proxy.go); this piweb has no
	// fleet key, so nothing goes and nothing is served from here.
	wantErr(t, "files of the far copy", second(far.Files(ctx, local.ID, "")), 502, "unavailable")
	wantErr(t, "changes of the far copy", second(far.Changes(ctx, local.ID)), 502, "unavailable")
	if got, _ := os.ReadFile(local.Path); string(got) != string(data) {
		t.Errorf("the local file changed")
	}
	wantErr(t, "a session of an unknown machine", second(r.api().On("nowhere").Session(ctx, local.ID)), 404, "not_found")
	if det, err := r.api().On("near").Session(ctx, local.ID); err != nil || det.Leaf == nil || *det.Leaf != leaf {
		t.Errorf("this machine's own name reads the local file: leaf %v, want %s (%v)", det.Leaf, leaf, err)
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
