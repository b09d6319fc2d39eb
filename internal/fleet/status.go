package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"piweb/internal/apitype"
)

// The states of a pusher.
const (
	StateConnecting = "connecting"
	StatePushing    = "pushing"
	StateCurrent    = "current" // everything listed is pushed
	StatePaused     = "paused"  // the database refuses this piweb until a person acts
	StateFailing    = "failing" // the database is unreachable or failed; retrying
)

// Status is what a pusher reports: for the page (GET /api/status),
// `piweb fleet status` and the log.
type Status = apitype.FleetStatus

// Counts are the rows pushed since start.
type Counts = apitype.FleetCounts

// counts is Counts as the pusher adds to it (under Pusher.mu).
type counts struct{ c Counts }

func (c *counts) add(b *batch) {
	c.c.Batches++
	c.c.Sessions += len(b.sessions.path)
	c.c.Deleted += len(b.deleted)
	c.c.Entries += b.rows.sent.entries
	c.c.Lines += b.rows.sent.lines
	c.c.Usage += b.rows.sent.usage
}

// Status returns the pusher's state now.
func (p *Pusher) Status() Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.status
	s.Pushed = p.counts.c
	return s
}

func (p *Pusher) setState(state string, err error, behind int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.status.State, p.status.Behind, p.status.Error = state, behind, ""
	if err != nil {
		p.status.Error = Explain(err)
	}
}

func (p *Pusher) pushed(behind int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.status.Behind, p.status.LastPush, p.status.Error = behind, time.Now(), ""
}

// refused is one of the fleet's own refusals, which say in their words
// what a person must do: a writer too old, a name taken, a role that
// may not migrate.
func refused(err error) bool {
	var old *ErrTooOld
	var taken *ErrNameTaken
	var cannot *ErrCannotMigrate
	return errors.As(err, &old) || errors.As(err, &taken) || errors.As(err, &cannot)
}

// stateOf tells a pause (a person must act) from a failure to retry.
func stateOf(err error) string {
	var pg *pgconn.PgError
	var perr *pgconn.ParseConfigError
	switch {
	case refused(err), errors.As(err, &perr):
		return StatePaused
	case errors.As(err, &pg) && (strings.HasPrefix(pg.Code, "28") || pg.Code == "42501" || pg.Code == "3D000"):
		return StatePaused
	}
	return StateFailing
}

// Explain words an error of the fleet for a person: what is wrong and
// what to do.
func Explain(err error) string {
	var pg *pgconn.PgError
	var cerr *pgconn.ConnectError
	var perr *pgconn.ParseConfigError
	switch {
	case err == nil:
		return ""
	case refused(err):
		return err.Error()
	case errors.As(err, &perr):
		return "the fleet URL is not valid (postgres://USER:PASSWORD@HOST:PORT/DATABASE): " + perr.Error()
	case errors.As(err, &pg):
		return explainPg(pg)
	case errors.As(err, &cerr):
		return explainConnect(cerr)
	case errors.Is(err, context.DeadlineExceeded):
		return "the fleet database did not answer in time: " + err.Error()
	case lostConn(err):
		return "the connection to the fleet database was lost (is it down or restarting?): " + err.Error()
	}
	return "fleet: " + err.Error()
}

func explainPg(pg *pgconn.PgError) string {
	switch {
	case pg.Code == "28P01":
		return "the fleet database refused the password: " + pg.Message
	case strings.HasPrefix(pg.Code, "28"):
		return "the fleet database refused this role: " + pg.Message
	case pg.Code == "3D000":
		return "the fleet database does not exist: " + pg.Message + " (create it, see the README's fleet section)"
	case pg.Code == "42501":
		return "the fleet database's role lacks a permission: " + pg.Message + " (grant it, see the README's fleet section)"
	case pg.Code == "57P01", pg.Code == "57P02", pg.Code == "57P03":
		return "the fleet database is shutting down or starting: " + pg.Message
	}
	return fmt.Sprintf("the fleet database refused: %s (SQLSTATE %s)", pg.Message, pg.Code)
}

func explainConnect(cerr *pgconn.ConnectError) string {
	var pg *pgconn.PgError
	if errors.As(cerr.Unwrap(), &pg) {
		return explainPg(pg)
	}
	var nerr net.Error
	var dns *net.DNSError
	var op *net.OpError
	switch {
	case errors.As(cerr, &dns):
		return "the fleet database's host is unknown: " + dns.Error()
	case errors.As(cerr, &op), errors.As(cerr, &nerr):
		return "the fleet database is down or unreachable: " + cerr.Error()
	}
	return "cannot connect to the fleet database: " + cerr.Error()
}

// lostConn reports an error of a connection that broke.
func lostConn(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		strings.Contains(err.Error(), "conn closed")
}

// Redact hides the password of a database URL, for messages.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}
