package main

import (
	"net"
	"sync"
)

// handoff accepts connections on one listener for a sequence of servers:
// each server gets a view (Next) whose Close ends that view only, so that
// leaving the demo serves the user's own sessions on the same address
// without a moment in which connections are refused. A connection that
// arrives between two servers waits for the next one.
type handoff struct {
	ln    net.Listener
	conns chan net.Conn
	quit  chan struct{}
	once  sync.Once
	err   error // the listener's error, set before conns is closed
}

func newHandoff(ln net.Listener) *handoff {
	h := &handoff{ln: ln, conns: make(chan net.Conn), quit: make(chan struct{})}
	go h.accept()
	return h
}

func (h *handoff) accept() {
	defer close(h.conns)
	for {
		c, err := h.ln.Accept()
		if err != nil {
			h.err = err
			return
		}
		select {
		case h.conns <- c:
		case <-h.quit:
			c.Close()
			return
		}
	}
}

// Addr is the listener's address.
func (h *handoff) Addr() net.Addr { return h.ln.Addr() }

// Close closes the listener for good.
func (h *handoff) Close() error {
	h.once.Do(func() { close(h.quit) })
	return h.ln.Close()
}

// Next is a listener for the next server.
func (h *handoff) Next() net.Listener { return &view{h: h, closed: make(chan struct{})} }

// view is one server's share of a handoff.
type view struct {
	h      *handoff
	closed chan struct{}
	once   sync.Once
}

func (v *view) Accept() (net.Conn, error) {
	select {
	case <-v.closed: // a waiting connection goes to the next server
		return nil, net.ErrClosed
	default:
	}
	select {
	case c, ok := <-v.h.conns:
		if !ok {
			return nil, v.h.err
		}
		return c, nil
	case <-v.closed:
		return nil, net.ErrClosed
	}
}

func (v *view) Close() error {
	v.once.Do(func() { close(v.closed) })
	return nil
}

func (v *view) Addr() net.Addr { return v.h.Addr() }
