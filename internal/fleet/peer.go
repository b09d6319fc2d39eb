package fleet

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
)

// Peer is what another machine's piweb needs to drive this one's
// sessions: where it listens (--fleet-advertise) and whether it is
// online (a heartbeat within heartbeatLate).
type Peer struct {
	Name, Advertise string
	LastHeartbeat   time.Time
	Online          bool
}

// ErrNoMachine is Peer's answer for a machine the fleet does not know.
var ErrNoMachine = errors.New("fleet: no such machine")

// Peer reads one machine's address and liveness, online as of now: one
// row by its primary key, cheap enough for every proxied request.
func (r *Reader) Peer(ctx context.Context, name string, now time.Time) (Peer, error) {
	p := Peer{Name: name}
	err := r.pool.QueryRow(ctx, `SELECT advertise_url, last_heartbeat FROM fleet.machines WHERE name = $1`, name).
		Scan(&p.Advertise, &p.LastHeartbeat)
	if errors.Is(err, pgx.ErrNoRows) {
		return p, ErrNoMachine
	}
	p.Online = err == nil && now.Sub(p.LastHeartbeat) <= heartbeatLate
	return p, err
}
