package server

import (
	"piweb/internal/jsjson"
)

// The tree preview reads raw JSON that is already known to be valid (it
// comes from a parsed session file) through jsjson's raw view: the preview
// of a 150 MB session must not decode every tool output to show 200
// characters.

// prefixString decodes at most about max bytes of a raw JSON string, ""
// for anything else.
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
