package server

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"piweb/internal/jsjson"
	"piweb/internal/session"
)

// preview is the one-line text the compact tree shows for an entry. It
// reads only what it shows (see rawjson.go).
func preview(e *session.Entry) string {
	var text string
	str := func(k string) string { return prefixString(e.Field(k), 800) }
	switch e.Type {
	case "message":
		m := e.Field("message")
		switch role := prefixString(jsjson.Field(m, "role"), 40); role {
		case "toolResult":
			text = prefixString(jsjson.Field(m, "toolName"), 100)
		case "bashExecution":
			text = prefixString(jsjson.Field(m, "command"), 800)
		case "compactionSummary", "branchSummary":
			text = prefixString(jsjson.Field(m, "summary"), 800)
		default:
			text = previewText(jsjson.Field(m, "content"), 800)
		}
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
	return clip(strings.Join(strings.Fields(text), " "), 200)
}

// clip cuts s to at most n runes.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// utf16Offset converts a byte offset in s into UTF-16 code units, the unit
// JavaScript strings are indexed in.
func utf16Offset(s string, off int) int {
	n := 0
	for i, r := range s {
		if i >= off {
			break
		}
		n += len(utf16.Encode([]rune{r}))
	}
	return n
}
