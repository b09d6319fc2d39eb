package catalog

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestParseSearch(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skip("no tz data:", err)
	}
	day := func(s string, loc *time.Location) time.Time {
		d, _ := time.ParseInLocation(dateLayout, s, loc)
		return d
	}
	f := func(key, value, raw string) Filter { return Filter{Key: key, Value: value, Raw: raw} }
	tests := []struct {
		text string
		loc  *time.Location
		want SearchQuery
	}{
		{text: "plain words", want: SearchQuery{Text: "plain words"}},
		{text: "project:api after:2026-11-01 before:2026-12-01 role:user model:opus branch:current fix bug",
			want: SearchQuery{Text: "fix bug", Projects: []string{"api"}, From: day("2026-11-01", time.UTC),
				To: day("2026-12-01", time.UTC), Roles: []string{"user"}, Model: "opus", Branch: "current",
				Filters: []Filter{f("project", "api", "project:api"), f("after", "2026-11-01", "after:2026-11-01"),
					f("before", "2026-12-01", "before:2026-12-01"), f("role", "user", "role:user"), f("model", "opus", "model:opus"),
					f("branch", "current", "branch:current")}}},
		{text: "after:2026-11-01 x", loc: paris, want: SearchQuery{Text: "x", From: day("2026-11-01", paris),
			Filters: []Filter{f("after", "2026-11-01", "after:2026-11-01")}}},
		{text: `PROJECT:"my app" "a:b phrase" role:tool,User`, want: SearchQuery{Text: `"a:b phrase"`,
			Projects: []string{"my app"}, Roles: []string{"tool", "user"},
			Filters: []Filter{f("project", "my app", `PROJECT:"my app"`), f("role", "tool,user", "role:tool,User")}}},
		{text: "foo:bar error", want: SearchQuery{Text: "error",
			Warnings: []string{`unknown filter "foo:" (filters: project, after, before, role, model, branch); left out — put it in quotes to search for it`}}},
		{text: "after:2026-13-01 before:soon x", want: SearchQuery{Text: "x", Warnings: []string{
			`after: "2026-13-01" is not a date (YYYY-MM-DD); left out`, `before: "soon" is not a date (YYYY-MM-DD); left out`}}},
		{text: "role:user,robot branch:maybe x", want: SearchQuery{Text: "x", Roles: []string{"user"},
			Filters:  []Filter{f("role", "user", "role:user,robot")},
			Warnings: []string{`role: "robot" is not user, assistant or tool; left out`, `branch: "maybe" is not current, abandoned or all; left out`}}},
		{text: "TypeError: http://x.y/z 12:30 a.b:c role: :x", want: SearchQuery{Text: "TypeError: http://x.y/z 12:30 a.b:c role: :x"}},
		{text: "branch:Abandoned", want: SearchQuery{Branch: "abandoned", Filters: []Filter{f("branch", "abandoned", "branch:Abandoned")}}},
		{text: `"unclosed project:x`, want: SearchQuery{Text: `"unclosed project:x`}},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			got := ParseSearch(tt.text, locOr(tt.loc, time.UTC))
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func locOr(l, d *time.Location) *time.Location {
	if l == nil {
		return d
	}
	return l
}

// FuzzParseSearch: any text parses; every filter's raw token is in the
// text, so that the page can remove its chip; the words left are the
// text's own tokens; parsing the words again finds no filter.
func FuzzParseSearch(f *testing.F) {
	for _, s := range []string{"", "project:api after:2026-11-01 before:2026-12-01 role:user model:opus branch:all x",
		`project:"a b" "q:uo" x`, "foo:bar", "after:2026-02-30", "role:,,", `"`, "a:\x00", "é:ü role:tool,tool"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		q := ParseSearch(text, time.UTC)
		for _, fl := range q.Filters {
			if !strings.Contains(text, fl.Raw) {
				t.Errorf("filter %+v not in %q", fl, text)
			}
		}
		if utf8.ValidString(text) {
			again := ParseSearch(q.Text, time.UTC)
			if len(again.Filters)+len(again.Warnings) != 0 || again.Text != q.Text {
				t.Errorf("words %q of %q parse again as %+v", q.Text, text, again)
			}
		}
	})
}
