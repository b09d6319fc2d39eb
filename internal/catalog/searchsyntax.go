package catalog

import (
	"fmt"
	"piweb/internal/apitype"
	"slices"
	"strings"
	"time"
	"unicode"
)

// The search box's filters, parsed here and nowhere else (the page shows
// the parsed filters as chips, and the fleet takes the same SearchQuery):
//
//	project:api  after:2026-11-01  before:2026-12-01  role:user,tool
//	model:opus   branch:current|abandoned|all
//
// A filter is a token key:value outside "quotes", the key letters only;
// the value may be "quoted" (project:"my app"). after: keeps entries from
// the start of that day, before: those before the start of that day, in
// the page's time zone. Words that are not filters are the text searched.
// An unknown key, a bad date, role or branch is left out with a warning
// that names it, and the rest is searched; quoting a token ("note:x")
// searches it as text.

// Filter is one filter of the search text, as the page shows it as a
// chip (apitype.SearchFilter).
type Filter = apitype.SearchFilter

// SearchRoles are role: values and the message roles each keeps.
var SearchRoles = map[string][]string{
	"user":      {"user"},
	"assistant": {"assistant"},
	"tool":      {"toolResult", "bashExecution"},
}

// SearchBranches are the branch: values.
var SearchBranches = []string{"all", "current", "abandoned"}

// dateLayout is the form of after: and before:.
const dateLayout = "2006-01-02"

// ParseSearch reads the filters out of text; loc is the time zone of the
// dates (the page's). Every token is either a filter, a warning or text.
func ParseSearch(text string, loc *time.Location) SearchQuery {
	q := SearchQuery{}
	var words []string
	for _, tok := range searchTokens(text) {
		key, value, ok := filterToken(tok)
		if !ok {
			words = append(words, tok)
			continue
		}
		if w := q.addFilter(key, value, tok, loc); w != "" {
			q.Warnings = append(q.Warnings, w)
		}
	}
	q.Text = strings.Join(words, " ")
	return q
}

// searchTokens splits text at spaces outside "quotes", quotes kept, the
// bytes of each token as they are in text.
func searchTokens(text string) []string {
	var out []string
	start, quoted := -1, false
	for i, r := range text {
		if r == '"' {
			quoted = !quoted
		}
		switch {
		case unicode.IsSpace(r) && !quoted:
			if start >= 0 {
				out = append(out, text[start:i])
			}
			start = -1
		case start < 0:
			start = i
		}
	}
	if start >= 0 {
		out = append(out, text[start:])
	}
	return out
}

// filterToken splits key:value; ok is false for a token that is text.
func filterToken(tok string) (key, value string, ok bool) {
	key, value, found := strings.Cut(tok, ":")
	if !found || key == "" || value == "" || strings.IndexFunc(key, notASCIILetter) >= 0 {
		return "", "", false
	}
	if strings.HasPrefix(value, "//") { // a URL, not a filter
		return "", "", false
	}
	return strings.ToLower(key), strings.Trim(value, `"`), true
}

func notASCIILetter(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') }

// addFilter applies one filter; the answer is a warning, "" when it applied.
func (q *SearchQuery) addFilter(key, value, raw string, loc *time.Location) string {
	switch key {
	case "project":
		q.Projects = append(q.Projects, value)
	case "model":
		q.Model = value
	case "after", "before":
		d, err := time.ParseInLocation(dateLayout, value, loc)
		if err != nil {
			return fmt.Sprintf("%s: %q is not a date (YYYY-MM-DD); left out", key, value)
		}
		if key == "after" {
			q.From = d
		} else {
			q.To = d
		}
	case "role":
		return q.addRoles(value, raw)
	case "branch":
		value = strings.ToLower(value)
		if !slices.Contains(SearchBranches, value) {
			return fmt.Sprintf("branch: %q is not current, abandoned or all; left out", value)
		}
		q.Branch = value
	default:
		return fmt.Sprintf("unknown filter %q (filters: project, after, before, role, model, branch); left out — put it in quotes to search for it", key+":")
	}
	q.Filters = append(q.Filters, Filter{Key: key, Value: value, Raw: raw})
	return ""
}

// addRoles applies role:a,b: the roles it knows, and a warning naming
// those it does not.
func (q *SearchQuery) addRoles(value, raw string) string {
	var good, bad []string
	for _, r := range strings.Split(strings.ToLower(value), ",") {
		if _, ok := SearchRoles[r]; !ok {
			bad = append(bad, r)
			continue
		}
		good = append(good, r)
		if !slices.Contains(q.Roles, r) {
			q.Roles = append(q.Roles, r)
		}
	}
	if len(good) > 0 {
		q.Filters = append(q.Filters, Filter{Key: "role", Value: strings.Join(good, ","), Raw: raw})
	}
	if len(bad) > 0 {
		return fmt.Sprintf("role: %q is not user, assistant or tool; left out", strings.Join(bad, ","))
	}
	return ""
}
