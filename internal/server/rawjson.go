package server

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Cheap reads of raw JSON that is already known to be valid (it comes from
// a parsed session file): the tree preview of a 150 MB session must not
// decode every tool output to show 200 characters.

// skipValue returns the index just after the JSON value starting at b[i]
// (after optional white space), at most len(b).
func skipValue(b []byte, i int) int { return min(skipRaw(b, i), len(b)) }

func skipRaw(b []byte, i int) int {
	i = skipWS(b, i)
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		// Find the closing quote with IndexByte (vectorized): a quote
		// preceded by an even number of backslashes.
		for j := i + 1; ; {
			k := bytes.IndexByte(b[j:], '"')
			if k < 0 {
				return len(b)
			}
			k += j
			n := 0
			for p := k - 1; p > i && b[p] == '\\'; p-- {
				n++
			}
			if n%2 == 0 {
				return k + 1
			}
			j = k + 1
		}
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipValue(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for ; i < len(b) && !strings.ContainsRune(",}] \t\r\n", rune(b[i])); i++ {
	}
	return i
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// members calls fn with each key (raw, quoted) and value of an object
// until fn returns false.
func members(obj []byte, fn func(key, val []byte) bool) {
	i := skipWS(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return
	}
	for i++; ; {
		i = skipWS(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return
		}
		k := skipValue(obj, i)
		key := obj[i:k]
		v := skipWS(obj, k)
		if v >= len(obj) || obj[v] != ':' {
			return
		}
		v = skipWS(obj, v+1)
		end := skipValue(obj, v)
		if !fn(key, obj[v:end]) {
			return
		}
		i = skipWS(obj, end)
		if i >= len(obj) || obj[i] != ',' {
			return
		}
		i++
	}
}

// member returns the raw value of key in obj (the last one), nil if none.
func member(obj []byte, key string) []byte {
	var out []byte
	q := `"` + key + `"`
	members(obj, func(k, v []byte) bool {
		if string(k) == q {
			out = v
		}
		return true
	})
	return out
}

// elements calls fn with each element of an array until fn returns false.
func elements(arr []byte, fn func(el []byte) bool) {
	i := skipWS(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return
	}
	for i++; ; {
		i = skipWS(arr, i)
		if i >= len(arr) || arr[i] == ']' {
			return
		}
		end := skipValue(arr, i)
		if !fn(arr[i:end]) {
			return
		}
		i = skipWS(arr, end)
		if i >= len(arr) || arr[i] != ',' {
			return
		}
		i++
	}
}

// prefixString decodes at most about max bytes of a raw JSON string.
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
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// previewText is the first text of a message's content (a string or an
// array of parts), without decoding the rest.
func previewText(content []byte, max int) string {
	c := skipWS(content, 0)
	if c < len(content) && content[c] == '"' {
		return prefixString(content[c:], max)
	}
	var text, tools string
	elements(content, func(el []byte) bool {
		switch string(member(el, "type")) {
		case `"text"`:
			text = prefixString(member(el, "text"), max)
			return text == ""
		case `"toolCall"`:
			if tools == "" {
				tools = prefixString(member(el, "name"), 100)
			}
		}
		return true
	})
	if text == "" {
		return tools
	}
	return text
}
