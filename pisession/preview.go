package pisession

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"piweb/internal/jsjson"
)

// preview is the one-line text the compact tree shows for an entry: at
// most 200 runes (and an ellipsis), white space collapsed. It reads only
// what it shows through jsjson's raw view: the preview of a 150 MB session
// must not decode every tool output to show 200 characters.
func preview(e *Entry) string {
	var text string
	str := func(k string) string { return prefixString(e.Field(k), 800) }
	switch e.Type {
	case "message":
		text = messagePreview(messageField(e))
	case "compaction", "branch_summary":
		text = str("summary")
	case "session_info":
		text = str("name")
	case "label":
		text = str("label")
	case "model_change":
		text = str("provider") + "/" + str("modelId")
	case "thinking_level_change":
		text = str("thinkingLevel")
	case "custom_message":
		text = previewText(e.Field("content"), 800)
	case "custom":
		text = str("customType")
	}
	return Clip(collapseSpace(text), 200)
}

// collapseSpace is strings.Join(strings.Fields(s), " ") in one pass and
// one allocation (none when s has nothing to collapse): the fields and
// their join were a fifth of a huge session's tree.
func collapseSpace(s string) string {
	if !needsCollapse(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	gap := false // white space since the last field
	for i := 0; i < len(s); {
		r, n := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		switch {
		case unicode.IsSpace(r):
			gap = b.Len() > 0
		default:
			if gap {
				b.WriteByte(' ')
				gap = false
			}
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// needsCollapse reports whether s has white space other than single
// spaces between fields.
func needsCollapse(s string) bool {
	prevSpace := true // a space at the start is collapsed
	for i := 0; i < len(s); {
		r, n := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		space := unicode.IsSpace(r)
		if space && (r != ' ' || prevSpace) {
			return true
		}
		prevSpace = space
		i += n
	}
	return prevSpace && len(s) > 0
}

// messageField reads a member of e's message: through the members the
// parse recorded when it has them (reading the message again for each
// member was a sixth of a huge session's tree), else from its JSON.
func messageField(e *Entry) func(key string) []byte {
	if e.msg() != nil {
		return messageOf(e).field
	}
	m := e.Field("message")
	return func(key string) []byte { return jsjson.Field(m, key) }
}

// messagePreview is the preview text of a message object by its role,
// field reading its members.
func messagePreview(field func(key string) []byte) string {
	switch role := prefixString(field("role"), 40); role {
	case "toolResult":
		return prefixString(field("toolName"), 100)
	case "bashExecution":
		return prefixString(field("command"), 800)
	case "compactionSummary", "branchSummary":
		return prefixString(field("summary"), 800)
	default:
		return previewText(field("content"), 800)
	}
}

// Clip cuts s to at most n runes, marking a cut with an ellipsis.
func Clip(s string, n int) string {
	cut, runes := 0, 0
	for cut < len(s) && runes < n {
		r, size := utf8.DecodeRuneInString(s[cut:])
		if r == utf8.RuneError && size == 1 {
			return clipRunes(s, n) // an invalid byte becomes U+FFFD in []rune
		}
		cut += size
		runes++
	}
	if cut == len(s) {
		return s
	}
	return s[:cut] + "…"
}

// clipRunes is Clip through []rune, for a string that is not UTF-8.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// prefixString decodes at most about max bytes of a raw JSON string, ""
// for anything else. The raw JSON is known to be valid (it comes from a
// parsed session file).
func prefixString(raw []byte, max int) string {
	if len(raw) < 2 || raw[0] != '"' {
		return ""
	}
	if len(raw) > max+2 {
		cut := max
		for cut > 1 && raw[cut-1] == '\\' { // never end inside an escape
			cut--
		}
		for k := cut - 1; k > cut-6 && k > 0; k-- { // nor inside \uXXXX
			if raw[k] == '\\' && k+1 < len(raw) && raw[k+1] == 'u' {
				cut = k
				break
			}
		}
		raw = append(append([]byte{}, raw[:cut]...), '"')
	}
	s, _ := jsjson.DecodeString(raw)
	return s
}

// previewText is the first text of a message's content (a string or an
// array of parts), without decoding the rest.
func previewText(content []byte, max int) string {
	c := jsjson.SkipSpace(content, 0)
	if c < len(content) && content[c] == '"' {
		return prefixString(content[c:], max)
	}
	var tools string
	for el := range jsjson.Elements(content) {
		switch string(jsjson.Field(el, "type")) {
		case `"text"`:
			if text := prefixString(jsjson.Field(el, "text"), max); text != "" {
				return text
			}
		case `"toolCall"`:
			if tools == "" {
				tools = prefixString(jsjson.Field(el, "name"), 100)
			}
		}
	}
	return tools
}
