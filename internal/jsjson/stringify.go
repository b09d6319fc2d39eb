package jsjson

// Stringify returns JSON.stringify(v). For the Undefined value it returns
// nil, since JSON.stringify(undefined) produces no text.
func Stringify(v Value) []byte {
	return v.AppendJSON(nil)
}

// AppendJSON appends JSON.stringify(v) to dst (nothing if v is Undefined).
func (v Value) AppendJSON(dst []byte) []byte {
	if v.kind == UndefinedKind {
		return dst
	}
	return appendValue(dst, v)
}

func appendValue(dst []byte, v Value) []byte {
	switch v.kind {
	case UndefinedKind, NullKind:
		return append(dst, "null"...)
	case BoolKind:
		if v.num != 0 {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case NumberKind:
		return AppendNumber(dst, v.num)
	case StringKind:
		return appendString(dst, v.str, true)
	case ArrayKind:
		dst = append(dst, '[')
		for i := range v.elems {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendValue(dst, v.elems[i].val)
		}
		return append(dst, ']')
	case ObjectKind:
		return appendObject(dst, v.elems)
	}
	return append(dst, v.str...) // verbatim
}

func appendObject(dst []byte, members []member) []byte {
	dst = append(dst, '{')
	first := true
	for i := range members {
		m := &members[i]
		if m.val.kind == UndefinedKind {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(appendString(dst, m.key, true), ':')
		dst = appendValue(dst, m.val)
	}
	return append(dst, '}')
}

// Canonical returns JSON.stringify(JSON.parse(b)): b without whitespace,
// with numbers, strings and key order normalised as JavaScript does. When b
// is already canonical it is returned itself, without a copy.
func Canonical(b []byte) ([]byte, error) {
	if IsCanonical(b) {
		return b, nil
	}
	v, err := Parse(b)
	if err != nil {
		return nil, err
	}
	return Stringify(v), nil
}
