package fleet

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"piweb/internal/catalog"
)

// Report is `piweb fleet status`: what the database has of this machine,
// what is behind and why.
type Report struct {
	URL       string `json:"url"` // password hidden
	Machine   string `json:"machine"`
	Schema    int    `json:"schema"`
	MinWriter int    `json:"minWriter"`
	Paused    string `json:"paused,omitempty"` // why this piweb may not push
	Claimed   bool   `json:"claimed"`          // the machine has pushed before
	Role      string `json:"role,omitempty"`
	// Self is this machine's row, as Machines lists it (zero when it is
	// not in the fleet yet).
	Self           MachineInfo `json:"self,omitzero"`
	Local          int         `json:"local"`   // sessions listed here
	Pushed         int         `json:"pushed"`  // of them, current in the database
	Deleted        int         `json:"deleted"` // marked deleted in the database
	Entries, Lines int         `json:"-"`
	New            int         `json:"new"`   // listed here, not in the database
	Grown          int         `json:"grown"` // in the database, changed here since
	Gone           int         `json:"gone"`  // deleted here, not yet marked
	Why            string      `json:"why,omitempty"`
	RoleWarning    string      `json:"roleWarning,omitempty"` // this connection's role may lift row-level security
	// Machines are the fleet's machines: the versions each runs, online
	// or not.
	Machines []MachineInfo `json:"machines"`
}

// Behind is the number of sessions the database lacks or has stale.
func (r Report) Behind() int { return r.New + r.Grown + r.Gone }

// Check builds the report for machine from its local listing.
func Check(ctx context.Context, url, machine string, local []catalog.Meta, now time.Time) (Report, error) {
	r := Report{URL: Redact(url), Machine: machine, Local: len(local)}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return r, err
	}
	defer conn.Close(ctx)
	s, err := readSchema(ctx, conn)
	if err != nil {
		return r, err
	}
	r.Schema, r.MinWriter = s.version, s.minWriter
	if s.minWriter > Writer {
		r.Paused = (&ErrTooOld{UpgradeTo: s.upgradeTo}).Error()
	}
	if s.version == 0 {
		r.New = len(local)
		r.Why = "the fleet database has no schema yet: run piweb fleet migrate --fleet URL with a role of " + OwnerRole + " (or piweb serve --fleet with one)"
		return r, nil
	}
	if err := r.readMachine(ctx, conn); err != nil {
		return r, err
	}
	if r.Machines, err = machines(ctx, conn, now); err != nil {
		return r, err
	}
	r.Self = r.self()
	if err := r.checkRole(ctx, conn); err != nil {
		return r, err
	}
	if err := r.compare(ctx, conn, local); err != nil {
		return r, err
	}
	r.Why = r.why(now)
	return r, nil
}

// readMachine reads who claimed this machine's name, if anyone.
func (r *Report) readMachine(ctx context.Context, conn *pgx.Conn) error {
	var mine bool
	err := conn.QueryRow(ctx, `SELECT role, role = current_user FROM fleet.machines WHERE name = $1`, r.Machine).
		Scan(&r.Role, &mine)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	r.Claimed = true
	if !mine && r.Paused == "" {
		r.Paused = (&ErrNameTaken{Name: r.Machine, Role: r.Role}).Error()
	}
	return nil
}

// self is this machine's row among Machines (zero when none).
func (r *Report) self() MachineInfo {
	for _, m := range r.Machines {
		if m.Name == r.Machine {
			return m
		}
	}
	return MachineInfo{}
}

// checkRole warns when this connection's role may lift the row-level
// security that keeps each machine to its own rows: a superuser, a role
// that bypasses it, or one of the tables' owner (fleets set up before
// MachineRole had each machine push as an owner).
func (r *Report) checkRole(ctx context.Context, conn *pgx.Conn) error {
	var role string
	var lifts bool
	err := conn.QueryRow(ctx, `SELECT current_user, r.rolsuper OR r.rolbypassrls OR pg_has_role(current_user, t.tableowner, 'MEMBER')
		FROM pg_roles r, pg_tables t WHERE r.rolname = current_user AND t.schemaname = 'fleet' AND t.tablename = 'sessions'`).
		Scan(&role, &lifts)
	if err != nil || !lifts {
		return err
	}
	r.RoleWarning = fmt.Sprintf("role %s may lift row-level security (a superuser, or an owner of the fleet's tables) and so write "+
		"other machines' rows: push from each machine with a role of its own in %s (see the README), keeping %s's roles "+
		"for piweb fleet migrate", role, MachineRole, OwnerRole)
	return nil
}

