// Package naming names a session piweb created from its first exchange.
// pi 1.6.0 names sessions only when asked (/name, RPC set_session_name),
// so piweb names an unnamed session whose first run just ended after its
// first user message, through pi (the live worker writes the name), and
// the user can rename it at once. A session with a name, or past its
// first exchange, is left alone. With a Titler (opt-in), a model's title
// then replaces the heuristic name, unless the user renamed the session
// meanwhile.
package naming

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode"

	"piweb/internal/catalog"
	"piweb/internal/opt"
	"piweb/internal/sessionstore"
)

// Agent is what naming needs of the pi adapter.
type Agent interface {
	// Rename names the session through its live worker, or runs offline.
	Rename(ctx context.Context, path, name string, offline func() error) error
}

// Options configures a Namer. Catalog, Agent and Store are required.
type Options struct {
	Catalog *catalog.Catalog
	Agent   Agent
	// Store writes the name when no worker runs.
	Store *sessionstore.Store
	// Titler, when set (serve's --model-titles), asks a model for a title
	// of a new session's first message ("" when it cannot), which replaces
	// the heuristic name; nil names sessions by the heuristic alone.
	Titler func(ctx context.Context, first string) string
	// Log gets the failures to name; nil discards them.
	Log *slog.Logger
}

// Namer keeps the sessions piweb created until their first run ends.
type Namer struct {
	o       Options
	unnamed sync.Map // API id -> firstRun
}

// New returns a Namer.
func New(o Options) *Namer {
	opt.Log(&o.Log)
	return &Namer{o: o}
}

// firstRun is a session piweb created, waiting for its first run to end.
type firstRun struct{ path, message string }

// Created remembers a session piweb just created with its first message,
// to be named when its first run ends (FirstRunEnded).
func (n *Namer) Created(id, path, message string) {
	n.unnamed.Store(id, firstRun{path: path, message: message})
}

// Forked remembers a fork piweb made at a session's first message, which
// holds no message yet: it is named like a created session, from the
// first message the user then sends (the fork's draft, maybe edited).
func (n *Namer) Forked(id, path string) {
	n.unnamed.Store(id, firstRun{path: path})
}

// Message is the first message of a session piweb created whose first
// run has not ended.
func (n *Namer) Message(id string) (string, bool) {
	v, created := n.unnamed.Load(id)
	if !created {
		return "", false
	}
	return v.(firstRun).message, true
}

// maxAutoName is the longest name made, in characters.
const maxAutoName = 60

// autoName is the heuristic name of a first message: its first non-empty
// line with white space collapsed, cut at a word boundary to maxAutoName
// characters ("…" marks a cut). Messages that are commands (a leading
// "/" or "!") get no name.
func autoName(first string) string {
	line := ""
	for l := range strings.SplitSeq(first, "\n") {
		if l = strings.Join(strings.FieldsFunc(l, unicode.IsSpace), " "); l != "" {
			line = l
			break
		}
	}
	if line == "" || line[0] == '/' || line[0] == '!' {
		return ""
	}
	r := []rune(line)
	if len(r) <= maxAutoName {
		return line
	}
	cut := string(r[:maxAutoName])
	if i := strings.LastIndexByte(cut, ' '); i > maxAutoName/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,.;:-") + "…"
}

// FirstRunEnded names session id, if piweb created it and its first run
// just ended, from its first message, unless the user named it
// meanwhile. With a Titler, the model's title then replaces that name,
// unless the user renamed the session in the meantime. It returns once
// the session is named.
func (n *Namer) FirstRunEnded(id string) {
	v, created := n.unnamed.LoadAndDelete(id)
	if !created {
		return
	}
	fr := v.(firstRun)
	if fr.message == "" { // a fork: its first message is in the file now
		n.o.Catalog.Refresh(fr.path)
		m, _ := n.o.Catalog.ByKey(id)
		fr.message = m.FirstMessage
	}
	name := autoName(fr.message)
	if name == "" {
		return
	}
	if m, found := n.o.Catalog.ByKey(id); found && m.HasName {
		return
	}
	if !n.rename(id, fr.path, name) || n.o.Titler == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	title := modelTitle(n.o.Titler(ctx, fr.message))
	if title == "" || title == name {
		return
	}
	n.o.Catalog.Refresh(fr.path)
	if m, found := n.o.Catalog.ByKey(id); found && m.Name != name {
		return // the user renamed it meanwhile
	}
	n.rename(id, fr.path, title)
}

// rename names the session through its worker, or in its file when none
// runs, and reports whether that worked.
func (n *Namer) rename(id, path, name string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := n.o.Agent.Rename(ctx, path, name, func() error { return n.o.Store.Rename(path, name) })
	if err != nil {
		n.o.Log.Error("naming: name session", "id", id, "err", err)
	}
	return err == nil
}

// modelTitle is a model's answer as a name: its first line, without the
// quotes or the final full stop a model may add, at most maxAutoName
// characters.
func modelTitle(reply string) string {
	t := autoName(strings.Trim(strings.TrimSpace(reply), "\"'`*“”"))
	return strings.TrimRight(strings.Trim(t, "\"'`*“”"), ".")
}
