package pisession

import (
	"math"
	"strconv"
	"strings"
	"time"

	"piweb/internal/jsjson"
)

// NoMessages is pi's first message of a session with no user message
// yet (its listing writes this placeholder, as pi's does).
const NoMessages = "(no messages)"

// Info is a session's listing metadata with the semantics of pi's
// SessionInfo (SessionManager.list and listAll), so that piweb's listing
// agrees with pi's on every file.
type Info struct {
	Path string
	// ID is the raw JSON of the header id (pi does not check its type here).
	ID  []byte
	Cwd string
	// Name is the session name; HasName is false when pi's is undefined.
	Name    string
	HasName bool
	// ParentSessionPath is the raw JSON of the header's parentSession, nil
	// when absent.
	ParentSessionPath []byte
	// Created is the header timestamp as a JavaScript time value in ms,
	// NaN for pi's Invalid Date. Modified is pi's modified: the last
	// activity as a Date (NaN, an Invalid Date, when that number is beyond
	// a Date's range), else Created from a string, else the file's mtime.
	Created, Modified float64
	// Activity is pi's lastActivityTime, the number Modified is made from
	// (0 when the file has none), finite: an overflowing JSON number
	// (Infinity in JavaScript) counts as ±math.MaxFloat64, which makes the
	// same Invalid Date.
	Activity     float64
	MessageCount int
	FirstMessage string
	// AllMessagesText joins the text of every user and assistant message.
	AllMessagesText string
}

// InfoBuilder accumulates Info over a file's records in file order, so the
// index can keep it current while a file grows without re-reading it.
type InfoBuilder struct {
	info     Info
	seen     bool // the first record was seen
	header   bool // the first record is a header
	dropped  bool // pi would drop this file from its listing
	activity float64
	texts    []string
	blocks   []member // extractText's buffer
	// createdFromString: pi's Modified fallback only uses a string header
	// timestamp.
	createdFromString bool
}

// Add folds one record into the listing metadata.
func (b *InfoBuilder) Add(e *Entry) {
	if !b.seen {
		b.seen = true
		b.header = e.IsObject() && e.Type == "session"
		if b.header {
			b.addHeader(e)
		}
	}
	if b.dropped || !b.header {
		return
	}
	switch e.Type {
	case "session_info":
		b.addName(e)
	case "message":
		b.addMessage(e)
	}
}

func (b *InfoBuilder) addHeader(e *Entry) {
	b.info.ID = e.Field("id")
	b.info.Cwd, _ = e.String("cwd")
	b.info.ParentSessionPath = e.Field("parentSession")
	ts := e.Field("timestamp")
	b.info.Created = jsDateMs(ts)
	b.createdFromString = len(ts) > 0 && ts[0] == '"'
}

// addName applies pi 0.73: the latest session_info wins, trimmed, and an
// empty or missing name clears it. A non-string name makes pi throw.
func (b *InfoBuilder) addName(e *Entry) {
	raw := e.Field("name")
	if raw == nil || string(raw) == "null" {
		b.info.Name, b.info.HasName = "", false
		return
	}
	name, ok := jsonString(raw)
	if !ok {
		b.dropped = true
		return
	}
	name = strings.TrimFunc(name, isJSSpace)
	b.info.Name, b.info.HasName = name, name != ""
}

// addMessage counts a message entry and collects its text.
func (b *InfoBuilder) addMessage(e *Entry) {
	b.info.MessageCount++
	raw := e.Field("message")
	if raw == nil || string(raw) == "null" {
		b.dropped = true // pi reads .role of undefined
		return
	}
	m := messageOf(e)
	role := roleOf(m)
	if !m.object || !m.has("content") || (role != "user" && role != "assistant") {
		return
	}
	b.noteActivity(e, m)
	text, ok := extractText(m.field("content"), &b.blocks)
	if !ok {
		b.dropped = true
		return
	}
	if text == "" {
		return
	}
	b.texts = append(b.texts, text)
	if b.info.FirstMessage == "" && role == "user" {
		b.info.FirstMessage = text
	}
}

// noteActivity applies pi 1.6's last-activity rule: the message timestamp
// when it is a number, else new Date(entry.timestamp) when valid (a number
// or null too, unlike 0.73, which took only strings).
func (b *InfoBuilder) noteActivity(e *Entry, m msgView) {
	if ts := m.field("timestamp"); isNumber(ts) {
		f, _ := strconv.ParseFloat(string(ts), 64)
		b.activity = math.Max(b.activity, Finite(f))
		return
	}
	if t := jsDateMs(e.Field("timestamp")); !math.IsNaN(t) {
		b.activity = math.Max(b.activity, t)
	}
}

// extractText returns pi's text of a message content: a string as is, or
// the text blocks of an array joined with one space. ok is false where pi
// would throw. The blocks' member spans are scanned into *buf, reused
// from block to block and from message to message (a slice grown for
// each block was 8 % of a cold index's allocations).
func extractText(content []byte, buf *[]member) (string, bool) {
	if len(content) > 0 && content[0] == '"' {
		return jsonString(content)
	}
	if len(content) == 0 || content[0] != '[' {
		return "", false
	}
	var parts []string
	for el := range jsjson.Elements(content) {
		if string(el) == "null" {
			return "", false
		}
		bv := objectViewIn(el, *buf)
		*buf = bv.members
		if plainString(bv.field("type"), true) == "text" { // no new string for a block type
			parts = append(parts, jsJoinString(bv.field("text")))
		}
	}
	return strings.Join(parts, " "), true
}

// jsJoinString renders a value the way Array.prototype.join does.
func jsJoinString(raw []byte) string {
	if raw == nil || string(raw) == "null" {
		return ""
	}
	if s, ok := jsonString(raw); ok {
		return s
	}
	if raw[0] == '{' {
		return "[object Object]"
	}
	return string(raw)
}

// Info returns the metadata; ok is false when pi's listing would leave the
// file out (no header first, or content that makes pi throw). mtime is the
// file's modification time, pi's last fallback for Modified.
func (b *InfoBuilder) Info(path string, mtime time.Time) (Info, bool) {
	if !b.header || b.dropped {
		return Info{}, false
	}
	in := b.info
	in.Path = path
	in.Activity = b.activity
	switch {
	case b.activity > 0:
		in.Modified = TimeClip(b.activity) // new Date(lastActivityTime)
	case b.createdFromString && !math.IsNaN(b.info.Created):
		in.Modified = b.info.Created
	default:
		in.Modified = float64(mtime.UnixMilli())
	}
	if in.FirstMessage == "" {
		in.FirstMessage = NoMessages
	}
	in.AllMessagesText = strings.Join(b.texts, " ")
	return in, true
}

// Finite is f with ±Inf (what a JSON number beyond a double's range
// parses to, as JSON.parse's Infinity) as ±math.MaxFloat64: a value that
// orders and compares as pi's does against every finite number, and that
// JSON can encode.
func Finite(f float64) float64 {
	switch {
	case math.IsInf(f, 1):
		return math.MaxFloat64
	case math.IsInf(f, -1):
		return -math.MaxFloat64
	}
	return f
}
