package server

import (
	"log/slog"
	"net/http"
	"time"

	"piweb/internal/access"
	"piweb/internal/opt"
)

// Timeouts bound what a slow or idle client can hold. A request's headers
// must arrive within Header and its whole body within Read (a slow upload
// cannot pin a connection and a goroutine forever). The read deadline
// covers reading the request only: SSE streams outlive it (net/http's
// check for a client gone ignores it; TestReadTimeouts holds a stream past
// three of them). Idle keep-alive connections close after Idle.
//
// PeerAnswer bounds the wait for another machine's answer to a request
// forwarded to it (proxy.go; default 30 s).
type Timeouts struct {
	Header, Read, Idle time.Duration
	PeerAnswer         time.Duration
}

// Default timeouts: a 8 MB prompt body over a slow link takes well under a
// minute.
const (
	defaultHeaderTimeout = 10 * time.Second
	defaultReadTimeout   = time.Minute
	defaultIdleTimeout   = 2 * time.Minute
)

func (t Timeouts) withDefaults() Timeouts {
	opt.Positive(&t.Header, defaultHeaderTimeout)
	opt.Positive(&t.Read, defaultReadTimeout)
	opt.Positive(&t.Idle, defaultIdleTimeout)
	return t
}

// httpServer is the http.Server of Serve: timeouts, and the connection
// context the peer check reads (peer.go).
func (s *Server) httpServer() *http.Server {
	t := s.opts.Timeouts.withDefaults()
	return &http.Server{Handler: s.handler, ReadHeaderTimeout: t.Header, ReadTimeout: t.Read,
		IdleTimeout: t.Idle, ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelError), ConnContext: access.ConnContext}
}
