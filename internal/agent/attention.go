package agent

import (
	"encoding/json"
	"strings"

	"piweb/internal/jsjson"
)

// The attention kinds a worker event can mean (WorkerNote.Attention): its
// run ended ("done") or failed ("failed"), it waits for an answer to an
// extension dialog ("waiting"; "resumed" once answered or timed out), or
// a run began ("started", the server's own, never announced).
const (
	AttentionDone    = "done"
	AttentionFailed  = "failed"
	AttentionWaiting = "waiting"
	AttentionResumed = "resumed"
	AttentionStarted = "started"
)

// maxNoteTitle bounds a WorkerNote's title in bytes.
const maxNoteTitle = 200

// AttentionOf reads a worker event: the attention kind it means, if any,
// and for a dialog its title (for a failed run, its error).
func AttentionOf(ev []byte) (kind, title string) {
	var e struct {
		Type      string `json:"type"`
		Method    string `json:"method"`
		Title     string `json:"title"`
		WillRetry bool   `json:"willRetry"`
		Messages  []struct {
			Role         string `json:"role"`
			StopReason   string `json:"stopReason"`
			ErrorMessage string `json:"errorMessage"`
		} `json:"messages"`
	}
	if json.Unmarshal(ev, &e) != nil {
		return "", ""
	}
	switch e.Type {
	case EvExtensionUIRequest:
		switch e.Method {
		case "select", "confirm", "input", "editor":
			return AttentionWaiting, e.Title
		}
	case EvAgentStart:
		return AttentionStarted, ""
	case EvUIAnswered, EvExtensionUITimeout:
		return AttentionResumed, ""
	case EvAgentEnd:
		if e.WillRetry { // pi 1.x tries again: the run is not over (0.73 does not say)
			return "", ""
		}
		for i := len(e.Messages) - 1; i >= 0; i-- {
			if m := e.Messages[i]; m.Role == "assistant" {
				if m.StopReason == "error" {
					return AttentionFailed, m.ErrorMessage
				}
				break
			}
		}
		return AttentionDone, ""
	}
	return "", ""
}

// noteOf is the WorkersTopic projection of e, published on topic.
func noteOf(topic string, e Event) WorkerNote {
	kind, title := AttentionOf(e.Raw)
	if len(title) > maxNoteTitle {
		title = strings.Clone(jsjson.Cut(title, maxNoteTitle)) // not a view of the whole message
	}
	return WorkerNote{Topic: topic, Type: e.Type, Attention: kind, Title: title}
}

// Size is what the note holds, in bytes.
func (n WorkerNote) Size() int {
	return 64 + len(n.Topic) + len(n.Type) + len(n.Attention) + len(n.Title)
}
