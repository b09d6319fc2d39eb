package pisession

import (
	"strings"
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
		text = messagePreview(e.Field("message"))
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
	return Clip(strings.Join(strings.Fields(text), " "), 200)
}

// messagePreview is the preview text of a message object by its role.
func messagePreview(m []byte) string {
	switch role := prefixString(jsjson.Field(m, "role"), 40); role {
	case "toolResult":
		return prefixString(jsjson.Field(m, "toolName"), 100)
	case "bashExecution":
		return prefixString(jsjson.Field(m, "command"), 800)
	case "compactionSummary", "branchSummary":
		return prefixString(jsjson.Field(m, "summary"), 800)
	default:
		return previewText(jsjson.Field(m, "content"), 800)
	}
}

// Clip cuts s to at most n runes, marking a cut with an ellipsis.
func Clip(s string, n int) string {
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
