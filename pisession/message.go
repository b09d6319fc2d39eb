package pisession

// msgView is a cheap look at the top-level members of a nested JSON object,
// used where only a few fields of a message are needed (role, model,
// timestamp) and decoding the whole message would waste time.
type msgView struct {
	raw     []byte
	members []member
	object  bool
}

// messageOf returns a view of the entry's message member.
func messageOf(e *Entry) msgView {
	if msg := e.msg(); msg != nil {
		return msgView{raw: e.Raw, members: msg, object: true}
	}
	return objectView(e.Field("message"))
}

// objectView scans raw, which must be valid JSON, as an object.
func objectView(raw []byte) msgView {
	if len(raw) == 0 || raw[0] != '{' {
		return msgView{raw: raw}
	}
	members, _, ok := scanObjectMembers(raw, 0, nil, modeTrusted, nil)
	return msgView{raw: raw, members: members, object: ok}
}

// field returns the raw JSON of a member, the last one for duplicate keys.
func (m msgView) field(key string) []byte {
	if i := lastMember(m.members, m.raw, key); i >= 0 {
		return m.raw[m.members[i].valueStart:m.members[i].valueEnd]
	}
	return nil
}

// has reports whether the object has the member, like JavaScript's "in".
func (m msgView) has(key string) bool { return m.field(key) != nil }

// roleOf returns the message's role when it is a string.
func roleOf(m msgView) string { return plainString(m.field("role"), true) }

// Role returns the role of a message entry's message, "" for other entries.
func (e *Entry) Role() string {
	if e.Type != "message" {
		return ""
	}
	return roleOf(messageOf(e))
}
