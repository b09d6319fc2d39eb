package demo

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"time"

	"piweb/pisession"
)

// kv is one member of an ordered JSON object: pi writes keys in a fixed
// order, and the samples keep it so they look exactly like pi's files.
type kv struct {
	k string
	v any
}

// obj is an ordered JSON object.
type obj []kv

func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.k)
		b.Write(k)
		b.WriteByte(':')
		v, err := marshal(m.v)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshal encodes like JSON.stringify: no HTML escaping.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// file builds one session file line by line, chaining each entry to the
// previous one unless told otherwise, with a clock that advances a little
// per entry.
type file struct {
	id    string
	cwd   string
	lines [][]byte
	last  any // parentId of the next entry: nil (null) or an id
	now   time.Time
}

func newFile(cwd string, start time.Time, parent string) *file {
	f := &file{id: pisession.NewSessionID(), cwd: cwd, now: start}
	h := obj{{"type", "session"}, {"version", 3}, {"id", f.id}, {"timestamp", iso(start)}, {"cwd", cwd}}
	if parent != "" {
		h = append(h, kv{"parentSession", parent})
	}
	f.add(h)
	return f
}

func iso(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func (f *file) add(o obj) {
	b, err := marshal(o)
	if err != nil {
		panic(err) // the samples are static data
	}
	f.lines = append(f.lines, b)
}

func newID() string {
	b := make([]byte, 4)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// tick advances the clock.
func (f *file) tick(d time.Duration) time.Time {
	f.now = f.now.Add(d)
	return f.now
}

// entry appends an entry of typ after the current parent and makes it the
// parent of the next.
func (f *file) entry(typ string, members ...kv) string {
	id := newID()
	o := obj{{"type", typ}, {"id", id}, {"parentId", f.last}, {"timestamp", iso(f.tick(2 * time.Second))}}
	f.add(append(o, members...))
	f.last = id
	return id
}

// from makes the next entry a child of id (a branch).
func (f *file) from(id string) { f.last = id }

func (f *file) message(m obj) string { return f.entry("message", kv{"message", m}) }

func (f *file) ms() int64 { return f.now.UnixMilli() }

func text(s string) obj { return obj{{"type", "text"}, {"text", s}} }

func (f *file) user(s string) string {
	f.tick(20 * time.Second)
	return f.message(obj{{"role", "user"}, {"content", []any{text(s)}}, {"timestamp", f.ms()}})
}

// usage is a plausible usage block at the fake model's prices ($1/$2 per
// million tokens).
func usage(in, out int) obj {
	ci, co := float64(in)/1e6, float64(out)*2/1e6
	return obj{{"input", in}, {"output", out}, {"cacheRead", 0}, {"cacheWrite", 0}, {"totalTokens", in + out},
		{"cost", obj{{"input", ci}, {"output", co}, {"cacheRead", 0}, {"cacheWrite", 0}, {"total", ci + co}}}}
}

// assistant appends an assistant message from the demo model.
func (f *file) assistant(stop string, in, out int, content ...any) string {
	f.tick(5 * time.Second)
	return f.message(obj{{"role", "assistant"}, {"content", content}, {"api", "openai-completions"},
		{"provider", "fake"}, {"model", "fake-model"}, {"usage", usage(in, out)}, {"stopReason", stop},
		{"timestamp", f.ms()}})
}

func think(s string) obj {
	return obj{{"type", "thinking"}, {"thinking", s}, {"thinkingSignature", "reasoning_content"}}
}

func call(id, name string, args obj) obj {
	return obj{{"type", "toolCall"}, {"id", id}, {"name", name}, {"arguments", args}}
}

func (f *file) result(callID, tool, out string, isErr bool) string {
	f.tick(time.Second)
	return f.message(obj{{"role", "toolResult"}, {"toolCallId", callID}, {"toolName", tool},
		{"content", []any{text(out)}}, {"isError", isErr}, {"timestamp", f.ms()}})
}

func (f *file) bytes() []byte {
	var b bytes.Buffer
	for _, l := range f.lines {
		b.Write(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}
