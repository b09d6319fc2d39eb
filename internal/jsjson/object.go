package jsjson

import (
	"fmt"
	"slices"
)

// Object builds or edits a JSON object the way a JavaScript object behaves,
// so that writing it gives what JSON.stringify would give for the same
// sequence of assignments:
//
//   - keys keep the order in which they were first set;
//   - keys that are array indices ("0", "7", "10"; no leading zeros, below
//     2^32-1) come first, in ascending numeric order;
//   - setting an existing key replaces its value in place;
//   - a member whose value is Undefined (the zero Value) is not written.
//
// The zero Object is empty and ready to use. Lookups are linear, which suits
// the small objects of session entries.
type Object struct {
	members []member
}

// Set assigns v to key, like obj[key] = v in JavaScript, except that
// "__proto__" is an ordinary key (as in objects made by JSON.parse).
// Invalid UTF-8 in key is replaced as in String.
func (o *Object) Set(key string, v Value) {
	o.set(wellFormed(key), v)
}

// SetRaw assigns the JSON text raw to key after normalising it to
// JSON.stringify(JSON.parse(raw)). Use it for values that were read from a
// file or another program. An empty raw (such as a nil json.RawMessage)
// sets Undefined, so the key is left out.
func (o *Object) SetRaw(key string, raw []byte) error {
	if len(raw) == 0 {
		o.Set(key, Value{})
		return nil
	}
	c, err := Canonical(raw)
	if err != nil {
		return fmt.Errorf("jsjson: value for key %q: %w", key, err)
	}
	o.SetCanonical(key, c)
	return nil
}

// SetCanonical assigns the JSON text raw to key and writes it verbatim. The
// caller guarantees that IsCanonical(raw) holds, as it does for any member
// value copied from a line that pi wrote; otherwise the output is not what
// JSON.stringify would write. raw is copied; an empty raw sets Undefined.
func (o *Object) SetCanonical(key string, raw []byte) {
	if len(raw) == 0 {
		o.Set(key, Value{})
		return
	}
	o.Set(key, Value{kind: kindOf(raw[0]) | verbatim, str: string(raw)})
}

// Delete removes key, like the delete operator; setting it again later puts
// it at the end.
func (o *Object) Delete(key string) {
	o.members = slices.DeleteFunc(o.members, func(m member) bool { return m.key == key })
}

// Value returns the object as a Value. Later changes to o do not affect it.
func (o *Object) Value() Value {
	return Value{kind: ObjectKind, elems: slices.Clone(o.members)}
}

// AppendJSON appends JSON.stringify of the object to dst.
func (o *Object) AppendJSON(dst []byte) []byte {
	return appendObject(dst, o.members)
}

// Object returns an editable copy of the object v (empty if v is not an
// object), for rewrites that change a few members of a parsed entry.
func (v Value) Object() Object {
	v = v.resolve()
	if v.kind != ObjectKind {
		return Object{}
	}
	return Object{members: slices.Clone(v.elems)}
}

func (o *Object) set(key string, v Value) {
	for i := range o.members {
		if o.members[i].key == key {
			o.members[i].val = v
			return
		}
	}
	idx, ok := arrayIndex(key)
	if !ok {
		o.members = append(o.members, member{key, v})
		return
	}
	pos := 0
	for ; pos < len(o.members); pos++ {
		if j, ok := arrayIndex(o.members[pos].key); !ok || j > idx {
			break
		}
	}
	o.members = slices.Insert(o.members, pos, member{key, v})
}

// arrayIndex reports whether key is a canonical array index: the decimal
// form of an integer from 0 to 2^32-2 with no sign and no leading zeros.
// JavaScript orders such keys before all others.
func arrayIndex(key string) (uint32, bool) {
	if len(key) == 0 || len(key) > 10 || (key[0] == '0' && len(key) > 1) {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	if n >= 1<<32-1 {
		return 0, false
	}
	return uint32(n), true
}

// kindOf returns the kind of the JSON text that starts with byte c.
func kindOf(c byte) Kind {
	switch c {
	case 'n':
		return NullKind
	case 't', 'f':
		return BoolKind
	case '"':
		return StringKind
	case '[':
		return ArrayKind
	case '{':
		return ObjectKind
	}
	return NumberKind
}
