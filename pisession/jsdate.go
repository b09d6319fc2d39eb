package pisession

import (
	"math"
	"strconv"
	"time"
)

// pi orders children, computes message times and lists sessions with
// JavaScript's Date, so piweb reproduces the part of it that matters: the
// ECMAScript date-time string format (what toISOString writes) and numbers.
// Other strings V8 happens to accept (RFC 1123 dates and the like) are
// treated as invalid; pi never writes them.

// maxDateMs is the ECMAScript time value limit (TimeClip).
const maxDateMs = 8.64e15

// jsDateMs returns the time value of new Date(raw) for a raw JSON value, NaN
// when invalid.
func jsDateMs(raw []byte) float64 {
	switch {
	case raw == nil:
		return math.NaN()
	case raw[0] == '"':
		s, _ := jsonString(raw)
		return jsDateParse(s)
	case string(raw) == "null" || string(raw) == "false":
		return 0
	case string(raw) == "true":
		return 1
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return math.NaN()
	}
	return TimeClip(f)
}

// TimeClip is ECMAScript's TimeClip, what new Date(ms) keeps of a number:
// NaN (an Invalid Date) beyond ±8.64e15 ms or for NaN, else the number
// truncated to whole milliseconds.
func TimeClip(f float64) float64 {
	if math.IsNaN(f) || math.Abs(f) > maxDateMs {
		return math.NaN()
	}
	return math.Trunc(f) + 0 // +0 turns -0 into 0
}

// isoLayouts are the forms of the ECMAScript date time string format, date
// only forms first (those are UTC; forms with a time and no offset are local
// time).
var isoLayouts = []struct {
	layout string
	utc    bool
}{
	{"2006", true}, {"2006-01", true}, {"2006-01-02", true},
	{"2006-01-02T15:04Z07:00", false}, {"2006-01-02T15:04:05Z07:00", false},
	{"2006-01-02T15:04:05.000Z07:00", false},
	{"2006-01-02T15:04", false}, {"2006-01-02T15:04:05", false}, {"2006-01-02T15:04:05.000", false},
}

// jsDateParse parses s as Date.parse does for the ISO format.
func jsDateParse(s string) float64 {
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		return parseExpandedYear(s)
	}
	for _, l := range isoLayouts {
		loc := time.Local
		if l.utc {
			loc = time.UTC
		}
		t, err := time.ParseInLocation(l.layout, s, loc)
		if err == nil {
			return TimeClip(float64(t.UnixMilli()))
		}
	}
	return math.NaN()
}

// parseExpandedYear handles the six-digit signed years of toISOString.
func parseExpandedYear(s string) float64 {
	if len(s) < 7 {
		return math.NaN()
	}
	year, err := strconv.Atoi(s[1:7])
	if err != nil || (s[0] == '-' && year == 0) {
		return math.NaN()
	}
	if s[0] == '-' {
		year = -year
	}
	rest := jsDateParse("2000" + s[7:])
	if math.IsNaN(rest) {
		return rest
	}
	t := time.UnixMilli(int64(rest)).UTC()
	t = t.AddDate(year-2000, 0, 0)
	return TimeClip(float64(t.UnixMilli()))
}

// jsISOString formats a time value as Date.prototype.toISOString does.
func jsISOString(ms float64) string {
	t := time.UnixMilli(int64(ms)).UTC()
	y := t.Year()
	if y >= 0 && y <= 9999 {
		return t.Format("2006-01-02T15:04:05.000Z")
	}
	sign := "+"
	if y < 0 {
		sign, y = "-", -y
	}
	return sign + leftPad(strconv.Itoa(y), 6) + t.Format("-01-02T15:04:05.000Z")
}

func leftPad(s string, n int) string {
	for len(s) < n {
		s = "0" + s
	}
	return s
}

// StampMs is an entry's ISO timestamp (as pi writes it) in ms since the
// epoch, 0 when it has none or it does not parse.
func StampMs(ts string) int64 {
	if ts == "" {
		return 0
	}
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return 0
	}
	return t.UnixMilli()
}
