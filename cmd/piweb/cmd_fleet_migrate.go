package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"piweb/internal/fleet"
)

// fleetMigrate is `piweb fleet migrate --fleet URL`: the fleet's owner
// (a role of fleet.OwnerRole) creates or upgrades the schema, which the
// machines' roles (fleet.MachineRole) may not change.
func fleetMigrate(ctx context.Context, e *env, args []string) error {
	var url string
	fs := newFlags("fleet migrate", e)
	fs.StringVar(&url, "fleet", "", "the fleet's PostgreSQL `URL`, as a role of "+fleet.OwnerRole)
	if _, err := parseArgs(fs, args, 0, 0, usages["fleet"]); err != nil {
		return err
	}
	if url == "" {
		url = e.getenv("PIWEB_FLEET")
	}
	if url == "" {
		return errors.New("--fleet URL is needed (or PIWEB_FLEET)")
	}
	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	conn, err := pgx.Connect(cctx, url)
	if err != nil {
		return errors.New(fleet.Explain(err))
	}
	defer conn.Close(ctx)
	if err := fleet.Migrate(cctx, conn, piwebVersion()); err != nil {
		return errors.New(fleet.Explain(err))
	}
	fmt.Fprintf(e.stdout, "fleet database %s: schema at version %d\n", fleet.Redact(url), fleet.SchemaVersion)
	return nil
}
