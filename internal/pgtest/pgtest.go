// Package pgtest starts a throwaway PostgreSQL for tests: Debian's
// postgresql package (scripts/setup.sh installs it), initdb into a
// temporary folder as an unprivileged user (CI runs as root, and
// PostgreSQL refuses to run as root), listening only on a Unix socket in
// that folder, fsync off (synchronous_commit stays on: a commit's WAL is
// written to the kernel before it returns, so `pg_ctl stop -m immediate`
// keeps every commit, as a crash of the server alone does), every DDL
// statement logged (log_statement=ddl) to a file the tests read, each
// line prefixed with its database.
//
// A package's tests share one cluster, started by the first test that
// asks (Shared) and stopped by Main, which the package's TestMain calls;
// each test gets a fresh database (NewDB). Tests that stop or crash the
// server take a cluster of their own (NewCluster). Tests skip under
// -short, skip when PostgreSQL is not installed, and fail under CI=true,
// where it must be. Helpers are meant for _test.go files only.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Superuser is the cluster's bootstrap superuser, who connects without a
// password; every other role authenticates with SCRAM.
const Superuser = "postgres"

// Cluster is one running throwaway PostgreSQL.
type Cluster struct {
	dir  string // the temporary folder: data/, the socket, the log
	bin  string // PostgreSQL's bin folder
	cred *syscall.Credential
	mu   sync.Mutex
	cmd  *exec.Cmd     // the postmaster, while running
	gone chan struct{} // closed once that postmaster has exited and been forgotten
	logf *os.File
	dbs  int
}

var shared struct {
	once sync.Once
	c    *Cluster
	err  error
}

// Main runs a package's tests (m.Run) and stops the shared cluster after
// them. Call it from TestMain: os.Exit(pgtest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	if shared.c != nil {
		shared.c.Stop("fast")
		os.RemoveAll(shared.c.dir)
	}
	return code
}

// Shared returns the package's cluster, starting it on first use.
func Shared(t testing.TB) *Cluster {
	t.Helper()
	skip(t)
	shared.once.Do(func() { shared.c, shared.err = start(t) })
	if shared.err != nil {
		failStart(t, shared.err)
	}
	return shared.c
}

// NewCluster starts a cluster of the test's own, removed when it ends:
// for tests that stop, crash or restart the server.
func NewCluster(t testing.TB) *Cluster {
	t.Helper()
	skip(t)
	c, err := start(t)
	if err != nil {
		failStart(t, err)
	}
	t.Cleanup(func() {
		c.Stop("immediate")
		os.RemoveAll(c.dir)
	})
	return c
}

// skip stops the test under -short, or when PostgreSQL is missing.
func skip(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("PostgreSQL tests are long (-short)")
	}
	if _, err := BinDir(); err != nil {
		missing(t, "%v", err)
	}
}

func failStart(t testing.TB, err error) {
	t.Helper()
	missing(t, "pgtest: PostgreSQL did not start: %v", err)
}

// missing fails under CI=true (CI must run these tests) and skips
// elsewhere, as pitest.Missing does for pi.
func missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s (CI=true; run scripts/setup.sh)", msg)
	}
	t.Skipf("%s (run scripts/setup.sh; skipping)", msg)
}

// BinDir finds PostgreSQL's programs: the folder of initdb on PATH when
// pg_ctl and postgres sit beside it, else the newest
// /usr/lib/postgresql/*/bin, where Debian installs them off PATH.
func BinDir() (string, error) {
	var dirs []string
	if p, err := exec.LookPath("initdb"); err == nil {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			dirs = append(dirs, filepath.Dir(r))
		}
		dirs = append(dirs, filepath.Dir(p))
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(found, func(i, j int) bool { return versionOf(found[i]) > versionOf(found[j]) })
	for _, d := range append(dirs, found...) {
		if hasAll(d, "initdb", "pg_ctl", "postgres") {
			return d, nil
		}
	}
	return "", errors.New("pgtest: PostgreSQL not found (initdb, pg_ctl and postgres on PATH or under /usr/lib/postgresql/*/bin)")
}

