package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"piweb/internal/access"
	"piweb/internal/client"
	"piweb/internal/errs"
	"piweb/internal/fleet"
)

// The user's side of driving another machine's session (issue 22 item 4,
// docs/decisions/0018): a request on a forwarded route (fleetroutes.go)
// with ?machine= naming another machine passed this server's checks as
// the user's (Host, fetch metadata, sign-in or local user, Origin, JSON);
// it goes on to that machine's advertised URL with the fleet key and
// without the user's credentials, streamed both ways (SSE flushed as it
// comes, the terminal's WebSocket piped).

// Peers finds another machine of the fleet (fleet.Reader.Peer).
type Peers interface {
	Peer(ctx context.Context, name string, now time.Time) (fleet.Peer, error)
}

// peerDialTimeout bounds connecting to another machine: one that vanished
// is said so quickly.
const peerDialTimeout = 5 * time.Second

// defaultPeerAnswer bounds the wait for another machine's answer to a
// forwarded request (its headers: a stream's body runs on as long as it
// does), so that one too slow is said so (Timeouts.PeerAnswer).
const defaultPeerAnswer = 30 * time.Second

// newPeerTransport is the one transport to the fleet's machines: no
// environment proxy (they share a network or a VPN), connections reused,
// answers awaited at most answer, and TCP keep-alive probes that find a
// machine gone from the network (no FIN, no RST) within about 30 s, so
// that a stream it held ends and the page, reconnecting, learns it is
// unavailable.
func newPeerTransport(answer time.Duration) *http.Transport {
	d := &net.Dialer{Timeout: peerDialTimeout,
		KeepAliveConfig: net.KeepAliveConfig{Enable: true, Idle: 15 * time.Second, Interval: 5 * time.Second, Count: 3}}
	return &http.Transport{DialContext: d.DialContext, TLSHandshakeTimeout: 10 * time.Second,
		IdleConnTimeout: 90 * time.Second, MaxIdleConnsPerHost: 16, ForceAttemptHTTP2: true,
		ResponseHeaderTimeout: cmp.Or(answer, defaultPeerAnswer)}
}

// patientTransport is t without the answer bound, for pi's commands: one
// answers when pi is done with it (a compaction, a bash command), which
// may take minutes.
func patientTransport(t *http.Transport) *http.Transport {
	p := t.Clone()
	p.ResponseHeaderTimeout = 0
	return p
}

// peerHTTP is the HTTP client for a forwarded request: pi's commands
// wait as long as pi takes, everything else is bounded.
func (s *Server) peerHTTP(r *http.Request) *http.Client {
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/commands") {
		return s.patient
	}
	return s.peers
}

// peerHTTPClient is an HTTP client over t that follows no redirect: a
// peer's answer, whatever it is, goes back to the page as it is.
func peerHTTPClient(t *http.Transport) *http.Client {
	return &http.Client{Transport: t, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// remote forwards a request naming another machine on a forwarded route;
// a state change on any other route naming another machine is refused;
// everything else (this machine, no machine, reads of the fleet database,
// requests forwarded to this machine) is next's.
func (s *Server) remote(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		machine := r.URL.Query().Get("machine")
		if machine == "" || s.opts.Fleet == nil || machine == s.opts.Fleet.Machine() || isFleet(r) {
			next.ServeHTTP(w, r)
			return
		}
		if !fleetRoute(r) {
			if isSafeMethod(r.Method) {
				next.ServeHTTP(w, r) // answered from the fleet database, or refused by its handler
				return
			}
			s.writeError(w, r, errs.Errorf(errs.Forbidden, "%s %s is not open to another machine's sessions", r.Method, r.URL.Path))
			return
		}
		if err := s.forward(w, r, machine); err != nil {
			s.writeError(w, r, err)
		}
	})
}

// forward sends r to machine's piweb through the typed client and
// streams its answer back.
func (s *Server) forward(w http.ResponseWriter, r *http.Request, machine string) error {
	target, err := s.peerURL(r.Context(), machine)
	if err != nil {
		return err
	}
	upgrade := r.Header.Get("Upgrade") != ""
	if upgrade {
		// guard checks Origin on state changes only; a WebSocket is one.
		if !s.originAllowed(r) {
			return errs.Errorf(errs.Forbidden, "cross-origin request refused")
		}
		// The read deadline covers reading a request; the socket lives on.
		http.NewResponseController(w).SetReadDeadline(time.Time{})
	}
	resp, err := s.peerClient(r, target).Send(r.Context(), r.Method, forwardedPath(r), forwardedBody(r), s.forwardedHeader(r, machine))
	if err != nil {
		return s.peerFailed(machine, err)
	}
	defer resp.Body.Close()
	if upgrade && resp.StatusCode == http.StatusSwitchingProtocols {
		return s.pipeUpgrade(w, resp)
	}
	copyAnswer(w, resp, s.log)
	return nil
}

// peerClient is the typed client of the piweb at target, over the
// transport r needs (peerHTTP).
func (s *Server) peerClient(r *http.Request, target *url.URL) *client.Client {
	return client.New(target.String(), client.Options{HTTPClient: s.peerHTTP(r)})
}

