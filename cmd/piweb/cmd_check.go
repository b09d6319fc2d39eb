package main

import (
	"context"
	"fmt"
	"os"

	"piweb/internal/sessionstore"
	"piweb/pisession"
)

// runMigrate upgrades old files the way pi does when it opens them, but only
// on request and with a backup of each original.
func runMigrate(ctx context.Context, e *env, args []string) error {
	files, err := parseArgs(newFlags("migrate", e), args, 1, -1, usages["migrate"])
	if err != nil {
		return err
	}
	for _, f := range files {
		s, err := openForWriting(f)
		if err != nil {
			return err
		}
		if !s.Migrated {
			fmt.Fprintf(e.stdout, "%s: already version %d\n", f, s.Version)
			continue
		}
		backup, err := sessionstore.Migrate(f, s)
		if err != nil {
			return fmt.Errorf("migrate %s: %w", f, err)
		}
		fmt.Fprintf(e.stdout, "%s: migrated to version %d; original kept as %s\n", f, pisession.CurrentVersion, backup)
	}
	return nil
}

// runCheck reports every defect of each file with its line number and exits
// 1 when any file has one. With --repair it writes a repaired file in place
// of each damaged one, atomically, keeping the original as a backup, and
// exits 1 only when a file still has a defect after its repair.
func runCheck(ctx context.Context, e *env, args []string) error {
	fs := newFlags("check", e)
	repair := fs.Bool("repair", false, "write a repaired file, keeping the original as a backup")
	wd, _ := os.Getwd()
	cwd := fs.String("cwd", wd, "cwd for a header that must be made anew")
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		files = pisession.SessionFiles(pisession.AgentDir(e.getenv))
	}
	bad := false
	for _, f := range files {
		damaged, err := checkFile(e, f, *repair, *cwd)
		if err != nil {
			return err
		}
		bad = bad || damaged
	}
	if bad {
		return exitError(1)
	}
	return nil
}

func checkFile(e *env, path string, repair bool, cwd string) (bool, error) {
	s, err := pisession.Check(path)
	if err != nil {
		return false, err
	}
	for _, p := range s.Problems {
		fmt.Fprintf(e.stdout, "%s:%d: %s: %s\n", path, p.Line, p.Kind, p.Message)
	}
	if !repair {
		return len(s.Defects()) > 0, nil
	}
	changes, backup, err := sessionstore.RepairFile(path, s, cwd)
	if err != nil {
		return true, fmt.Errorf("repair %s: %w", path, err)
	} else if backup == "" {
		return false, nil // nothing to repair
	}
	for _, c := range changes {
		fmt.Fprintf(e.stdout, "%s: repaired: %s\n", path, c)
	}
	fmt.Fprintf(e.stdout, "%s: original kept as %s\n", path, backup)
	after, err := pisession.ReadFile(path)
	if err != nil {
		return true, err
	}
	return len(after.Defects()) > 0, nil
}
