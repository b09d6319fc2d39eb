package fleet

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"piweb/internal/catalog"
	"piweb/internal/pgtest"
	"piweb/internal/testkit"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// fleetDB is a test's database on a cluster, owned by OwnerRole as the
// README sets it up.
type fleetDB struct {
	c    *pgtest.Cluster
	name string
}

var ownerOnce sync.Map // cluster -> created OwnerRole

func newFleetDB(t testing.TB, c *pgtest.Cluster) fleetDB {
	t.Helper()
	if _, done := ownerOnce.LoadOrStore(c, true); !done {
		c.Exec(t, "postgres", "CREATE ROLE "+OwnerRole+" NOLOGIN")
		c.Exec(t, "postgres", "CREATE ROLE "+MachineRole+" NOLOGIN")
	}
	db := c.NewDB(t)
	c.Exec(t, "postgres", "ALTER DATABASE "+db+" OWNER TO "+OwnerRole)
	return fleetDB{c: c, name: db}
}

// role creates a login role of the fleet's owner (trusted with the
// schema, it migrates) and returns the URL it connects with.
func (d fleetDB) role(t testing.TB, name string) string {
	t.Helper()
	return d.roleIn(t, name, OwnerRole)
}

// machineRole creates a machine's login role as the README shows (a
// member of MachineRole) and returns the URL it connects with.
func (d fleetDB) machineRole(t testing.TB, name string) string {
	t.Helper()
	return d.roleIn(t, name, MachineRole)
}

func (d fleetDB) roleIn(t testing.TB, name, group string) string {
	t.Helper()
	role := d.name + "_" + name
	d.c.Exec(t, "postgres", "CREATE ROLE "+role+" LOGIN PASSWORD 'pw-"+name+"' IN ROLE "+group)
	t.Cleanup(func() {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, d.c.URL("postgres", pgtest.Superuser, ""))
		if err == nil {
			conn.Exec(ctx, "DROP DATABASE IF EXISTS "+d.name+" WITH (FORCE)")
			conn.Exec(ctx, "DROP ROLE IF EXISTS "+role)
			conn.Close(ctx)
		}
	})
	return d.c.URL(d.name, role, "pw-"+name)
}

// admin connects to the test's database as the superuser.
func (d fleetDB) admin(t *testing.T) *pgx.Conn {
	t.Helper()
	return connectAs(t, d.c.URL(d.name, pgtest.Superuser, ""))
}

// agentDir is a pi agent dir with session files the tests write.
type agentDir struct {
	dir string
	n   int
}

func newAgentDir(t *testing.T) *agentDir {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "sessions", "--work-proj--"), 0o755); err != nil {
		t.Fatal(err)
	}
	return &agentDir{dir: dir}
}

// create writes a new session file with a header and n user/assistant
// exchanges, and returns its path.
func (a *agentDir) create(t *testing.T, exchanges int) string {
	t.Helper()
	a.n++
	id := fmt.Sprintf("0199aaaa-bbbb-7ccc-8ddd-%012d", a.n)
	path := filepath.Join(a.dir, "sessions", "--work-proj--", fmt.Sprintf("2026-12-04T10-00-%02d-000Z_%s.jsonl", a.n, id))
	var b strings.Builder
	fmt.Fprintf(&b, `{"type":"session","version":3,"id":%q,"timestamp":"2026-12-04T10:00:00.000Z","cwd":"/work/proj"}`+"\n", id)
	parent := ""
	for i := range exchanges {
		parent = writeExchange(&b, fmt.Sprintf("s%d-%d", a.n, i), parent, fmt.Sprintf("question %d about zebras", i))
	}
	testkit.WriteFile(t, path, b.String())
	return path
}

// writeExchange writes a user message and an answer with usage under
// parent and returns the answer's id.
func writeExchange(b *strings.Builder, id, parent, text string) string {
	p := "null"
	if parent != "" {
		p = fmt.Sprintf("%q", parent)
	}
	fmt.Fprintf(b, `{"type":"message","id":"%su","parentId":%s,"timestamp":"2026-12-04T10:01:00.000Z","message":{"role":"user","content":%q,"timestamp":1796378460000}}`+"\n", id, p, text)
	fmt.Fprintf(b, `{"type":"message","id":"%sa","parentId":"%su","timestamp":"2026-12-04T10:01:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"answer to %s"}],"provider":"fake","model":"m1","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"input":0.01,"output":0.02,"cacheRead":0,"cacheWrite":0,"total":0.03}},"stopReason":"stop","timestamp":1796378461000}}`+"\n", id, id, text)
	return id + "a"
}

