package fleet

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// SchemaVersion is the newest fleet schema this piweb knows; Writer is
// the version of the rows it writes. A database whose min_writer is
// above Writer was migrated by a newer piweb that no longer accepts this
// one's rows: pushing pauses (ErrTooOld) while the local page goes on.
const (
	SchemaVersion = 3
	Writer        = 1
)

// minPushSchema is the oldest schema this piweb pushes to when it may not
// migrate it: at 2 it sends no tsvectors (the column is generated there).
const minPushSchema = 2

// OwnerRole owns the fleet's tables when it exists and the migrating role
// is a member of it (the README's set-up); without it the migrating role
// owns them. An owner may lift row-level security (ALTER TABLE, DROP
// POLICY, TRUNCATE), so no machine that must not write another's rows
// may be a member: those are members of MachineRole.
const OwnerRole = "piweb_fleet"

// MachineRole is the group of the machines' roles (the README's set-up):
// each migration grants it reading the fleet and writing rows, which
// row-level security limits to the machines a role claimed. Its members
// cannot migrate (ErrCannotMigrate): a member of OwnerRole does.
const MachineRole = "piweb_machine"

// lockKey is the advisory lock migrations hold: "piweb fleet" in ASCII,
// so it cannot collide with another application's small integers.
const lockKey int64 = 0x7069776562666c74

// migration is one additive step of the schema, from version-1 to version.
type migration struct {
	version   int
	minWriter int // the oldest writer the schema still accepts after it
	sql       string
}

// migrations are applied in order; a step is never edited once released,
// only new ones appended (additive: new tables, columns, indexes).
var migrations = []migration{{version: 1, minWriter: 1, sql: schemaV1}, {version: 2, minWriter: 1, sql: schemaV2},
	{version: 3, minWriter: 1, sql: schemaV3}}

// schemaV3: a writer may send an entry's tsvector, made as the server
// would make it (lexemes.go; half of a first push's server CPU was the
// server making it), so the column is no longer generated; a row that
// comes without one (a writer of schema 2, or a text only the server
// tokenizes) gets it from the trigger, as the generated column made it,
// and so does a row whose text changes.
const schemaV3 = `ALTER TABLE fleet.entries ALTER COLUMN tsv DROP EXPRESSION;
CREATE FUNCTION fleet.entries_tsv() RETURNS trigger LANGUAGE plpgsql AS
	$$ BEGIN NEW.tsv := to_tsvector('simple', coalesce(NEW.text, '')); RETURN NEW; END $$;
CREATE TRIGGER entries_tsv BEFORE INSERT ON fleet.entries FOR EACH ROW WHEN (NEW.tsv IS NULL)
	EXECUTE FUNCTION fleet.entries_tsv();
CREATE TRIGGER entries_text BEFORE UPDATE OF text ON fleet.entries FOR EACH ROW
	EXECUTE FUNCTION fleet.entries_tsv();`

// schemaV2: the fleet's search takes the newest matching entries; for a
// common word, walking the entries newest first finds them without
// reading every match (1M entries: "the" took 1.5 s to 5 s, BenchmarkFleetRead).
const schemaV2 = `CREATE INDEX entries_ts ON fleet.entries (ts DESC NULLS LAST);`

