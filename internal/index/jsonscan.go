package index

import (
	"bytes"
	"encoding/json"
)

// The session parser has already checked that every line is valid JSON, so
// the index walks values with this small scanner instead of decoding whole
// messages: it only needs a few members (role, model, usage, the text of
// content blocks), and tool output, the bulk of a session, is skipped at
// memchr speed.

// skipString returns the offset after the string starting at b[i] == '"'.
func skipString(b []byte, i int) int {
	i++
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return len(b)
		}
		i += j
		k := i - 1
		for k >= 0 && b[k] == '\\' {
			k--
		}
		i++
		if (i-2-k)%2 == 0 { // an even number of backslashes: not escaped
			return i
		}
	}
}

// skipValue returns the offset after the value starting at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(b)
	}
	for i < len(b) && !isDelim(b[i]) {
		i++
	}
	return i
}

func isDelim(c byte) bool {
	return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// eachMember calls fn with each member of the valid JSON object obj, its
// key still quoted; fn returns false to stop.
func eachMember(obj []byte, fn func(key, val []byte) bool) {
	i := skipWS(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return
	}
	i = skipWS(obj, i+1)
	for i < len(obj) && obj[i] == '"' {
		kEnd := skipString(obj, i)
		key := obj[i:kEnd]
		i = skipWS(obj, kEnd)
		i = skipWS(obj, i+1) // the colon
		if i >= len(obj) {
			return
		}
		vEnd := skipValue(obj, i)
		if !fn(key, obj[i:vEnd]) {
			return
		}
		i = skipWS(obj, vEnd)
		if i < len(obj) && obj[i] == ',' {
			i = skipWS(obj, i+1)
		}
	}
}

// eachElement calls fn with each element of the valid JSON array arr.
func eachElement(arr []byte, fn func(el []byte)) {
	i := skipWS(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return
	}
	i = skipWS(arr, i+1)
	for i < len(arr) && arr[i] != ']' {
		end := skipValue(arr, i)
		fn(arr[i:end])
		i = skipWS(arr, end)
		if i < len(arr) && arr[i] == ',' {
			i = skipWS(arr, i+1)
		}
	}
}

// keyIs reports whether the quoted key equals name (keys pi writes have no
// escapes; an escaped key is compared decoded).
func keyIs(key []byte, name string) bool {
	if len(key) == len(name)+2 && string(key[1:len(key)-1]) == name {
		return true
	}
	return bytes.IndexByte(key, '\\') >= 0 && str(key) == name
}

// str decodes a JSON string, "" for anything else.
func str(raw []byte) string {
	if len(raw) < 2 || raw[0] != '"' {
		return ""
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1])
	}
	var s string
	json.Unmarshal(raw, &s)
	return s
}

// field returns the raw value of the last member named name.
func field(obj []byte, name string) []byte {
	var out []byte
	eachMember(obj, func(k, v []byte) bool {
		if keyIs(k, name) {
			out = v
		}
		return true
	})
	return out
}
