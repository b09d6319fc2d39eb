package jsjson

import "slices"

// AppendWithArray appends to dst the encoded object obj (as json.Marshal or
// Stringify writes one: no space before its closing brace) with one more
// member, key, last: an array of items copied as they are. The items must
// each be valid JSON already (a parser validated them): they are not
// checked again, so a value nested deeper than a decoder's limit passes.
func AppendWithArray[B ~[]byte](dst, obj []byte, key string, items []B) []byte {
	size := len(obj) + len(key) + 8
	for _, it := range items {
		size += len(it) + 1
	}
	dst = slices.Grow(dst, size)
	dst = append(dst, obj[:len(obj)-1]...) // without the closing brace
	if len(obj) > 2 {
		dst = append(dst, ',')
	}
	dst = append(AppendString(dst, key), ":["...)
	for i, it := range items {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, it...)
	}
	return append(dst, "]}"...)
}
