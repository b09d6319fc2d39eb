package server

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/coder/websocket"

	"piweb/internal/app"
	"piweb/internal/sessionstore"
	"piweb/internal/testkit"
	"piweb/pisession"
)

// BenchmarkTerminalKeystrokeEcho measures a keystroke's round trip as the
// page sees it: a WebSocket message to the server, the PTY, the terminal's
// echo, and the echo back over the socket (loopback TCP). It reports the
// median (p50-ms) and p99 (p99-ms) besides the mean.
func BenchmarkTerminalKeystrokeEcho(b *testing.B) {
	r := newRig(b, Options{}, app.Config{Terminals: testTerminals(b)})
	id := pisession.NewSessionID()
	header := fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-12-01T10:00:00.000Z","cwd":%q}`, id, b.TempDir())
	if _, err := sessionstore.NewFile(filepath.Join(r.d.AgentDir, "sessions", "bench"), []byte(header+"\n")); err != nil {
		b.Fatal(err)
	}
	if err := r.cat.Sync(context.Background()); err != nil {
		b.Fatal(err)
	}
	t, err := r.srv.app.Terminals.Start(id, b.TempDir(), 80, 24)
	if err != nil {
		b.Fatal(err)
	}
	benchEcho(b, r.api().TerminalSocketURL(id, t.Info().ID))
}

func benchEcho(b *testing.B, url string) {
	ctx := context.Background()
	c, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: http.Header{}})
	if err != nil {
		b.Fatal(err)
	}
	defer c.CloseNow()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if err := c.Write(ctx, websocket.MessageBinary, []byte("x")); err != nil {
			b.Fatal(err)
		}
		for {
			_, p, err := c.Read(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if slices.Contains(p, 'x') {
				break
			}
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	testkit.ReportLatencies(b, "", lat)
}
