package live

import (
	"context"
	"strings"
	"time"
	"unicode"
)

// A new session is named from its first exchange: pi 1.6.0 names sessions
// only when asked (/name, RPC set_session_name), so piweb names an
// unnamed session whose first run just ended after its first user
// message, through pi (the live worker writes the name), and the user can
// rename it at once. A session with a name, or past its first exchange,
// is left alone.

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

// firstRun is a session piweb created, waiting for its first run to end.
type firstRun struct{ path, message string }

// nameAfterFirstRun names session id, if piweb created it and its first
// run just ended, from its first message, unless the user named it
// meanwhile. With a Titler (opt-in), the model's title then replaces that
// name, unless the user renamed the session in the meantime.
func (l *Relay) nameAfterFirstRun(id string) {
	v, created := l.unnamed.LoadAndDelete(id)
	if !created {
		return
	}
	fr := v.(firstRun)
	name := autoName(fr.message)
	if name == "" {
		return
	}
	if m, found := l.cat.ByKey(id); found && m.HasName {
		return
	}
	if !l.rename(id, fr.path, name) || l.opts.Titler == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	title := modelTitle(l.opts.Titler(ctx, fr.message))
	if title == "" || title == name {
		return
	}
	l.cat.Refresh(fr.path)
	if m, found := l.cat.ByKey(id); found && m.Name != name {
		return // the user renamed it meanwhile
	}
	l.rename(id, fr.path, title)
}

// rename names the session through its worker, or in its file when none
// runs, and reports whether that worked.
func (l *Relay) rename(id, path, name string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := l.agent.Rename(ctx, path, name, func() error { return l.opts.Store.Rename(path, name) })
	if err != nil {
		l.opts.Log.Error("live: name session", "id", id, "err", err)
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
