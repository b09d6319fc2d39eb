package corpus

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The memory benchmarks (issue 21) need the files that make readers hold
// too much: sessions damaged the way a crash, a full disk or another
// program leave them, and sessions of one huge line.

// DamageOptions sizes a corpus of damaged sessions.
type DamageOptions struct {
	// Files is the number of files, Bytes their approximate total.
	Files int
	Bytes int64
	// HugeLine is the size of the longest invalid lines (a few per file);
	// zero means 4 MB.
	HugeLine int
	Seed     uint64
}

// Damaged writes an agent dir of damaged sessions: generated sessions
// whose lines are now and then cut short, replaced with binary garbage,
// split by lone CRs or falsy values, and a few huge lines that are not
// JSON (a message cut short after megabytes, a valid-looking line with a
// stray byte at its end), the last line of most files cut short.
func Damaged(dir string, o DamageOptions) (Stats, error) {
	var st Stats
	if o.Files <= 0 {
		return st, nil
	}
	huge := o.HugeLine
	if huge == 0 {
		huge = 4 << 20
	}
	per := o.Bytes / int64(o.Files)
	for i := range o.Files {
		r := fileRand(o.Seed, i, 3)
		p := planFile(dir, Options{Projects: max(1, o.Files/20), Seed: o.Seed}, i, per)
		var clean bytes.Buffer
		g := newGen(&clean, fileRand(o.Seed, i, 2), p.created)
		g.header(p.id, p.cwd, "")
		g.session(per / 3)
		if err := g.flush(); err != nil {
			return st, err
		}
		data := damage(clean.Bytes(), r, per-int64(clean.Len()), huge)
		if err := writeAll(p.path, data); err != nil {
			return st, err
		}
		st.Files++
		st.Bytes += int64(len(data))
		st.Entries += g.entries
	}
	return st, nil
}

// damage returns the lines of clean with defects mixed in and about extra
// bytes of huge invalid lines among them (each at most huge bytes).
func damage(clean []byte, r *rand.Rand, extra int64, huge int) []byte {
	lines := bytes.SplitAfter(clean, []byte("\n"))
	out := make([]byte, 0, len(clean)+int(max(0, extra))+1024)
	for i, l := range lines {
		if i == 0 || len(l) == 0 {
			out = append(out, l...)
			continue
		}
		switch k := r.IntN(100); {
		case k < 8: // cut short, as a crash mid-write leaves a line
			out = append(append(out, l[:r.IntN(len(l))]...), '\n')
		case k < 11: // garbage from another program or a bad disk
			out = append(append(out, garbage(r, 16+r.IntN(4096))...), '\n')
		case k < 13: // a falsy value or a value that is no object
			out = append(out, []string{"null\n", "0\n", "\"\"\n", "[1,2,3]\n", "\"text\"\n"}[r.IntN(5)]...)
		case k < 15: // lone CRs, which pi's listing reads as line ends
			out = append(append(out, bytes.ReplaceAll(l[:len(l)-1], []byte(","), []byte(",\r"))...), '\n')
		default:
			out = append(out, l...)
		}
		if extra > 0 && r.IntN(max(1, len(lines)/4)) == 0 {
			n := min(int(extra), huge/2+r.IntN(huge/2+1))
			out = append(hugeBadLine(out, r, n), '\n')
			extra -= int64(n)
		}
	}
	for extra > 0 {
		n := min(int(extra), huge/2+r.IntN(huge/2+1))
		out = append(hugeBadLine(out, r, n), '\n')
		extra -= int64(n)
	}
	if r.IntN(4) != 0 && len(out) > 2 { // the last line cut short
		out = out[:len(out)-1-r.IntN(min(len(out)-1, 200))]
	}
	return out
}

// garbage returns n random bytes without a newline.
func garbage(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		if b[i] = byte(r.IntN(256)); b[i] == '\n' {
			b[i] = ' '
		}
	}
	return b
}

// hugeBadLine appends a line of about n bytes that readers must not keep
// whole: a message whose text never ends, a whole message with a stray
// byte after it, a falsy number (0.000…, which pi skips), an entry whose
// parentId (naming no entry) is huge, a message split by lone CRs, and
// binary garbage.
func hugeBadLine(b []byte, r *rand.Rand, n int) []byte {
	start := len(b)
	fill := func(unit string) {
		for len(b)-start < n-64 {
			b = append(b, unit...)
			b = append(b, word(r)...)
		}
	}
	switch r.IntN(6) {
	case 0, 1:
		b = append(b, `{"type":"message","id":"deadbeef","parentId":null,"timestamp":"2026-01-05T09:00:00.000Z","message":{"role":"toolResult","toolCallId":"t","toolName":"bash","content":[{"type":"text","text":"`...)
		fill("output line \\n ")
		if r.IntN(2) == 0 {
			b = append(b, `"}],"isError":false,"timestamp":1}}x`...)
		}
	case 2:
		b = append(b, "0."...)
		for len(b)-start < n {
			b = append(b, "0000000000"...)
		}
	case 3:
		b = append(b, `{"type":"label","id":"`...)
		b = append(b, fmt.Sprintf("%08x", r.Uint32())...)
		b = append(b, `","parentId":"`...)
		fill("p")
		b = append(b, `","timestamp":"2026-01-05T09:00:00.000Z","targetId":"x","label":"l"}`...)
	case 4:
		b = append(b, `{"type":"message","id":"cafe0001","parentId":null,"timestamp":"2026-01-05T09:00:00.000Z","message":{"role":"user","content":"`...)
		fill("\r")
		b = append(b, "\"}}\r\r"...)
	default:
		b = append(b, garbage(r, n)...)
	}
	return b
}

// HugeOptions describes a session of one huge entry.
type HugeOptions struct {
	// Bytes is the size of the huge entry's line.
	Bytes int
	// Role is the role of the huge message: "toolResult" (default),
	// "user" or "assistant" (whose text is searchable).
	Role string
	Seed uint64
}

// Huge writes one session under dir/sessions/ whose middle entry is a
// single message line of about o.Bytes (a tool that printed a huge file,
// a pasted log) between a few ordinary entries, and returns its path.
func Huge(dir string, o HugeOptions) (string, error) {
	p := planFile(dir, Options{Projects: 1, Seed: o.Seed}, 0, 0)
	var buf bytes.Buffer
	g := newGen(&buf, fileRand(o.Seed, 0, 2), p.created)
	g.header(p.id, p.cwd, "")
	g.session(1)
	text := hugeText(fileRand(o.Seed, 0, 4), o.Bytes)
	g.tick(time.Minute)
	switch o.Role {
	case "user":
		g.message(userMsg{"user", []textBlock{{"text", text}}, g.now.UnixMilli()})
	case "assistant":
		g.assistant([]any{textBlock{"text", text}}, "stop")
	default:
		g.message(toolResultMsg{"toolResult", "toolu_huge", "bash", []textBlock{{"text", text}}, false, g.ms()})
	}
	g.turn(300)
	if err := g.flush(); err != nil {
		return "", err
	}
	return p.path, writeAll(p.path, buf.Bytes())
}

// hugeText returns about n bytes of log-like text with escapes in JSON.
func hugeText(r *rand.Rand, n int) string {
	var b strings.Builder
	b.Grow(n + 64)
	for b.Len() < n {
		fmt.Fprintf(&b, "%06d\t%s \"%s\" %s\n", b.Len()%1_000_000, word(r), word(r), word(r))
	}
	return b.String()
}

func writeAll(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("corpus: %w", err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("corpus: %w", err)
	}
	return nil
}
