package export

import (
	"errors"
	"strings"
	"testing"
)

func TestDocument(t *testing.T) {
	d := Doc{Title: "Dark theme", ID: "abc"}
	for _, c := range []struct {
		format, mediaType string
		err               error
	}{
		{"md", "text/markdown; charset=utf-8", nil},
		{"html", "text/html; charset=utf-8", nil},
		{"pdf", "", ErrFormat},
		{"", "", ErrFormat},
	} {
		body, mt, err := Document(c.format, d)
		if !errors.Is(err, c.err) || mt != c.mediaType {
			t.Errorf("%q: media type %q, %v; want %q, %v", c.format, mt, err, c.mediaType, c.err)
		}
		if c.err == nil && !strings.Contains(string(body), "Dark theme") {
			t.Errorf("%q: the title is missing:\n%s", c.format, body)
		}
	}
}
