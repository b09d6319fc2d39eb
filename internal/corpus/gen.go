package corpus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"time"
)

// gen writes the entries of one session, keeping the tree state pi keeps:
// the ids so far and the leaf new entries attach to.
type gen struct {
	w        *bufio.Writer
	enc      *json.Encoder
	buf      bytes.Buffer
	r        *rand.Rand
	now      time.Time
	n        int64
	entries  int
	ids      []string // every entry id, file order
	users    []string // ids of user message entries
	leaf     string
	model    model
	sinceCmp int
	named    bool
	linear   bool // no branches
	err      error
}

type model struct{ provider, id, api string }

var models = []model{
	{"anthropic", "claude-sonnet-4-5", "anthropic-messages"},
	{"openai", "gpt-5.1-codex", "openai-responses"},
	{"google", "gemini-2.5-pro", "google-generative-ai"},
	{"fake", "fake-model", "openai-completions"},
}

func newGen(w io.Writer, r *rand.Rand, created time.Time) *gen {
	g := &gen{w: bufio.NewWriterSize(w, 1<<16), r: r, now: created}
	g.enc = json.NewEncoder(&g.buf)
	g.enc.SetEscapeHTML(false) // JSON.stringify does not escape <, >, &
	g.model = models[r.IntN(len(models))]
	return g
}

func (g *gen) flush() error {
	if g.err != nil {
		return g.err
	}
	return g.w.Flush()
}

// line writes one record; the encoder's trailing newline ends the line.
func (g *gen) line(v any) {
	g.buf.Reset()
	if err := g.enc.Encode(v); err != nil {
		g.err = err
		return
	}
	n, err := g.w.Write(g.buf.Bytes())
	g.n += int64(n)
	if err != nil && g.err == nil {
		g.err = err
	}
}

type header struct {
	Type          string `json:"type"`
	Version       int    `json:"version"`
	ID            string `json:"id"`
	Timestamp     string `json:"timestamp"`
	Cwd           string `json:"cwd"`
	ParentSession string `json:"parentSession,omitempty"`
}

func (g *gen) header(id, cwd, parent string) {
	g.line(header{"session", 3, id, g.stamp(), cwd, parent})
}

// stamp returns the current time as pi writes it.
func (g *gen) stamp() string { return g.now.Format("2006-01-02T15:04:05.000Z") }

// tick advances the clock by up to max.
func (g *gen) tick(max time.Duration) {
	g.now = g.now.Add(time.Millisecond + time.Duration(g.r.Int64N(int64(max))))
}

// newID returns a fresh 8-hex entry id, as pi's generateId.
func (g *gen) newID() string {
	return fmt.Sprintf("%08x", g.r.Uint32())
}

// base is the part every entry shares. parentId is a pointer so that a
// root is written as null.
type base struct {
	Type      string  `json:"type"`
	ID        string  `json:"id"`
	ParentID  *string `json:"parentId"`
	Timestamp string  `json:"timestamp"`
}

// next starts an entry that becomes the new leaf.
func (g *gen) next(typ string) base {
	g.tick(3 * time.Second)
	id := g.newID()
	b := base{Type: typ, ID: id, Timestamp: g.stamp()}
	if g.leaf != "" {
		p := g.leaf
		b.ParentID = &p
	}
	g.ids = append(g.ids, id)
	g.leaf = id
	g.entries++
	g.sinceCmp++
	return b
}

// session writes entries until the file reaches about size bytes.
func (g *gen) session(size int64) {
	g.modelChange()
	g.line(struct {
		base
		ThinkingLevel string `json:"thinkingLevel"`
	}{g.next("thinking_level_change"), []string{"off", "low", "medium", "high"}[g.r.IntN(4)]})
	// Most bytes of a real session are tool output; scale it with the file
	// so that big files do not need millions of turns.
	resultSize := 300 + int(min(size/400, 12000))
	for g.n < size && g.err == nil {
		g.turn(resultSize)
		g.extras()
	}
}

func (g *gen) modelChange() {
	g.line(struct {
		base
		Provider string `json:"provider"`
		ModelID  string `json:"modelId"`
	}{g.next("model_change"), g.model.provider, g.model.id})
}

// extras writes the occasional non-message entries.
func (g *gen) extras() {
	switch r := g.r.IntN(100); {
	case r < 3 && len(g.users) > 1 && !g.linear:
		g.branch()
	case r < 6:
		g.label()
	case r < 8:
		g.model = models[g.r.IntN(len(models))]
		g.modelChange()
	case r < 10 && !g.named:
		g.named = true
		g.line(struct {
			base
			Name string `json:"name"`
		}{g.next("session_info"), prose(g.r, 20)})
	}
	if g.sinceCmp > 80 && g.r.IntN(4) == 0 {
		g.compaction()
	}
}

// branch moves the leaf back to before an earlier user message, as pi's
// /tree does, and sometimes records a branch summary there.
func (g *gen) branch() {
	target := g.users[g.r.IntN(len(g.users)-1)]
	for i, id := range g.ids {
		if id == target && i > 0 {
			g.leaf = g.ids[i-1]
		}
	}
	if g.r.IntN(2) == 0 {
		from := g.leaf
		g.line(struct {
			base
			FromID  string `json:"fromId"`
			Summary string `json:"summary"`
		}{g.next("branch_summary"), from, "The user explored a different branch. " + prose(g.r, 200)})
	}
}

func (g *gen) label() {
	target := g.ids[g.r.IntN(len(g.ids))]
	g.line(struct {
		base
		TargetID string `json:"targetId"`
		Label    string `json:"label"`
	}{g.next("label"), target, []string{"start", "good", "bug", "todo"}[g.r.IntN(4)]})
}

func (g *gen) compaction() {
	kept := g.ids[len(g.ids)-1-g.r.IntN(10)]
	before := 10000 + g.r.IntN(150000)
	g.sinceCmp = 0
	g.line(struct {
		base
		Summary          string         `json:"summary"`
		FirstKeptEntryID string         `json:"firstKeptEntryId"`
		TokensBefore     int            `json:"tokensBefore"`
		Details          map[string]any `json:"details"`
		FromHook         bool           `json:"fromHook"`
	}{g.next("compaction"), "## Goal\n" + prose(g.r, 300) + "\n\n## Progress\n- " + prose(g.r, 200), kept, before,
		map[string]any{"readFiles": []string{"src/main.go"}, "modifiedFiles": []string{}}, false})
}
