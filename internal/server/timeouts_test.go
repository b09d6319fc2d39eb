package server

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// TestReadTimeouts: a client that sends its headers or body too slowly is
// cut off after the read timeouts, and an SSE stream, which outlives them,
// is not.
func TestReadTimeouts(t *testing.T) {
	r := newRig(t, Options{Timeouts: Timeouts{Header: 300 * time.Millisecond, Read: 500 * time.Millisecond}})
	addr := strings.TrimPrefix(serveLoopback(t, r, "tcp", "127.0.0.1:0"), "http://")
	id := r.items()[0].ID
	for name, req := range map[string]string{
		"slow headers": "GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\n",
		"slow body": "POST /api/sessions/" + id + "/rename HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
			"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"name\":",
	} {
		c := dial(t, addr, req)
		if err := readUntilClosed(c, 5*time.Second); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	c := dial(t, addr, "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	br := bufio.NewReader(c)
	if line, err := br.ReadString('\n'); err != nil || !strings.Contains(line, "200") {
		t.Fatalf("stream: %q %v", line, err)
	}
	c.SetReadDeadline(time.Now().Add(1500 * time.Millisecond)) // three read timeouts
	_, err := io.Copy(io.Discard, br)
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("the stream ended before the client left: %v", err)
	}
}

func dial(t *testing.T, addr, send string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, send); err != nil {
		t.Fatal(err)
	}
	return c
}

// readUntilClosed reads until the server closes the connection; waiting
// longer than limit is an error.
func readUntilClosed(c net.Conn, limit time.Duration) error {
	c.SetReadDeadline(time.Now().Add(limit))
	_, err := io.Copy(io.Discard, c)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return errors.New("the server still waits for the slow client")
	}
	return nil
}
