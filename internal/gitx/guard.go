package gitx

import (
	"bytes"
	"context"
	"slices"
	"strings"

	"piweb/internal/errs"
)

// piweb runs git on a folder the user only looks at, and a repository's
// own .git/config (or a file it includes) can name commands git runs
// while it merely reads: core.fsmonitor on every status, a filter's
// clean command on any file whose stat data changed, hooks, external
// diff and textconv drivers. Those never come from the repository: every
// git command runs with fsmonitor off and hooks nowhere (always below),
// diffs with --no-ext-diff and --no-textconv, and the filters the
// repository's config defines are emptied (an empty command is no
// filter). The user's own global and system configuration stays.
var alwaysOff = []string{"-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "core.pager=cat"}

// guard is what one look at a repository needs besides alwaysOff: the
// -c arguments emptying the repository's filters, and the
// command-running keys its config sets, which were ignored.
type guard struct {
	args    []string
	ignored []string
	unsafe  bool // a filter's name has "=", which -c cannot name
}

// ErrUnsafeConfig refuses a repository whose own config defines a filter
// that git's -c cannot switch off (its name holds "=").
var ErrUnsafeConfig = errs.New(errs.Forbidden, "the repository's config defines a filter piweb cannot switch off",
	"this repository's own git config defines a filter (a command) that piweb cannot switch off, so it does not run git there")

// guardFor reads the configuration git would use in dir with its scopes
// (reading runs nothing) and returns the guard for the repository's own
// keys (scope local or worktree).
func (g *Git) guardFor(ctx context.Context, dir string) (guard, error) {
	out, _, err := g.run(ctx, dir, 0, []string{"config", "--list", "-z", "--show-scope"})
	if err != nil {
		return guard{}, err
	}
	gd := parseGuard(out)
	if gd.unsafe {
		return guard{}, ErrUnsafeConfig
	}
	return gd, nil
}

// parseGuard reads `git config --list -z --show-scope`: scope NUL key
// (newline value) NUL, per entry.
func parseGuard(out []byte) guard {
	var gd guard
	seen := map[string]bool{}
	parts := bytes.Split(out, []byte{0})
	for i := 0; i+1 < len(parts); i += 2 {
		scope := string(parts[i])
		key, value, _ := strings.Cut(string(parts[i+1]), "\n")
		if scope != "local" && scope != "worktree" || !runsCommand(key, value) || seen[key] {
			continue
		}
		seen[key] = true
		gd.ignored = append(gd.ignored, key)
		if name, ok := filterName(key); ok && !seen["filter "+name] {
			seen["filter "+name] = true
			gd.unsafe = gd.unsafe || strings.Contains(name, "=")
			p := "filter." + name + "."
			gd.args = append(gd.args, "-c", p+"clean=", "-c", p+"smudge=", "-c", p+"process=", "-c", p+"required=false")
		}
	}
	slices.Sort(gd.ignored)
	return gd
}

// runsCommand reports whether config key (as git lists it: section and
// name lower case) names a command git may run while reading.
func runsCommand(key, value string) bool {
	switch key {
	case "core.fsmonitor":
		return value != "false" && value != "0" && value != "no" && value != "off" && value != ""
	case "core.hookspath", "core.pager", "diff.external":
		return true
	}
	if _, ok := filterName(key); ok {
		return true
	}
	return strings.HasPrefix(key, "diff.") && (strings.HasSuffix(key, ".command") || strings.HasSuffix(key, ".textconv")) ||
		strings.HasPrefix(key, "pager.")
}

// filterName returns N of filter.N.clean, filter.N.smudge or
// filter.N.process.
func filterName(key string) (string, bool) {
	rest, ok := strings.CutPrefix(key, "filter.")
	if !ok {
		return "", false
	}
	for _, s := range []string{".clean", ".smudge", ".process"} {
		if name, ok := strings.CutSuffix(rest, s); ok && name != "" {
			return name, true
		}
	}
	return "", false
}