// schemaV1 is the first schema. Listing fields follow catalog.Meta;
// timestamps are JavaScript time values in ms as pi computes them (NaN
// for an invalid date); text columns hold valid UTF-8 without NUL (text
// cannot hold them); raw lines are bytea, byte for byte.
var schemaV1 = `
CREATE SCHEMA IF NOT EXISTS fleet;
CREATE TABLE fleet.meta (
	one boolean PRIMARY KEY DEFAULT true CHECK (one),
	schema_version integer NOT NULL,
	min_writer integer NOT NULL,
	upgrade_to text NOT NULL
);
CREATE TABLE fleet.machines (
	name text PRIMARY KEY,
	role name NOT NULL DEFAULT current_user,
	piweb_version text NOT NULL DEFAULT '',
	pi_version text NOT NULL DEFAULT '',
	advertise_url text NOT NULL DEFAULT '',
	share text NOT NULL DEFAULT 'full',
	first_seen timestamptz NOT NULL DEFAULT now(),
	last_heartbeat timestamptz NOT NULL DEFAULT now(),
	last_push timestamptz
);
CREATE TABLE fleet.sessions (
	machine text NOT NULL REFERENCES fleet.machines (name),
	path text NOT NULL,
	key text NOT NULL,
	session_id text NOT NULL,
	cwd text NOT NULL,
	name text NOT NULL,
	has_name boolean NOT NULL,
	created double precision NOT NULL,
	modified double precision NOT NULL,
	message_count integer NOT NULL,
	first_message text NOT NULL,
	parent_path text NOT NULL,
	size bigint NOT NULL,
	deleted boolean NOT NULL DEFAULT false,
	head_hash bytea NOT NULL,
	tail_hash bytea NOT NULL,
	pushed_offset bigint NOT NULL,
	pushed_lines integer NOT NULL,
	leaf_id text NOT NULL,
	share text NOT NULL,
	updated_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (machine, path)
);
CREATE INDEX sessions_modified ON fleet.sessions (modified DESC) WHERE NOT deleted;
CREATE TABLE fleet.entries (
	machine text NOT NULL,
	path text NOT NULL,
	line integer NOT NULL,
	entry_id text NOT NULL,
	parent_id text,
	type text NOT NULL,
	role text NOT NULL,
	ts bigint,
	on_branch boolean NOT NULL,
	text text,
	tools text,
	tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', coalesce(text, ''))) STORED,
	PRIMARY KEY (machine, path, line)
);
CREATE INDEX entries_id ON fleet.entries (machine, path, entry_id);
CREATE INDEX entries_tsv ON fleet.entries USING gin (tsv);
CREATE TABLE fleet.usage (
	machine text NOT NULL,
	path text NOT NULL,
	line integer NOT NULL,
	session_id text NOT NULL,
	entry_id text NOT NULL,
	ts bigint,
	model text NOT NULL,
	answer boolean NOT NULL,
	input double precision NOT NULL,
	output double precision NOT NULL,
	cache_read double precision NOT NULL,
	cache_write double precision NOT NULL,
	cost double precision NOT NULL,
	PRIMARY KEY (machine, path, line)
);
CREATE TABLE fleet.lines (
	machine text NOT NULL,
	path text NOT NULL,
	line integer NOT NULL,
	off bigint NOT NULL,
	raw bytea NOT NULL,
	PRIMARY KEY (machine, path, line)
);
` + stageV1 + rlsV1

// stageV1: COPY FROM refuses tables with row-level security, so a push
// copies its rows into these unlogged staging tables and moves them with
// INSERT ... SELECT, which the policies check. Rows are tagged with the
// pushing transaction and moved before it commits, so other transactions
// never see them. Unlogged: a crash empties them, which is right.
// Unused since pushes insert from array parameters (insertRows: each
// batch's DELETE from them scanned every earlier batch's dead rows, so a
// first push of 25,000 sessions slowed as it went); kept, as migrations
// only add.
const stageV1 = `
CREATE UNLOGGED TABLE fleet.stage_entries (
	tx bigint NOT NULL DEFAULT txid_current(),
	machine text NOT NULL, path text NOT NULL, line integer NOT NULL,
	entry_id text NOT NULL, parent_id text, type text NOT NULL, role text NOT NULL,
	ts bigint, on_branch boolean NOT NULL, text text, tools text
);
CREATE UNLOGGED TABLE fleet.stage_usage (
	tx bigint NOT NULL DEFAULT txid_current(),
	machine text NOT NULL, path text NOT NULL, line integer NOT NULL,
	session_id text NOT NULL, entry_id text NOT NULL, ts bigint, model text NOT NULL,
	answer boolean NOT NULL, input double precision NOT NULL, output double precision NOT NULL,
	cache_read double precision NOT NULL, cache_write double precision NOT NULL, cost double precision NOT NULL
);
CREATE UNLOGGED TABLE fleet.stage_lines (
	tx bigint NOT NULL DEFAULT txid_current(),
	machine text NOT NULL, path text NOT NULL, line integer NOT NULL, off bigint NOT NULL, raw bytea NOT NULL
);
`