// canDrive says whether this piweb forwards to other machines at all.
func (s *Server) canDrive() bool { return s.opts.FleetKey.Set() && s.opts.Peers != nil }

// peerURL is the advertised URL of an online machine, or why there is none.
func (s *Server) peerURL(ctx context.Context, machine string) (*url.URL, error) {
	if !s.canDrive() {
		return nil, errs.Errorf(errs.Unavailable, "driving machine %s needs the fleet key: start this piweb with --fleet-key-file", machine)
	}
	p, err := s.peerCache.peer(ctx, s.opts.Peers, machine, time.Now())
	switch {
	case errors.Is(err, fleet.ErrNoMachine):
		return nil, errs.Errorf(errs.NotFound, "no machine %s in the fleet", machine)
	case err != nil:
		return nil, errs.E("", errs.Unavailable, "the fleet database cannot answer: "+fleet.Explain(err), err)
	case !p.Online:
		return nil, errs.Errorf(errs.Unavailable, "machine %s is offline (last heard from %s): its sessions are read-only from the fleet database",
			machine, p.LastHeartbeat.UTC().Format(time.RFC3339))
	case p.Advertise == "":
		return nil, errs.Errorf(errs.Unavailable, "machine %s gives no address: its piweb needs --fleet-advertise URL", machine)
	}
	u, err := url.Parse(p.Advertise)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errs.Errorf(errs.Unavailable, "machine %s advertises an address that is not an http(s) URL", machine)
	}
	return u, nil
}

// strippedHeaders never leave this machine: the user's credentials and
// what the browser says about the page (the peer trusts the key alone).
var strippedHeaders = []string{"Cookie", "Authorization", "Origin", "Referer",
	"Sec-Fetch-Site", "Sec-Fetch-Mode", "Sec-Fetch-Dest", "Sec-Fetch-User",
	fleetKeyHeader, fleetMachineHeader, fleetFromHeader}

// forwardedHeader is r's header for the peer: without hop-by-hop
// headers (an upgrade's own put back), the user's credentials or the
// browser's page, and with the fleet key's proof.
func (s *Server) forwardedHeader(r *http.Request, machine string) http.Header {
	h := r.Header.Clone()
	dropHopHeaders(h)
	for _, k := range strippedHeaders {
		h.Del(k)
	}
	if up := r.Header.Get("Upgrade"); up != "" {
		h.Set("Connection", "Upgrade")
		h.Set("Upgrade", up)
	}
	if r.ContentLength > 0 {
		h.Set("Content-Length", strconv.FormatInt(r.ContentLength, 10))
	}
	h.Set(fleetKeyHeader, s.opts.FleetKey.Proof(machine, time.Now()))
	h.Set(fleetMachineHeader, machine)
	h.Set(fleetFromHeader, s.opts.Fleet.Machine())
	return h
}

// forwardedPath is r's path and query without ?machine=.
func forwardedPath(r *http.Request) string {
	q := r.URL.Query()
	q.Del("machine")
	if len(q) == 0 {
		return r.URL.EscapedPath()
	}
	return r.URL.EscapedPath() + "?" + q.Encode()
}

// forwardedBody is r's body, nil when it has none.
func forwardedBody(r *http.Request) io.Reader {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 && isSafeMethod(r.Method) {
		return nil
	}
	return r.Body
}

// peerFailed says why a forwarded request got no answer of the peer's
// API: a machine that cannot be reached, answers too slowly, refused the
// key or answers as no piweb does is unavailable (and looked up again
// next time), the cause in the log only; an error answer of the peer's
// API (its *client.Error) goes back as it is, with its kind and message.
func (s *Server) peerFailed(machine string, err error) error {
	var ce *client.Error
	if errors.As(err, &ce) && ce.Code != "" && ce.Status != http.StatusUnauthorized {
		return err
	}
	s.peerCache.forget(machine) // its address may have changed, or it may be gone
	msg := "machine " + machine + " does not answer (it may be off or out of reach): its sessions are read-only from the fleet database"
	var ne net.Error
	switch {
	case ce != nil && ce.Status == http.StatusUnauthorized && ce.Clock != "":
		msg = fmt.Sprintf("machine %s refused this piweb's request as out of date: the two machines' clocks differ by more than %v (set them by NTP)",
			machine, access.ProofWindow)
	case ce != nil && ce.Status == http.StatusUnauthorized:
		msg = "machine " + machine + " refused this piweb's fleet key: give both machines the same --fleet-key-file"
	case ce != nil:
		msg = fmt.Sprintf("machine %s answered with status %d, not as a piweb does: is its --fleet-advertise address right?", machine, ce.Status)
	case errors.As(err, &ne) && ne.Timeout():
		msg = "machine " + machine + " does not answer in time (it may be overloaded, off or out of reach): its sessions are read-only from the fleet database"
	}
	return errs.E("server.forward", errs.Unavailable, msg, err)
}
