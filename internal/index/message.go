package index

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"piweb/internal/jsjson"
)

// msg is what the index takes from a message entry's message.
type msg struct {
	role, provider, model string
	usage                 *usage
	text                  []string // user and assistant text blocks (or string content)
	tools                 []string // tool call arguments, tool results, shell commands and output
}

type usage struct {
	Input       float64 `json:"input"`
	Output      float64 `json:"output"`
	CacheRead   float64 `json:"cacheRead"`
	CacheWrite  float64 `json:"cacheWrite"`
	TotalTokens float64 `json:"totalTokens"`
	Cost        struct {
		Total float64 `json:"total"`
	} `json:"cost"`
}

// decodeMessage reads the members of a message object that the index uses.
// withText also collects the searchable text.
func decodeMessage(raw []byte, withText bool) msg {
	var m msg
	var content, output, command []byte
	for k, v := range jsjson.Members(raw) {
		switch {
		case jsjson.KeyIs(k, "role"):
			m.role = str(v)
		case jsjson.KeyIs(k, "provider"):
			m.provider = str(v)
		case jsjson.KeyIs(k, "model"):
			m.model = str(v)
		case jsjson.KeyIs(k, "usage"):
			var u usage
			if json.Unmarshal(v, &u) == nil {
				m.usage = &u
			}
		case jsjson.KeyIs(k, "content"):
			content = v
		case jsjson.KeyIs(k, "output"):
			output = v
		case jsjson.KeyIs(k, "command"):
			command = v
		}
	}
	if !withText {
		return m
	}
	switch m.role {
	case "user", "assistant":
		m.text, m.tools = contentText(content, m.tools)
	case "toolResult":
		t, _ := contentText(content, nil)
		m.tools = append(m.tools, t...)
	case "bashExecution":
		m.tools = appendNonEmpty(m.tools, textOf(command), textOf(output))
	}
	return m
}

// contentText returns the text of a content value (a string, or text blocks)
// and appends tool call arguments to tools.
func contentText(content []byte, tools []string) (text, toolsOut []string) {
	if len(content) > 0 && content[0] == '"' {
		return appendNonEmpty(nil, textOf(content)), tools
	}
	for el := range jsjson.Elements(content) {
		var typ, txt []byte
		var args []byte
		for k, v := range jsjson.Members(el) {
			switch {
			case jsjson.KeyIs(k, "type"):
				typ = v
			case jsjson.KeyIs(k, "text"):
				txt = v
			case jsjson.KeyIs(k, "arguments"):
				args = v
			}
		}
		switch str(typ) {
		case "text":
			text = appendNonEmpty(text, textOf(txt))
		case "toolCall":
			tools = appendNonEmpty(tools, string(args))
		}
	}
	return text, tools
}

// textOf decodes a string of searchable text: without encoding/json's
// reflection (a third of the text pass went there), and as valid UTF-8 for
// FTS5.
func textOf(raw []byte) string {
	s, ok := jsjson.Unquote(raw)
	if ok && !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return s
}

// str decodes a JSON string value with jsjson.DecodeString, "" for
// anything else, as the session parser's Entry.String reads it.
func str(raw []byte) string {
	s, _ := jsjson.DecodeString(raw)
	return s
}

func appendNonEmpty(list []string, ss ...string) []string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			list = append(list, s)
		}
	}
	return list
}
