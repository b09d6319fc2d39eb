package sessionstore

// Lines of a small session the store's tests write.
const (
	sHdr = `{"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}`
	sE1  = `{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}`
	sE2  = `{"type":"message","id":"b","parentId":"a","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"assistant","content":[],"provider":"p","model":"m","timestamp":2}}`
)