// compare counts the local sessions the database has current.
func (r *Report) compare(ctx context.Context, conn *pgx.Conn, local []catalog.Meta) error {
	rows, err := conn.Query(ctx, `SELECT path, size, deleted FROM fleet.sessions WHERE machine = $1`, r.Machine)
	if err != nil {
		return err
	}
	type row struct {
		size    int64
		deleted bool
	}
	have := map[string]row{}
	for rows.Next() {
		var p string
		var x row
		if err := rows.Scan(&p, &x.size, &x.deleted); err != nil {
			return err
		}
		have[p] = x
	}
	if err := rows.Err(); err != nil {
		return err
	}
	listed := make(map[string]bool, len(local))
	for _, m := range local {
		listed[m.Path] = true
		x, ok := have[m.Path]
		switch {
		case !ok:
			r.New++
		case x.deleted || x.size != m.Size:
			r.Grown++
		default:
			r.Pushed++
		}
	}
	for p, x := range have {
		switch {
		case x.deleted:
			r.Deleted++
		case !listed[p]:
			r.Gone++
		}
	}
	return conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM fleet.entries WHERE machine = $1),
		(SELECT count(*) FROM fleet.lines WHERE machine = $1)`, r.Machine).Scan(&r.Entries, &r.Lines)
}

// heartbeatLate is how long without a heartbeat means no piweb pushes.
const heartbeatLate = 2 * time.Minute

// why says why the database is behind, when it is.
func (r Report) why(now time.Time) string {
	switch {
	case r.Paused != "":
		return r.Paused
	case r.Behind() == 0:
		return ""
	case !r.Claimed:
		return "this machine has not pushed yet: start piweb serve --fleet on it"
	case now.Sub(r.Self.LastHeartbeat) > heartbeatLate:
		return fmt.Sprintf("no piweb serve --fleet is pushing from this machine (last heartbeat %s ago)", now.Sub(r.Self.LastHeartbeat).Round(time.Second))
	}
	return "piweb serve --fleet is pushing from this machine and catching up"
}

// Text is the report as `piweb fleet status` prints it.
func (r Report) Text(now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "fleet database: %s (schema %d, accepts piweb fleet writers %d and newer)\n", r.URL, r.Schema, r.MinWriter)
	if r.Claimed {
		fmt.Fprintf(&b, "machine %s: role %s, %s, pi %s, shares %s\n", r.Machine, r.Role, r.Self.PiwebVersion, orNone(r.Self.PiVersion), r.Self.Share)
		fmt.Fprintf(&b, "last push: %s; last heartbeat: %s\n", ago(r.Self.LastPush, now), ago(r.Self.LastHeartbeat, now))
	} else {
		fmt.Fprintf(&b, "machine %s: not in the fleet yet\n", r.Machine)
	}
	if r.RoleWarning != "" {
		fmt.Fprintf(&b, "warning: %s\n", r.RoleWarning)
	}
	fmt.Fprintf(&b, "pushed: %d of %d local sessions current (%d entries, %d lines); %d marked deleted\n",
		r.Pushed, r.Local, r.Entries, r.Lines, r.Deleted)
	r.machinesText(&b, now)
	if r.Behind() == 0 && r.Paused == "" {
		b.WriteString("behind: nothing\n")
		return b.String()
	}
	fmt.Fprintf(&b, "behind: %d sessions (%d new, %d changed, %d deleted here)\n", r.Behind(), r.New, r.Grown, r.Gone)
	if r.Why != "" {
		fmt.Fprintf(&b, "why: %s\n", r.Why)
	}
	return b.String()
}

// machinesText lists the fleet's machines: the piweb and pi each runs,
// whether it is online, its sessions.
func (r Report) machinesText(b *strings.Builder, now time.Time) {
	if len(r.Machines) > 0 {
		b.WriteString("machines:\n")
	}
	for _, m := range r.Machines {
		state := "offline, last heartbeat " + ago(m.LastHeartbeat, now)
		if m.Online {
			state = "online"
		}
		fmt.Fprintf(b, "  %s: piweb %s, pi %s, %s, %d sessions\n", m.Name, orNone(m.PiwebVersion), orNone(m.PiVersion), state, m.Sessions)
	}
}

func ago(t, now time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return fmt.Sprintf("%s (%s ago)", t.UTC().Format(time.RFC3339), now.Sub(t).Round(time.Second))
}

func orNone(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
