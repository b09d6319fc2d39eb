package terminal

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/coder/websocket"
)

// The WebSocket protocol of an attached client. The server sends the
// scrollback, then the output as it comes, each as a binary message, and
// a text message {"type":"exit"} when the shell has ended. The client
// sends keystrokes and pastes as binary messages and {"type":"resize",
// "cols":C,"rows":R} as a text message.

// maxInput bounds one message from the client (a large paste).
const maxInput = 1 << 20

// control is a text message.
type control struct {
	Type string `json:"type"`
	Cols int    `json:"cols,omitempty"`
	Rows int    `json:"rows,omitempty"`
}

// Serve upgrades the request to a WebSocket attached to t until the
// client leaves or the shell ends. The caller has checked who asks
// (owner, Host and Origin); Serve writes the answer itself, including a
// failed upgrade's, and returns that failure only for logging.
func Serve(w http.ResponseWriter, r *http.Request, t *Term) error {
	// The server's read deadline covers reading a request; a terminal
	// lives on.
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Time{})
	rc.SetWriteDeadline(time.Time{})
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled})
	if err != nil {
		return err
	}
	c.SetReadLimit(maxInput)
	back, a, ok := t.Attach()
	if !ok {
		c.Write(r.Context(), websocket.MessageText, []byte(`{"type":"exit"}`))
		return c.Close(websocket.StatusNormalClosure, "terminal ended")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		readInput(ctx, c, t)
		cancel()
		a.Detach()
	}()
	return writeOutput(ctx, c, back, a)
}

// writeOutput sends the scrollback and then the output until the
// attachment ends: the shell exited (told as exit) or the client left or
// fell behind (the connection closes; the client reconnects).
func writeOutput(ctx context.Context, c *websocket.Conn, back []byte, a *Attachment) error {
	if len(back) > 0 {
		if err := c.Write(ctx, websocket.MessageBinary, back); err != nil {
			return nil
		}
	}
	for p := range a.Out {
		if err := c.Write(ctx, websocket.MessageBinary, p); err != nil {
			a.Detach()
			return nil
		}
	}
	if a.Ended() {
		c.Write(ctx, websocket.MessageText, []byte(`{"type":"exit"}`))
		return c.Close(websocket.StatusNormalClosure, "terminal ended")
	}
	return c.Close(websocket.StatusTryAgainLater, "reconnect")
}

// readInput relays the client's keystrokes and resizes until the client
// goes or ctx ends.
func readInput(ctx context.Context, c *websocket.Conn, t *Term) {
	for {
		typ, p, err := c.Read(ctx)
		if err != nil {
			return
		}
		if typ == websocket.MessageBinary {
			if t.Write(p) != nil {
				return
			}
			continue
		}
		var m control
		if json.Unmarshal(p, &m) == nil && m.Type == "resize" {
			t.Resize(m.Cols, m.Rows)
		}
	}
}
