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
func objectView(raw []byte) msgView { return objectViewIn(raw, nil) }

// objectViewIn is objectView with the member spans appended to buf[:0],
// so that a loop over many objects (a content's blocks) reuses one
// slice instead of growing a new one for each.
func objectViewIn(raw []byte, buf []member) msgView {
	if len(raw) == 0 || raw[0] != '{' {
		return msgView{raw: raw, members: buf[:0]}
	}
	members, _, ok := scanObjectMembers(raw, 0, buf[:0], modeTrusted, nil)
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

// MessageField returns the raw JSON of the member key of the entry's
// message object (its "message" member), the last one when the key
// repeats, as JSON.parse keeps it; nil when the entry has no message
// object or the object no such member. It reads the member spans the
// parse took, without scanning the message again, so a reader of a few
// members (an index: role, model, usage, content) pays for those only.
func (e *Entry) MessageField(key string) []byte { return messageOf(e).field(key) }

// Role returns the role of a message entry's message, "" for other entries.
func (e *Entry) Role() string {
	if e.Type != "message" {
		return ""
	}
	return roleOf(messageOf(e))
}
