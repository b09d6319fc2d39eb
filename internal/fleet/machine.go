package fleet

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Machine is one machine's row in fleet.machines.
type Machine struct {
	Name, PiwebVersion, PiVersion, Advertise, Share string
}

// ErrNameTaken says another role already pushes under this machine name.
type ErrNameTaken struct{ Name, Role string }

func (e *ErrNameTaken) Error() string {
	return fmt.Sprintf("fleet paused: machine name %q belongs to database role %q (give this machine another --machine name, or connect as that role)", e.Name, e.Role)
}

// claim registers m under this connection's role, or refreshes its row;
// a name another role claimed first is refused (ErrNameTaken).
func claim(ctx context.Context, conn *pgx.Conn, m Machine) error {
	if err := checkOwner(ctx, conn, m.Name); err != nil {
		return err
	}
	_, err := conn.Exec(ctx, `INSERT INTO fleet.machines (name, piweb_version, pi_version, advertise_url, share)
		VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (name) DO UPDATE SET piweb_version = $2, pi_version = $3, advertise_url = $4, share = $5,
		last_heartbeat = now()`, m.Name, m.PiwebVersion, m.PiVersion, m.Advertise, m.Share)
	if err != nil {
		// Claimed by another role meanwhile: row-level security refused.
		if cerr := checkOwner(ctx, conn, m.Name); cerr != nil {
			return cerr
		}
	}
	return err
}

// checkOwner refuses a name claimed by another role.
func checkOwner(ctx context.Context, conn *pgx.Conn, name string) error {
	var role string
	var mine bool
	err := conn.QueryRow(ctx, `SELECT role, role = current_user FROM fleet.machines WHERE name = $1`, name).Scan(&role, &mine)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil
	case err != nil:
		return err
	case !mine:
		return &ErrNameTaken{Name: name, Role: role}
	}
	return nil
}
