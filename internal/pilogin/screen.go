package pilogin

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// screen turns what pi writes to its terminal into lines of text, as a
// terminal would show them: carriage returns and cursor moves to a column
// overwrite, erases cut the line, other escape sequences and control
// characters are dropped. It is only as much of a terminal as pi's
// `auth login` uses (its prompts are drawn with CSI G and J).
type screen struct {
	lines []string
	cur   []rune
	col   int
	esc   []byte // an escape sequence being read
}

// maxLines bounds the lines kept of one sign-in's output, maxCols the
// column a cursor move may reach (a line never grows past it).
const (
	maxLines = 200
	maxCols  = 4096
)

func (s *screen) write(p []byte) {
	for _, r := range string(p) {
		s.put(r)
	}
}

func (s *screen) put(r rune) {
	if s.esc != nil {
		s.escape(r)
		return
	}
	switch {
	case r == 0x1b:
		s.esc = []byte{}
	case r == '\n':
		s.lines = append(s.lines, strings.TrimRightFunc(string(s.cur), unicode.IsSpace))
		if len(s.lines) > maxLines {
			s.lines = s.lines[len(s.lines)-maxLines:]
		}
		s.cur, s.col = nil, 0
	case r == '\r':
		s.col = 0
	case r == '\b':
		s.col = max(0, s.col-1)
	case r == '\t':
		s.text(' ')
	case unicode.IsControl(r):
	default:
		s.text(r)
	}
}

func (s *screen) text(r rune) {
	if s.col >= maxCols {
		return
	}
	for len(s.cur) < s.col {
		s.cur = append(s.cur, ' ')
	}
	if s.col < len(s.cur) {
		s.cur[s.col] = r
	} else {
		s.cur = append(s.cur, r)
	}
	s.col++
}

// escape reads one byte of an escape sequence: CSI (ESC [ params final),
// OSC (ESC ] ... BEL or ESC \), or a two-byte one.
func (s *screen) escape(r rune) {
	if r > 0x7f || len(s.esc) > 256 {
		s.esc = nil
		return
	}
	s.esc = append(s.esc, byte(r))
	e := s.esc
	switch {
	case len(e) == 1 && e[0] != '[' && e[0] != ']':
		s.esc = nil
	case e[0] == '[' && len(e) > 1 && r >= 0x40 && r <= 0x7e:
		s.csi(string(e[1:len(e)-1]), byte(r))
		s.esc = nil
	case e[0] == ']' && (r == 0x07 || (r == '\\' && len(e) > 1 && e[len(e)-2] == 0x1b)):
		s.esc = nil
	}
}

func (s *screen) csi(params string, final byte) {
	n, err := strconv.Atoi(params)
	// No move goes past maxCols, and a count past int's range (Atoi then
	// answers the largest int) must not overflow the column.
	n = min(n, maxCols)
	switch final {
	case 'G':
		if err != nil || n < 1 {
			n = 1
		}
		s.col = min(n-1, maxCols)
	case 'J', 'K':
		if params == "" || n == 0 {
			s.cur = s.cur[:min(s.col, len(s.cur))]
		}
	case 'C':
		s.col = min(s.col+max(n, 1), maxCols)
	case 'D':
		s.col = max(0, s.col-max(n, 1))
	}
}

// partial is the line being written, with no newline yet (a prompt).
func (s *screen) partial() string { return strings.TrimSpace(string(s.cur)) }

// The lines of pi's `auth login` that name where to sign in
// (cli/auth-login.js: the auth_url and device_code events).
var deviceRE = regexp.MustCompile(`^Open (\S+) and enter code: (\S+)$`)

// signInPage finds the page pi asks the user to open, and the code to enter
// there for a device-code sign-in; only http and https URLs count.
func signInPage(lines []string) (page, code string) {
	for i, l := range lines {
		l = strings.TrimSpace(l)
		if l == "Open this URL to sign in:" && i+1 < len(lines) {
			if u := webURL(strings.TrimSpace(lines[i+1])); u != "" {
				page, code = u, ""
			}
		} else if m := deviceRE.FindStringSubmatch(l); m != nil {
			if u := webURL(m[1]); u != "" {
				page, code = u, m[2]
			}
		}
	}
	return page, code
}

// webURL is s when it is an absolute http or https URL with a host, else "".
func webURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return s
}
