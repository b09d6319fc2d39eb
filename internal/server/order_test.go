package server

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"slices"
	"strings"
	"testing"

	"piweb/internal/apitype"
	"piweb/internal/app"
	"piweb/internal/catalog"
	"piweb/internal/own"
	"piweb/internal/testkit"
)

// TestOrderFollowsTheUser: pins and archive are set many at once, told to
// the other tabs as order_state, kept in piweb's config dir (a second
// server over it answers the same, as piweb restarted would), and never
// written into pi's session files; an unknown session cannot be pinned
// but can be unpinned, and a malformed change is refused.
func TestOrderFollowsTheUser(t *testing.T) {
	dir := t.TempDir()
	store, err := own.OpenOrder(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, Options{}, app.Config{Order: store})
	items := r.items()
	a, b, c := items[0], items[1], items[2]
	api, ctx := r.api(), t.Context()
	before := fileBytes(t, a.Path, b.Path, c.Path)
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	index := listen(t)(api.IndexEvents(sctx, ""))
	waitFor(t, index, "hello", isType("hello"))

	on, off := true, false
	if _, err := api.SetOrder(ctx, apitype.OrderChange{IDs: []string{a.ID, b.ID}, Pinned: &on}); err != nil {
		t.Fatal(err)
	}
	st, err := api.SetOrder(ctx, apitype.OrderChange{IDs: []string{b.ID, c.ID}, Archived: &on, Pinned: nil})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, index, "order_state", func(d map[string]any) bool {
		arch, _ := d["archived"].(map[string]any)
		return d["type"] == "order_state" && len(arch) == 2
	})
	if _, err := api.SetOrder(ctx, apitype.OrderChange{IDs: []string{b.ID, "gone"}, Pinned: &off}); err != nil {
		t.Errorf("unpin with an unknown id: %v", err)
	}
	for _, bad := range []struct {
		what   string
		change apitype.OrderChange
		status int
		code   string
	}{
		{"pin unknown", apitype.OrderChange{IDs: []string{a.ID, "no-such"}, Pinned: &on}, 404, "not_found"},
		{"remote without fleet", apitype.OrderChange{IDs: []string{"x@other"}, Archived: &on}, 404, "not_found"},
		{"no change", apitype.OrderChange{IDs: []string{a.ID}}, 400, "invalid"},
		{"no ids", apitype.OrderChange{Pinned: &on}, 400, "invalid"},
		{"empty id", apitype.OrderChange{IDs: []string{""}, Pinned: &off}, 400, "invalid"},
	} {
		_, err := api.SetOrder(ctx, bad.change)
		wantErr(t, bad.what, err, bad.status, bad.code)
	}

	again, err := own.OpenOrder(dir)
	if err != nil {
		t.Fatal(err)
	}
	r2 := newRig(t, Options{}, app.Config{Order: again})
	got, err := r2.api().Order(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(keys(got.Pinned), sorted(a.ID)) || !slices.Equal(keys(got.Archived), sorted(b.ID, c.ID)) {
		t.Errorf("after a restart: pinned %v archived %v; first answer %v", keys(got.Pinned), keys(got.Archived), st)
	}
	if after := fileBytes(t, a.Path, b.Path, c.Path); after != before {
		t.Error("pinning or archiving changed a session file")
	}
}

// TestOrderFleetRefs: under serve --fleet another machine's session is
// pinned and archived by its ref ID@MACHINE; a ref naming this machine, or
// malformed, is refused.
func TestOrderFleetRefs(t *testing.T) {
	r := newRig(t, Options{Fleet: &fakeFleet{}})
	api, ctx := r.api(), t.Context()
	on := true
	st, err := api.SetOrder(ctx, apitype.OrderChange{IDs: []string{"abc@far", r.items()[0].ID}, Pinned: &on, Archived: &on})
	if err != nil || len(st.Pinned) != 2 || st.Archived["abc@far"].IsZero() {
		t.Errorf("pin and archive a remote ref: %v, %v", st, err)
	}
	for _, ref := range []string{"abc@near", "@far", "abc@"} {
		_, err := api.SetOrder(ctx, apitype.OrderChange{IDs: []string{ref}, Pinned: &on})
		wantErr(t, ref, err, 400, "invalid")
	}
}

