// Package gitx asks the real git executable about a session's working
// tree for the Changes panel: the branch, how far it is ahead of and
// behind its upstream, the staged, unstaged and untracked files
// (porcelain v2, NUL-separated, so any file name is read exactly), and a
// file's diff against HEAD, capped in size. git runs with the user's own
// configuration but never prompts (GIT_TERMINAL_PROMPT=0), never takes
// the index lock for a status (GIT_OPTIONAL_LOCKS=0), prints paths
// unquoted (core.quotepath=off), runs no command the repository's own
// config names (guard.go), and is killed after a timeout.
package gitx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"piweb/internal/errs"
	"piweb/internal/opt"
)

// Defaults of Options' zero values.
const (
	DefaultTimeout  = 10 * time.Second
	DefaultMaxDiff  = 512 << 10
	DefaultMaxFiles = 5000
)

// Options configures a Git.
type Options struct {
	// Path is the git executable (default: git on PATH).
	Path string
	// Timeout bounds one git command.
	Timeout time.Duration
	// MaxDiff bounds a diff's bytes; a longer one is cut and marked.
	MaxDiff int
	// MaxFiles bounds the files a status lists; the rest are counted.
	MaxFiles int
}

// Errors, each a state the Changes panel tells the user about.
var (
	ErrNoGit    = errs.New(errs.NotFound, "git is not installed (no git on PATH)", "git is not installed (no git on PATH)")
	ErrNotRepo  = errs.New(errs.NotFound, "the folder is not in a git repository", "the folder is not in a git repository")
	ErrNoDir    = errs.New(errs.NotFound, "the folder does not exist", "the folder does not exist")
	ErrTimeout  = errs.New(errs.NotFound, "git did not answer in time (a lock, a hung file system?)", "git did not answer in time (a lock, a hung file system?)")
	ErrBadPath  = errs.New(errs.Forbidden, "path must be relative to the repository and stay inside it", "not a path inside the repository")
	errGitFails = errs.New(errs.Internal, "git failed", "git failed")
)

// Git runs git commands. It is safe for concurrent use.
type Git struct{ opts Options }

// New returns a Git with opts' zero values defaulted.
func New(opts Options) *Git {
	if opts.Path == "" {
		opts.Path = "git"
	}
	opt.Positive(&opts.Timeout, DefaultTimeout)
	opt.Positive(&opts.MaxDiff, DefaultMaxDiff)
	opt.Positive(&opts.MaxFiles, DefaultMaxFiles)
	return &Git{opts: opts}
}

// run runs git in dir with args and returns its standard output, at most
// limit bytes of it (0: no limit) and whether it was cut there. Exit
// codes listed in okCodes count as success.
func (g *Git) run(ctx context.Context, dir string, limit int, args []string, okCodes ...int) ([]byte, bool, error) {
	out, _, cut, err := g.runFull(ctx, dir, limit, append(slices.Clone(alwaysOff), args...), okCodes...)
	return out, cut, err
}

// runFull runs git in dir with args (alwaysOff or askedOff among them)
// and returns its standard output (at most limit bytes, 0: all), the
// first 8 KiB of its standard error, and whether the output was cut.
func (g *Git) runFull(ctx context.Context, dir string, limit int, args []string, okCodes ...int) ([]byte, string, bool, error) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, "", false, ErrNoDir
	}
	ctx, cancel := context.WithTimeout(ctx, g.opts.Timeout)
	defer cancel()
	full := append([]string{"-c", "core.quotepath=off", "-c", "color.ui=false"}, args...)
	cmd := exec.CommandContext(ctx, g.opts.Path, full...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C", "GIT_PAGER=cat",
		"GIT_ASKPASS=", "SSH_ASKPASS=", "GIT_EDITOR=:", "GIT_SEQUENCE_EDITOR=:", "GIT_MERGE_AUTOEDIT=no")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	out := &capped{max: limit, cancel: cancel}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = out, &limitedBuf{buf: &stderr, max: 8 << 10}
	err := cmd.Run()
	if out.cut {
		return out.buf.Bytes(), stderr.String(), true, nil
	}
	return out.buf.Bytes(), stderr.String(), false, g.classify(ctx, err, stderr.String(), okCodes)
}

func (g *Git) classify(ctx context.Context, err error, stderr string, okCodes []int) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
		return ErrNoGit
	}
	if ctx.Err() == context.DeadlineExceeded {
		return ErrTimeout
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		for _, c := range okCodes {
			if ee.ExitCode() == c {
				return nil
			}
		}
		if strings.Contains(stderr, "not a git repository") {
			return ErrNotRepo
		}
		return fmt.Errorf("%w: %s", errGitFails, firstLine(stderr))
	}
	return err
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// capped keeps the first max bytes written (max 0: all) and cancels the
// command once it has them.
type capped struct {
	buf    bytes.Buffer
	max    int
	cut    bool
	cancel func()
}

func (c *capped) Write(p []byte) (int, error) {
	if c.max > 0 && c.buf.Len()+len(p) > c.max {
		c.buf.Write(p[:c.max-c.buf.Len()])
		if !c.cut {
			c.cut = true
			c.cancel()
		}
		return len(p), nil
	}
	return c.buf.Write(p)
}

type limitedBuf struct {
	buf *bytes.Buffer
	max int
}

func (l *limitedBuf) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// Root returns the top folder of the working tree holding dir.
func (g *Git) Root(ctx context.Context, dir string) (string, error) {
	out, _, err := g.run(ctx, dir, 0, []string{"rev-parse", "--show-toplevel"})
	if err != nil {
		return "", err
	}
	return strings.TrimRight(string(out), "\n"), nil
}