func versionOf(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

func hasAll(dir string, names ...string) bool {
	for _, n := range names {
		if st, err := os.Stat(filepath.Join(dir, n)); err != nil || st.IsDir() {
			return false
		}
	}
	return true
}

// start creates and starts a cluster. t only logs.
func start(t testing.TB) (*Cluster, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		return nil, err
	}
	c := &Cluster{dir: dir, bin: bin}
	if err := c.init(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := c.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	t.Logf("pgtest: PostgreSQL from %s in %s", bin, dir)
	return c, nil
}

// init runs initdb as an unprivileged user and writes the configuration.
func (c *Cluster) init() error {
	cred, err := unprivileged()
	if err != nil {
		return err
	}
	c.cred = cred
	if cred != nil {
		if err := os.Chown(c.dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return err
		}
	}
	out, err := c.command("initdb", "-D", c.data(), "-U", Superuser, "-A", "trust", "-E", "UTF8",
		"--locale=C.UTF-8", "-N").CombinedOutput()
	if err != nil {
		return fmt.Errorf("initdb: %v: %s", err, out)
	}
	hba := "local all " + Superuser + " trust\nlocal all all scram-sha-256\n"
	return c.writeAs(filepath.Join(c.data(), "pg_hba.conf"), hba)
}

// unprivileged is the credential PostgreSQL runs under: nil when this
// process is not root, else nobody's.
func unprivileged() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		return nil, fmt.Errorf("pgtest: running as root and no user nobody to run PostgreSQL as: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// writeAs writes a file owned by the cluster's user.
func (c *Cluster) writeAs(path, content string) error {
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		return err
	}
	if c.cred != nil {
		return os.Chown(path, int(c.cred.Uid), int(c.cred.Gid))
	}
	return nil
}

// command runs one of PostgreSQL's programs as the cluster's user.
func (c *Cluster) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(c.bin, name), args...)
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8", "HOME="+c.dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	return cmd
}

func (c *Cluster) data() string { return filepath.Join(c.dir, "data") }

// LogPath is the server's log: every DDL statement, prefixed with
// "db=<database> ".
func (c *Cluster) LogPath() string { return filepath.Join(c.dir, "postgres.log") }

// Start starts the server (again, after Stop) and waits until it accepts
// connections. The postmaster gets SIGQUIT (an immediate shutdown) if the
// test process dies first.
func (c *Cluster) Start() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cmd != nil {
		return nil
	}
	logf, err := os.OpenFile(c.LogPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := c.command("postgres", "-D", c.data(), "-k", c.dir, "-c", "listen_addresses=",
		"-c", "fsync=off", "-c", "full_page_writes=off",
		"-c", "log_statement=ddl", "-c", "log_line_prefix=db=%d ", "-c", "shared_buffers=32MB",
		"-c", "max_connections=100", "-c", "log_min_messages=warning")
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr.Pdeathsig = syscall.SIGQUIT
	if err := startOnSpawner(cmd); err != nil {
		logf.Close()
		return fmt.Errorf("postgres: %w", err)
	}
	c.cmd, c.logf, c.gone = cmd, logf, make(chan struct{})
	return c.waitReady(cmd)
}

// spawner runs functions on one goroutine locked to its OS thread for
// the life of the process. Linux sends the parent-death signal when the
// thread that forked the child exits, and a thread ends with any
// goroutine that exits while locked to it (catalog.WatchIndex does): a
// postmaster forked from an ordinary goroutine's thread could be killed
// in the middle of a test.
var spawner = sync.OnceValue(func() chan func() {
	ch := make(chan func())
	go func() {
		runtime.LockOSThread() // never unlocked: the thread outlives every test
		for f := range ch {
			f()
		}
	}()
	return ch
})

// startOnSpawner starts cmd from the spawner's thread.
func startOnSpawner(cmd *exec.Cmd) error {
	errc := make(chan error, 1)
	spawner() <- func() { errc <- cmd.Start() }
	return <-errc
}

// waitReady polls until the server answers, or fails when it exits.
func (c *Cluster) waitReady(cmd *exec.Cmd) error {
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(60 * time.Second)
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		conn, err := pgx.Connect(ctx, c.URL("postgres", Superuser, ""))
		cancel()
		if err == nil {
			conn.Close(context.Background())
			go c.reap(cmd, exited)
			return nil
		}
		select {
		case werr := <-exited:
			log, _ := os.ReadFile(c.LogPath())
			c.cmd = nil
			c.logf.Close()
			close(c.gone)
			return fmt.Errorf("postgres exited: %v: %s", werr, log)
		case <-time.After(wait):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres not ready after a minute: %v", err)
		}
	}
}

