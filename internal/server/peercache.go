package server

import (
	"context"
	"sync"
	"time"

	"piweb/internal/fleet"
)

// peerFresh is how long a machine's address and liveness, read from the
// fleet database, answer for it: a page driving another machine sends it
// a request per command, subscription and panel, and each would
// otherwise cost a query of the database.
const peerFresh = 5 * time.Second

// peerCache keeps what Peers said of each machine that can be driven
// (online, with an address) for peerFresh; any other is read again each
// time, and so is one that did not answer a request (forget).
type peerCache struct {
	mu   sync.Mutex
	read map[string]cachedPeer
}

type cachedPeer struct {
	peer fleet.Peer
	at   time.Time
}

// peer is machine's entry, read through src when it is missing or old.
func (c *peerCache) peer(ctx context.Context, src Peers, machine string, now time.Time) (fleet.Peer, error) {
	c.mu.Lock()
	e, found := c.read[machine]
	c.mu.Unlock()
	if found && now.Sub(e.at) < peerFresh && now.Sub(e.at) >= 0 {
		return e.peer, nil
	}
	p, err := src.Peer(ctx, machine, now)
	if err != nil || !p.Online || p.Advertise == "" {
		return p, err
	}
	c.mu.Lock()
	if c.read == nil {
		c.read = map[string]cachedPeer{}
	}
	c.read[machine] = cachedPeer{p, now}
	c.mu.Unlock()
	return p, nil
}

// forget drops machine's entry.
func (c *peerCache) forget(machine string) {
	c.mu.Lock()
	delete(c.read, machine)
	c.mu.Unlock()
}
