package demo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"piweb/internal/sessionstore"
	"piweb/pisession"
)

// KeepUserSessions moves the sessions started during the demo in a real
// folder (a cwd outside the demo's sample projects) into the agent dir
// dst, where pi would have written them, so that closing the demo never
// deletes a user's work. It returns the new paths; a file that cannot be
// moved stays in the demo folder, and Close then keeps that folder.
func (d *Demo) KeepUserSessions(dst string) ([]string, error) {
	var kept []string
	var errs []error
	for _, src := range pisession.SessionFiles(d.AgentDir) {
		cwd := cwdOf(src)
		if cwd == "" || d.inDemo(cwd) {
			continue
		}
		target := filepath.Join(dst, "sessions", pisession.EncodeCwd(cwd), filepath.Base(src))
		err := os.MkdirAll(filepath.Dir(target), 0o700)
		if err == nil {
			err = sessionstore.MoveFile(src, target)
		}
		if err != nil {
			d.keep = true
			errs = append(errs, fmt.Errorf("keep %s: %w", src, err))
			continue
		}
		kept = append(kept, target)
	}
	return kept, errors.Join(errs...)
}

// UserSessions counts the sessions started during the demo in a real folder.
func (d *Demo) UserSessions() int {
	n := 0
	for _, f := range pisession.SessionFiles(d.AgentDir) {
		if cwd := cwdOf(f); cwd != "" && !d.inDemo(cwd) {
			n++
		}
	}
	return n
}

// inDemo reports whether cwd is one of the demo's own folders.
func (d *Demo) inDemo(cwd string) bool {
	rel, err := filepath.Rel(d.Root, cwd)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// cwdOf reads the cwd of a session file's header, "" when it has none.
func cwdOf(path string) string {
	s, err := pisession.ReadFile(path)
	if err != nil || s.Header == nil {
		return ""
	}
	cwd, _ := s.Header.String("cwd")
	return cwd
}
