package jsjson

import "math"

// Kind is the type of a Value, as JavaScript's typeof would tell them apart
// (with null and arrays separated out).
type Kind uint8

// The kinds of Value. The zero Value is Undefined: JSON.stringify omits it
// from objects, writes null for it in arrays, and writes nothing at all for
// it at the top level.
const (
	UndefinedKind Kind = iota
	NullKind
	BoolKind
	NumberKind
	StringKind
	ArrayKind
	ObjectKind
)

// String returns the kind's name as typeof would say it, with "null" and
// "array" split out.
func (k Kind) String() string {
	names := [...]string{"undefined", "null", "boolean", "number", "string", "array", "object"}
	if int(k) < len(names) {
		return names[k]
	}
	return "invalid"
}

// verbatim marks a Value whose str field holds canonical JSON text that was
// supplied by Object.SetCanonical; it is written unchanged and parsed only
// when its contents are read.
const verbatim Kind = 0x80

// Value is one JSON value with JavaScript semantics: numbers are float64
// (and also keep the literal they were parsed from), strings may hold lone
// surrogates, and object members are kept in JavaScript property order.
// Values are immutable once built; use Object to make or edit objects.
type Value struct {
	kind  Kind
	num   float64  // NumberKind value; 1 for true
	str   string   // string (WTF-8), number literal, or verbatim JSON
	elems []member // array elements (key unused) or object members
}

type member struct {
	key string // WTF-8
	val Value
}

// Null returns the JSON null value.
func Null() Value { return Value{kind: NullKind} }

// Bool returns true or false.
func Bool(b bool) Value {
	if b {
		return Value{kind: BoolKind, num: 1}
	}
	return Value{kind: BoolKind}
}

// Number returns a number. NaN and infinities are written as null, like
// JSON.stringify does.
func Number(f float64) Value { return Value{kind: NumberKind, num: f} }

// String returns a string value. Invalid UTF-8 in s is replaced by U+FFFD
// right away with the WHATWG rule (see AppendString).
func String(s string) Value { return Value{kind: StringKind, str: wellFormed(s)} }

// Array returns an array of the given elements. Undefined elements are
// written as null, as JSON.stringify does.
func Array(elems ...Value) Value {
	m := make([]member, len(elems))
	for i, e := range elems {
		m[i].val = e
	}
	return Value{kind: ArrayKind, elems: m}
}

// resolve returns v with a verbatim value parsed into its contents.
func (v Value) resolve() Value {
	if v.kind&verbatim == 0 {
		return v
	}
	p, err := Parse([]byte(v.str))
	if err != nil {
		return Value{kind: v.kind &^ verbatim}
	}
	return p
}

// Kind returns the type of v.
func (v Value) Kind() Kind { return v.kind &^ verbatim }

// Bool reports whether v is the boolean true.
func (v Value) Bool() bool { v = v.resolve(); return v.kind == BoolKind && v.num != 0 }

// Float returns the number held by v, or NaN if v is not a number.
func (v Value) Float() float64 {
	v = v.resolve()
	if v.kind != NumberKind {
		return math.NaN()
	}
	return v.num
}

// Literal returns the number exactly as it was written in the parsed text
// (such as "1.0" or "12345678901234567890"), which keeps digits that float64
// cannot hold. For numbers not made by Parse it is the JavaScript form.
func (v Value) Literal() string {
	v = v.resolve()
	if v.kind != NumberKind {
		return ""
	}
	if v.str != "" {
		return v.str
	}
	return string(AppendNumber(nil, v.num))
}

// Str returns the string held by v ("" if v is not a string) as valid
// UTF-8. Lone surrogates become U+FFFD; Stringify still writes them as
// \udxxx escapes.
func (v Value) Str() string {
	v = v.resolve()
	if v.kind != StringKind {
		return ""
	}
	return fromWTF8(v.str)
}

// Len returns the number of elements of an array or members of an object,
// and 0 for other kinds. Undefined object members set with Object.Set count
// too, since JavaScript keeps such keys.
func (v Value) Len() int { return len(v.resolve().elems) }

// Index returns the i-th array element or the value of the i-th object
// member in property order. It panics if i is out of range.
func (v Value) Index(i int) Value { return v.resolve().elems[i].val }

// Key returns the key of the i-th object member (as valid UTF-8, like Str).
// It panics if i is out of range.
func (v Value) Key(i int) string { return fromWTF8(v.resolve().elems[i].key) }

// Get returns the value of the member key of an object, or Undefined when v
// is not an object or has no such member.
func (v Value) Get(key string) Value {
	v = v.resolve()
	if v.kind != ObjectKind {
		return Value{}
	}
	for i := range v.elems {
		if v.elems[i].key == key {
			return v.elems[i].val
		}
	}
	return Value{}
}