// reap forgets the postmaster once it exits (after Stop, or a crash).
func (c *Cluster) reap(cmd *exec.Cmd, exited chan error) {
	<-exited
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cmd == cmd {
		c.cmd = nil
		c.logf.Close()
		close(c.gone)
	}
}

// Stop runs pg_ctl stop with a shutdown mode: "smart", "fast" or
// "immediate" (a crash: the next Start recovers).
// It returns once the postmaster is forgotten, so that a Start right
// after it starts a new one.
func (c *Cluster) Stop(mode string) error {
	c.mu.Lock()
	gone := c.gone
	c.mu.Unlock()
	out, err := c.command("pg_ctl", "stop", "-D", c.data(), "-m", mode, "-w").CombinedOutput()
	if err != nil {
		return fmt.Errorf("pg_ctl stop -m %s: %v: %s", mode, err, out)
	}
	if gone != nil {
		select {
		case <-gone:
		case <-time.After(time.Minute):
			return fmt.Errorf("pg_ctl stop -m %s: the postmaster did not exit", mode)
		}
	}
	return nil
}

// URL is a connection URL for a database as a user (password "" for
// none) over the cluster's socket.
func (c *Cluster) URL(db, user, password string) string {
	u := "postgres://" + user
	if password != "" {
		u += ":" + password
	}
	return u + "@/" + db + "?host=" + c.dir + "&port=5432&sslmode=disable"
}

// NewDB creates a fresh database for the test and returns its name; it
// is dropped when the test ends.
func (c *Cluster) NewDB(t testing.TB) string {
	t.Helper()
	c.mu.Lock()
	c.dbs++
	name := fmt.Sprintf("t%d", c.dbs)
	c.mu.Unlock()
	c.Exec(t, "postgres", "CREATE DATABASE "+name)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if conn, err := pgx.Connect(ctx, c.URL("postgres", Superuser, "")); err == nil {
			conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			conn.Close(ctx)
		}
	})
	return name
}

// Exec runs statements in db as the superuser.
func (c *Cluster) Exec(t testing.TB, db, sql string, args ...any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.URL(db, Superuser, ""))
	if err != nil {
		t.Fatalf("pgtest: connect %s: %v", db, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql, args...); err != nil {
		t.Fatalf("pgtest: %s: %v", sql, err)
	}
}

// DDL returns the DDL statements logged for db so far (log_statement=ddl),
// each the first line of its log entry.
func (c *Cluster) DDL(t testing.TB, db string) []string {
	t.Helper()
	data, err := os.ReadFile(c.LogPath())
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	var out []string
	for line := range strings.SplitSeq(string(data), "\n") {
		if strings.HasPrefix(line, "db="+db+" ") && strings.Contains(line, "statement: ") {
			out = append(out, line)
		}
	}
	return out
}

// CPU is the CPU time the server's processes have used so far: the
// postmaster's own and that of the children it reaped (utime, stime,
// cutime, cstime of /proc/PID/stat) plus each live child's. Benchmarks
// read it before and after to split a run's CPU between the server and
// the client. 0 where /proc is not there.
func (c *Cluster) CPU() time.Duration {
	c.mu.Lock()
	cmd := c.cmd
	c.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return 0
	}
	pm := cmd.Process.Pid
	total := procTicks(pm, pm, true)
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		if pid, err := strconv.Atoi(d.Name()); err == nil && pid != pm {
			total += procTicks(pid, pm, false)
		}
	}
	return time.Duration(total) * time.Second / 100 // USER_HZ
}

// procTicks is pid's CPU ticks when its parent is parent (or self), with
// its reaped children's when children.
func procTicks(pid, parent int, children bool) int64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The fields after the command, which is in parentheses: state ppid ...
	i := strings.LastIndexByte(string(data), ')')
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 15 {
		return 0
	}
	if ppid, _ := strconv.Atoi(f[1]); pid != parent && ppid != parent {
		return 0
	}
	n := 2
	if children {
		n = 4
	}
	var sum int64
	for _, s := range f[11 : 11+n] { // utime stime cutime cstime
		v, _ := strconv.ParseInt(s, 10, 64)
		sum += v
	}
	return sum
}
