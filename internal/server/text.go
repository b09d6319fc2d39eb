package server

import (
	"encoding/json"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"piweb/internal/jsjson"
	"piweb/internal/session"
)

// message is the part of pi's message objects the server reads for
// previews, search and exports.
type message struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Command    string          `json:"command"`
	Output     string          `json:"output"`
	Summary    string          `json:"summary"`
	ToolName   string          `json:"toolName"`
	CustomType string          `json:"customType"`
	Provider   string          `json:"provider"`
	Model      string          `json:"model"`
	Timestamp  json.RawMessage `json:"timestamp"`
	Usage      *usage          `json:"usage"`
}

type usage struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
	Cost       struct {
		Total float64 `json:"total"`
	} `json:"cost"`
}

type contentPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Thinking string `json:"thinking"`
	Name     string `json:"name"`
}

func decodeMessage(raw []byte) (message, bool) {
	var m message
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
		return m, false
	}
	return m, true
}

// contentText joins the text parts of a content value (a string or an
// array of parts).
func contentText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '"' {
		var s string
		json.Unmarshal(raw, &s)
		return s
	}
	var parts []contentPart
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" && p.Text != "" {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// messageText is the searchable text of a message entry.
func messageText(e *session.Entry) string {
	m, ok := decodeMessage(e.Field("message"))
	if !ok {
		return ""
	}
	switch m.Role {
	case "bashExecution":
		return m.Command + "\n" + m.Output
	case "compactionSummary", "branchSummary":
		return m.Summary
	}
	return contentText(m.Content)
}

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

// runeBounds moves byte offsets start and end inward to rune boundaries.
func runeBounds(s string, start, end int) (int, int) {
	for start > 0 && start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	for end < len(s) && end > start && !utf8.RuneStart(s[end]) {
		end--
	}
	return start, end
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
