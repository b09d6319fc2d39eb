package naming

import (
	"strings"
	"testing"
)

func TestAutoName(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"fix the flaky parser test", "fix the flaky parser test"},
		{"\n\n  fix   the\tparser \nand more lines", "fix the parser"},
		{"/compact now", ""},
		{"!ls", ""},
		{"   ", ""},
		{"please refactor the index package so that the listing pass streams every file through one reused buffer", "please refactor the index package so that the listing pass…"},
		{strings.Repeat("x", 100), strings.Repeat("x", 60) + "…"},
	} {
		if got := autoName(c.in); got != c.want {
			t.Errorf("autoName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestModelTitle(t *testing.T) {
	for in, want := range map[string]string{
		`"Flaky parser test fix."`:        "Flaky parser test fix",
		"**Fix the build**\nmore text":    "Fix the build",
		"  “Dark theme”  ":                "Dark theme",
		"":                                "",
		"/compact":                        "",
		strings.Repeat("word ", 30) + ".": strings.TrimSpace(strings.Repeat("word ", 12)) + "…",
	} {
		if got := modelTitle(in); got != want {
			t.Errorf("modelTitle(%q) = %q, want %q", in, got, want)
		}
	}
}
