package agent

import (
	"bytes"
	"encoding/json"
)

// This file is a tiny JSON skimmer: it finds the raw value of a top-level
// key without decoding anything else. pi's message_update lines repeat the
// whole partial message twice, so decoding them costs O(message) per delta;
// skimming for "type" stops after the first key in practice (pi writes type
// first) and otherwise only skips over bytes.

// field returns the raw JSON value of key in the object obj, or nil.
func field(obj []byte, key string) []byte {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil
	}
	i++
	for {
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return nil
		}
		kEnd := skipString(obj, i)
		if kEnd < 0 {
			return nil
		}
		k := obj[i+1 : kEnd-1]
		i = skipSpace(obj, kEnd)
		if i >= len(obj) || obj[i] != ':' {
			return nil
		}
		i = skipSpace(obj, i+1)
		vEnd := skipValue(obj, i)
		if vEnd < 0 {
			return nil
		}
		if string(k) == key {
			return obj[i:vEnd]
		}
		i = skipSpace(obj, vEnd)
		if i >= len(obj) || obj[i] != ',' {
			return nil
		}
		i++
	}
}

// fieldString returns the string value of key, or "" when absent or not a
// string.
func fieldString(obj []byte, key string) string {
	v := field(obj, key)
	if len(v) < 2 || v[0] != '"' {
		return ""
	}
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return intern(inner)
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] == '"'.
func skipString(b []byte, i int) int {
	i++
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return -1
		}
		i += j
		if !escaped(b, i) {
			return i + 1
		}
		i++
	}
}

// escaped reports whether the quote at b[i] is preceded by an odd number of
// backslashes.
func escaped(b []byte, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && b[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// skipValue returns the index after the value starting at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		return skipNested(b, i)
	}
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

func skipNested(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			i = skipString(b, i)
			if i < 0 {
				return -1
			}
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
	return -1
}

// intern returns a shared string for the event and response names pi uses,
// so that reading the type of a line allocates nothing.
func intern(b []byte) string {
	switch string(b) {
	case "response":
		return "response"
	case "message_update":
		return "message_update"
	case "message_start":
		return "message_start"
	case "message_end":
		return "message_end"
	case "tool_execution_start":
		return "tool_execution_start"
	case "tool_execution_update":
		return "tool_execution_update"
	case "tool_execution_end":
		return "tool_execution_end"
	case "agent_start":
		return "agent_start"
	case "agent_end":
		return "agent_end"
	case "turn_start":
		return "turn_start"
	case "turn_end":
		return "turn_end"
	case "text_delta":
		return "text_delta"
	case "thinking_delta":
		return "thinking_delta"
	case "toolcall_delta":
		return "toolcall_delta"
	}
	return string(b)
}
