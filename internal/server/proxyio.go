package server

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
)

// The forwarded answer's bytes (proxy.go): an answer streamed to the page
// as it comes (an event stream flushed at each read), or a WebSocket
// piped both ways once the peer switched protocols.

// hopHeaders belong to one connection, not to the request or answer
// (RFC 9110 7.6.1), besides those the Connection header names.
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization",
	"Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// dropHopHeaders removes h's hop-by-hop headers.
func dropHopHeaders(h http.Header) {
	for _, v := range h["Connection"] {
		for name := range strings.SplitSeq(v, ",") {
			if name = strings.TrimSpace(name); name != "" {
				h.Del(name)
			}
		}
	}
	for _, k := range hopHeaders {
		h.Del(k)
	}
}

// answerHeaders are this server's own (guard set them): the peer's copies
// would double them, and it sets no cookie on this server's origin.
var answerHeaders = []string{"Set-Cookie", "Content-Security-Policy", "X-Frame-Options",
	"X-Content-Type-Options", "Referrer-Policy"}

// copyAnswerHeader adds the peer's answer headers to w's, but for
// answerHeaders and, unless keepHop, the hop-by-hop ones.
func copyAnswerHeader(w http.ResponseWriter, resp *http.Response, keepHop bool) {
	h := resp.Header.Clone()
	if !keepHop {
		dropHopHeaders(h)
	}
	for _, k := range answerHeaders {
		h.Del(k)
	}
	for k, vs := range h {
		w.Header()[k] = vs
	}
}

// copyAnswer writes the peer's answer to w, flushing after each read so
// that an event stream's events reach the page as they come.
func copyAnswer(w http.ResponseWriter, resp *http.Response, log *slog.Logger) {
	copyAnswerHeader(w, resp, false)
	w.WriteHeader(resp.StatusCode)
	rc := http.NewResponseController(w)
	rc.Flush() // a stream's headers go at once, before its first event
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return // the page went away
			}
			rc.Flush()
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				log.Debug("fleet: a forwarded answer ended early", "path", resp.Request.URL.Path, "err", err)
			}
			return
		}
	}
}

// pipeUpgrade answers the page's upgrade with the peer's 101 and pipes
// the two connections into each other until either side closes.
func (s *Server) pipeUpgrade(w http.ResponseWriter, resp *http.Response) error {
	peer, ok := resp.Body.(io.ReadWriteCloser)
	if !ok {
		return errors.New("server.forward: the peer switched protocols without a connection to write to")
	}
	copyAnswerHeader(w, resp, true)
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return err
	}
	defer conn.Close()
	res := &http.Response{StatusCode: resp.StatusCode, ProtoMajor: 1, ProtoMinor: 1, Header: w.Header()}
	if err := res.Write(brw); err != nil {
		return nil // the page is gone: nothing to answer
	}
	if err := brw.Flush(); err != nil {
		return nil
	}
	done := make(chan struct{}, 2)
	pipe := func(dst io.Writer, src io.Reader) {
		io.Copy(dst, src)
		done <- struct{}{}
	}
	go pipe(peer, brw.Reader) // what the page sent, buffered bytes first
	go pipe(conn, peer)
	<-done
	conn.Close()
	peer.Close()
	<-done
	return nil
}
