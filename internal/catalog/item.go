package catalog

// Item is the JSON shape of a session everywhere the API lists one
// (docs/api.md): its Meta and what it takes from outside it (Links).
type Item struct {
	ID                string  `json:"id"`
	Path              string  `json:"path"`
	Cwd               string  `json:"cwd"`
	Name              *string `json:"name"`
	Created           *string `json:"created"`
	Modified          *string `json:"modified"`
	MessageCount      int     `json:"messageCount"`
	FirstMessage      string  `json:"firstMessage"`
	ParentSessionID   *string `json:"parentSessionId"`
	ParentSessionPath *string `json:"parentSessionPath"`
	Size              int64   `json:"size"`
	Running           bool    `json:"running"`
}

// Links is what a session's Item takes from outside its Meta: whether its
// worker runs, and its parent's API id (nil when there is no parent or it
// is not listed).
type Links struct {
	Running  bool
	ParentID *string
}

func (l Links) equal(o Links) bool {
	if l.Running != o.Running || (l.ParentID == nil) != (o.ParentID == nil) {
		return false
	}
	return l.ParentID == nil || *l.ParentID == *o.ParentID
}

// ItemOf builds the Item of m.
func ItemOf(m Meta, l Links) Item {
	it := Item{
		ID: m.Key, Path: m.Path, Cwd: m.Cwd, MessageCount: m.MessageCount,
		FirstMessage: m.FirstMessage, Size: m.Size,
		Created: ISOTime(m.Created), Modified: ISOTime(m.Modified),
		Running: l.Running, ParentSessionID: l.ParentID,
	}
	if m.HasName {
		it.Name = &m.Name
	}
	if m.ParentPath != "" {
		p := m.ParentPath
		it.ParentSessionPath = &p
	}
	return it
}