// appendExchange appends an exchange to a file under parent ("" for the
// file's last entry) and returns the answer's id.
func appendExchange(t *testing.T, path, id, parent, text string) string {
	t.Helper()
	var b strings.Builder
	leaf := writeExchange(&b, id, parent, text)
	testkit.AppendFile(t, path, b.String())
	return leaf
}

// oneDir is an agent dir with one session of so many exchanges, its
// path, and the catalog over it.
func oneDir(t *testing.T, exchanges int) (*agentDir, string, *catalog.Catalog) {
	t.Helper()
	a := newAgentDir(t)
	path := a.create(t, exchanges)
	return a, path, openCatalog(t, a)
}

// openReader is a Reader of url, closed when the test ends.
func openReader(tb testing.TB, url string) *Reader {
	tb.Helper()
	r, err := NewReader(url)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { r.Close() })
	return r
}

// openCatalog opens the local listing of an agent dir, quick to react.
func openCatalog(t *testing.T, a *agentDir) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.Open(context.Background(), catalog.Options{AgentDir: a.dir, Temporary: true,
		ReloadEvery: 10 * time.Millisecond, Rescan: 100 * time.Millisecond, Debounce: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	return cat
}

// startPusher runs a pusher until the test ends.
func startPusher(t *testing.T, o Options) *Pusher {
	t.Helper()
	return startWith(t, o, nil)
}

// startWith runs a pusher with a hook between a batch's writes and its
// commit.
func startWith(t *testing.T, o Options, midBatch func()) *Pusher {
	t.Helper()
	o.Log = slog.New(slog.NewTextHandler(testWriter{t}, nil))
	o.RetryMin, o.RetryMax = 10*time.Millisecond, 100*time.Millisecond
	o.Version = cmpOr(o.Version, "piweb-test")
	p := New(o)
	p.midBatch = midBatch
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return p
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}

// converged checks that the database holds exactly the file as the
// local listing has it: every complete line byte for byte, one entry row
// per entry, the branch flags of the local index, the listing fields.
func converged(ctx context.Context, conn *pgx.Conn, cat *catalog.Catalog, machine, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	data = data[:bytes.LastIndexByte(data, '\n')+1]
	var raw []byte
	var deleted bool
	var offset int64
	var msgs, wrongTsv int
	err = conn.QueryRow(ctx, `SELECT s.deleted, s.pushed_offset, s.message_count,
		coalesce((SELECT string_agg(raw || '\x0a'::bytea, ''::bytea ORDER BY line) FROM fleet.lines l
			WHERE l.machine = s.machine AND l.path = s.path), ''::bytea),
		(SELECT count(*) FROM fleet.entries e WHERE e.machine = s.machine AND e.path = s.path
			AND e.tsv IS DISTINCT FROM to_tsvector('simple', coalesce(e.text, '')))
		FROM fleet.sessions s WHERE machine = $1 AND path = $2`, machine, path).Scan(&deleted, &offset, &msgs, &raw, &wrongTsv)
	if err != nil {
		return fmt.Errorf("session row: %w", err)
	}
	m, _ := cat.ByPath(path)
	switch {
	case deleted:
		return fmt.Errorf("marked deleted")
	case offset != int64(len(data)) || !bytes.Equal(raw, data):
		return fmt.Errorf("lines: pushed %d bytes up to %d, the file has %d", len(raw), offset, len(data))
	case msgs != m.MessageCount:
		return fmt.Errorf("message count %d, local %d", msgs, m.MessageCount)
	case wrongTsv > 0: // sent by the pusher (lexemes.go) or made by the trigger
		return fmt.Errorf("%d entries' tsvector is not to_tsvector('simple', text)", wrongTsv)
	}
	return nil
}

// eventually waits for cond (the one way tests wait).
func eventually(t *testing.T, cond func() error, what string) {
	t.Helper()
	testkit.Eventually(t, cond, 20*time.Second, what)
}

// awaitStatus waits until the pusher's status is as ok wants it.
func awaitStatus(t *testing.T, p *Pusher, what string, ok func(Status) bool) {
	t.Helper()
	eventually(t, func() error {
		if s := p.Status(); !ok(s) {
			return fmt.Errorf("status %+v", s)
		}
		return nil
	}, what)
}

// count runs a count query.
func count(t *testing.T, conn *pgx.Conn, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := conn.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// pgxConn is what the test helpers query through.
type pgxConn = *pgx.Conn