// TestExportMany: POST /api/export is one zip of the sessions named, each
// file byte for byte (jsonl) or its branch as a document (md); an unknown
// session is 404 before anything is sent.
func TestExportMany(t *testing.T) {
	r := newRig(t, Options{})
	items := r.items()
	api, ctx := r.api(), t.Context()
	ids := []string{items[0].ID, items[1].ID}
	body, hdr, err := api.ExportMany(ctx, "jsonl", ids...)
	if err != nil || hdr.Get("Content-Type") != "application/zip" {
		t.Fatalf("export: %v, %v", hdr, err)
	}
	zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil || len(zr.File) != 2 {
		t.Fatalf("zip: %v, %v", zr, err)
	}
	for i, f := range zr.File {
		if got, want := zipped(t, f), fileBytes(t, items[i].Path); got != want || !strings.HasSuffix(f.Name, ".jsonl") {
			t.Errorf("%s: %d bytes, want the file's %d", f.Name, len(got), len(want))
		}
	}
	body, _, err = api.ExportMany(ctx, "md", ids[0])
	if err != nil {
		t.Fatal(err)
	}
	zr, err = zip.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil || len(zr.File) != 1 || !strings.HasSuffix(zr.File[0].Name, ".md") || !strings.HasPrefix(zipped(t, zr.File[0]), "# ") {
		t.Errorf("md zip: %v", err)
	}
	_, _, err = api.ExportMany(ctx, "jsonl", ids[0], "no-such")
	wantErr(t, "unknown id", err, 404, "not_found")
	_, _, err = api.ExportMany(ctx, "pdf", ids[0])
	wantErr(t, "bad format", err, 400, "invalid")
}

func zipped(t *testing.T, f *zip.File) string {
	rc, err := f.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func fileBytes(t *testing.T, paths ...string) string {
	var all []byte
	for _, p := range paths {
		b := testkit.ReadFile(t, p)
		all = append(all, b...)
	}
	return string(all)
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func sorted(s ...string) []string { slices.Sort(s); return s }

// TestExportManyFleet: a bulk export takes another machine's sessions by
// their refs ID@MACHINE, from their lines as pushed to the fleet database
// (never the local file of the same id), beside this machine's; an
// unknown remote session is 404 before anything is sent, and a ref
// without the fleet is not found.
func TestExportManyFleet(t *testing.T) {
	f := &fakeFleet{}
	r := newRig(t, Options{Fleet: f})
	items := r.items()
	data := testkit.ReadFile(t, items[0].Path)
	far := `{"type":"message","id":"far00001","parentId":null,"timestamp":"2026-12-04T10:01:00.000Z","message":{"role":"user","content":"only on the far machine","timestamp":1796378460000}}` + "\n"
	f.data = append(append([]byte{}, data...), far...)
	f.meta = catalog.Meta{Key: items[0].ID, ID: items[0].ID, Path: items[0].Path, Cwd: items[0].Cwd}
	api, ctx := r.api(), t.Context()
	for _, format := range []string{"jsonl", "md"} {
		body, _, err := api.ExportMany(ctx, format, items[1].ID, items[0].ID+"@far")
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
		if err != nil || len(zr.File) != 2 {
			t.Fatalf("%s zip: %v, %v", format, zr, err)
		}
		if format == "jsonl" && (zipped(t, zr.File[0]) != fileBytes(t, items[1].Path) || zipped(t, zr.File[1]) != string(f.data)) {
			t.Errorf("jsonl: the local file and the far lines as pushed, byte for byte")
		}
		if got := zipped(t, zr.File[1]); !strings.Contains(got, "only on the far machine") {
			t.Errorf("%s: the far session without its pushed line: %.200s", format, got)
		}
	}
	_, _, err := api.ExportMany(ctx, "jsonl", items[1].ID, "no-such@far")
	wantErr(t, "an unknown far session", err, 404, "not_found")
	_, _, err = newRig(t, Options{}).api().ExportMany(ctx, "jsonl", items[0].ID+"@far")
	wantErr(t, "a ref without the fleet", err, 404, "not_found")
}
