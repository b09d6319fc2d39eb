package pisession

import (
	"encoding/json"

	"piweb/internal/jsjson"
)

// FileChange is one write or edit tool call of a session, with what its
// result said: what the session changed in its folder, as pi made it.
type FileChange struct {
	// EntryID is the assistant message holding the call; CallID the call.
	EntryID string `json:"entryId"`
	CallID  string `json:"callId"`
	// Tool is "write" or "edit"; Path is the path argument as pi got it
	// (relative to the session's cwd, or absolute).
	Tool string `json:"tool"`
	Path string `json:"path"`
	// Timestamp is the call's message time (Unix ms).
	Timestamp float64 `json:"timestamp"`
	// Content is a write's new content.
	Content *string `json:"content,omitempty"`
	// Edits are an edit's replacements; Diff is the diff pi computed for
	// it (its result's details.diff), "" when pi gave none.
	Edits []TextEdit `json:"edits,omitempty"`
	Diff  string     `json:"diff,omitempty"`
	// Done is set once the call has a result; Error when that failed.
	Done  bool `json:"done"`
	Error bool `json:"error"`
}

// TextEdit is one replacement of an edit call.
type TextEdit struct {
	OldText string `json:"oldText"`
	NewText string `json:"newText"`
}

// fileArgs are the arguments of pi's write and edit tools (edit takes one
// oldText/newText pair or, since pi 0.6x, a list of edits).
type fileArgs struct {
	Path    string     `json:"path"`
	Content *string    `json:"content"`
	OldText *string    `json:"oldText"`
	NewText *string    `json:"newText"`
	Edits   []TextEdit `json:"edits"`
}

// FileChanges lists the session's write and edit tool calls in file order,
// on every branch (an abandoned branch's edits happened on disk too).
func (s *Session) FileChanges() []FileChange {
	out := []FileChange{}
	byCall := map[string]int{}
	for _, e := range s.Entries {
		if e.Type != "message" {
			continue
		}
		m, ok := e.Message()
		if !ok {
			continue
		}
		switch m.Role {
		case RoleAssistant:
			for _, b := range m.Content.Blocks() {
				if c, ok := fileChange(e, m, b); ok {
					byCall[c.CallID] = len(out)
					out = append(out, c)
				}
			}
		case RoleToolResult:
			if i, ok := byCall[m.ToolCallID]; ok {
				out[i].Done, out[i].Error = true, m.IsError
				out[i].Diff = detailsDiff(m.Details)
			}
		}
	}
	return out
}

func fileChange(e *Entry, m Message, b Block) (FileChange, bool) {
	if b.Type != "toolCall" || (b.Name != "write" && b.Name != "edit") {
		return FileChange{}, false
	}
	var a fileArgs
	if json.Unmarshal(b.Arguments, &a) != nil || a.Path == "" {
		return FileChange{}, false
	}
	c := FileChange{EntryID: e.ID, CallID: b.ID, Tool: b.Name, Path: a.Path, Timestamp: m.Timestamp}
	if b.Name == "write" {
		c.Content = a.Content
		return c, true
	}
	c.Edits = a.Edits
	if a.OldText != nil || a.NewText != nil {
		c.Edits = append(c.Edits, TextEdit{OldText: strOr(a.OldText), NewText: strOr(a.NewText)})
	}
	return c, true
}

func strOr(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// detailsDiff reads details.diff of an edit's result.
func detailsDiff(details []byte) string {
	v := jsjson.Field(details, "diff")
	if len(v) == 0 || v[0] != '"' {
		return ""
	}
	s, _ := jsjson.DecodeString(v)
	return s
}