// rlsV1: every role reads the whole fleet; a role writes only the rows of
// the machines it claimed (machines.role), and claims only in its own
// name. FORCE applies the policies to the tables' owner too, whose
// members every machine role may be.
var rlsV1 = `
ALTER TABLE fleet.machines ENABLE ROW LEVEL SECURITY;
ALTER TABLE fleet.machines FORCE ROW LEVEL SECURITY;
CREATE POLICY read ON fleet.machines FOR SELECT USING (true);
CREATE POLICY claim ON fleet.machines FOR INSERT WITH CHECK (role = current_user);
CREATE POLICY own ON fleet.machines FOR UPDATE USING (role = current_user) WITH CHECK (role = current_user);
CREATE POLICY drop_own ON fleet.machines FOR DELETE USING (role = current_user);
CREATE FUNCTION fleet.my_machines() RETURNS SETOF text LANGUAGE sql STABLE AS
	$$ SELECT name FROM fleet.machines WHERE role = current_user $$;
` + dataPolicies("sessions") + dataPolicies("entries") + dataPolicies("usage") + dataPolicies("lines")

func dataPolicies(table string) string {
	t := "fleet." + table
	return `ALTER TABLE ` + t + ` ENABLE ROW LEVEL SECURITY;
ALTER TABLE ` + t + ` FORCE ROW LEVEL SECURITY;
CREATE POLICY read ON ` + t + ` FOR SELECT USING (true);
CREATE POLICY write ON ` + t + ` FOR INSERT WITH CHECK (machine IN (SELECT fleet.my_machines()));
CREATE POLICY change ON ` + t + ` FOR UPDATE USING (machine IN (SELECT fleet.my_machines()))
	WITH CHECK (machine IN (SELECT fleet.my_machines()));
CREATE POLICY remove ON ` + t + ` FOR DELETE USING (machine IN (SELECT fleet.my_machines()));
`
}

// grantsTo lets role's members use what the migrations created: read
// everything, write rows (as the policies allow), nothing of the schema.
func grantsTo(role string) string {
	return `GRANT USAGE ON SCHEMA fleet TO ` + role + `;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA fleet TO ` + role + `;`
}

// ErrCannotMigrate says the database's schema is older than this piweb's
// and this connection's role may not change it (a member of MachineRole,
// not of OwnerRole): pushing pauses until the owner migrates.
type ErrCannotMigrate struct{ Have, Want int }

func (e *ErrCannotMigrate) Error() string {
	have := fmt.Sprintf("is at version %d", e.Have)
	if e.Have == 0 {
		have = "has no schema yet"
	}
	return fmt.Sprintf("fleet paused: the fleet database %s, this piweb needs version %d, and this machine's role may not change the schema "+
		"(run piweb fleet migrate --fleet URL once with a role of %s, see the README)", have, e.Want, OwnerRole)
}

// ErrTooOld says the database needs a newer piweb to accept this one's
// rows.
type ErrTooOld struct{ UpgradeTo string }

func (e *ErrTooOld) Error() string {
	return "fleet paused: this piweb is older than the fleet database (upgrade to " + e.UpgradeTo + ")"
}

// schemaState is what the database says of its schema.
type schemaState struct {
	version, minWriter int
	upgradeTo          string
}

