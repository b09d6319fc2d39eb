package piconfig

import "piweb/internal/jsjson"

// stringify2 returns JSON.stringify(v, null, 2): members on their own
// lines indented by two spaces per level, ": " after keys, and empty
// objects and arrays written as {} and [].
func stringify2(v jsjson.Value) []byte {
	return appendIndented(nil, v, "\n", "  ")
}

// appendIndented appends JSON.stringify(v, null, step) with each line
// starting with nl.
func appendIndented(dst []byte, v jsjson.Value, nl, step string) []byte {
	switch v.Kind() {
	case jsjson.ObjectKind, jsjson.ArrayKind:
	default:
		return v.AppendJSON(dst)
	}
	isObj := v.Kind() == jsjson.ObjectKind
	open, end := byte('['), byte(']')
	if isObj {
		open, end = '{', '}'
	}
	inner := nl + step
	dst = append(dst, open)
	n := 0
	for i := range v.Len() {
		el := v.Index(i)
		if el.Kind() == jsjson.UndefinedKind {
			if isObj {
				continue // JSON.stringify leaves out undefined members
			}
			el = jsjson.Null() // and writes null for undefined elements
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst = append(dst, inner...)
		if isObj {
			dst = append(jsjson.AppendString(dst, v.Key(i)), ": "...)
		}
		dst = appendIndented(dst, el, inner, step)
	}
	if n > 0 {
		dst = append(dst, nl...)
	}
	return append(dst, end)
}
