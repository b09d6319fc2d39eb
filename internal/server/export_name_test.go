package server

import (
	"mime"
	"strings"
	"testing"
)

// TestExportName: a download is named after the session (issue 25.8).
func TestExportName(t *testing.T) {
	const id = "0194a2b3-c4d5-7e6f-8091-a2b3c4d5e6f7"
	long := strings.Repeat("word ", 30)
	for _, c := range []struct {
		name    string
		hasName bool
		want    string
	}{
		{"", false, "pi-session-" + id},
		{"Fix the login bug", true, "Fix-the-login-bug-0194a2b3"},
		{"  ../../etc/passwd  ", true, "etc-passwd-0194a2b3"},
		{"修复 登录", true, "修复-登录-0194a2b3"},
		{"!!!", true, "pi-session-" + id},
		{long, true, strings.Repeat("word-", 13)[:61] + "-0194a2b3"},
	} {
		if got := exportName(Meta{ID: id, Name: c.name, HasName: c.hasName}); got != c.want {
			t.Errorf("exportName(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestExportNamed: the exports of a renamed session carry its name, a
// name that is not ASCII too.
func TestExportNamed(t *testing.T) {
	r := newRig(t, Options{})
	ctx, api := t.Context(), r.api()
	s := r.item("Fix the flaky")
	if _, err := api.Rename(ctx, s.ID, "Flaky dates: 修复"); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"jsonl", "md", "html"} {
		_, h, err := api.Export(ctx, s.ID, format, "")
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		_, params, err := mime.ParseMediaType(h.Get("Content-Disposition"))
		if want := "Flaky-dates-修复-" + s.ID[:8] + "." + format; err != nil || params["filename"] != want {
			t.Errorf("%s: filename %q (%v), want %q", format, params["filename"], err, want)
		}
	}
}