// readSchema reads fleet.meta; version 0 when there is no schema yet.
// It runs no DDL, so a steady-state start costs one query. Whether the
// table exists is read from pg_class as of the statement, not by
// to_regclass, whose answer comes from the session's catalog cache: a
// piweb that found no schema, then waited for the lock while another
// made it, was still told there was none.
func readSchema(ctx context.Context, q querier) (schemaState, error) {
	var s schemaState
	var exists bool
	if err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class c
		JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'fleet' AND c.relname = 'meta')`).Scan(&exists); err != nil || !exists {
		return s, err
	}
	err := q.QueryRow(ctx, `SELECT schema_version, min_writer, upgrade_to FROM fleet.meta`).Scan(&s.version, &s.minWriter, &s.upgradeTo)
	if errors.Is(err, pgx.ErrNoRows) {
		return schemaState{}, nil
	}
	return s, err
}

// querier is what readSchema needs of a connection or transaction.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Migrate brings the database's schema to SchemaVersion when it is older,
// under an advisory lock so that piwebs starting together migrate once,
// and reports ErrTooOld when the database no longer accepts this piweb's
// rows. version names this piweb for the message older piwebs show.
func Migrate(ctx context.Context, conn *pgx.Conn, version string) error {
	s, err := readSchema(ctx, conn)
	if err != nil {
		return fmt.Errorf("read the fleet schema: %w", err)
	}
	if s.version < SchemaVersion {
		if s, err = migrate(ctx, conn, version); err != nil {
			return err
		}
	}
	if s.minWriter > Writer {
		return &ErrTooOld{UpgradeTo: s.upgradeTo}
	}
	return nil
}

// migrate runs the missing steps in one transaction under the lock,
// reading the version again once it holds the lock.
func migrate(ctx context.Context, conn *pgx.Conn, version string) (schemaState, error) {
	var s schemaState
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, lockKey); err != nil {
			return err
		}
		var err error
		if s, err = readSchema(ctx, tx); err != nil || s.version >= SchemaVersion {
			return err
		}
		owner, err := asOwner(ctx, tx)
		if err != nil {
			return err
		}
		raised := false
		for _, m := range migrations[s.version:] {
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return fmt.Errorf("fleet schema %d: %w", m.version, err)
			}
			raised = raised || m.minWriter > s.minWriter
			s.version, s.minWriter = m.version, max(s.minWriter, m.minWriter)
		}
		if err := grant(ctx, tx, owner); err != nil {
			return err
		}
		if raised || s.upgradeTo == "" {
			s.upgradeTo = version // what a writer older than min_writer must upgrade to
		}
		_, err = tx.Exec(ctx, `INSERT INTO fleet.meta (schema_version, min_writer, upgrade_to) VALUES ($1, $2, $3)
			ON CONFLICT (one) DO UPDATE SET schema_version = $1, min_writer = $2, upgrade_to = $3`, s.version, s.minWriter, s.upgradeTo)
		return err
	})
	var pg *pgconn.PgError
	if errors.As(err, &pg) && pg.Code == "42501" { // insufficient_privilege
		return s, &ErrCannotMigrate{Have: s.version, Want: SchemaVersion}
	}
	if err != nil {
		return s, fmt.Errorf("migrate the fleet schema: %w", err)
	}
	return s, nil
}

// grant gives the owner role's members (when the owner created the
// tables) and the machines' group (when it exists) their rights.
func grant(ctx context.Context, tx pgx.Tx, owner bool) error {
	var machines bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)`, MachineRole).Scan(&machines); err != nil {
		return err
	}
	for _, g := range []struct {
		role string
		do   bool
	}{{OwnerRole, owner}, {MachineRole, machines}} {
		if !g.do {
			continue
		}
		if _, err := tx.Exec(ctx, grantsTo(g.role)); err != nil {
			return err
		}
	}
	return nil
}

// asOwner makes the transaction create objects as OwnerRole when this role
// is a member of it.
func asOwner(ctx context.Context, tx pgx.Tx) (bool, error) {
	var member bool
	err := tx.QueryRow(ctx, `SELECT CASE WHEN EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)
		THEN pg_has_role(current_user, $1, 'MEMBER') ELSE false END`, OwnerRole).Scan(&member)
	if err != nil || !member {
		return false, err
	}
	_, err = tx.Exec(ctx, `SET LOCAL ROLE `+OwnerRole)
	return true, err
}
