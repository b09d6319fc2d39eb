package fleet

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"piweb/internal/catalog"
	"piweb/internal/pgtest"
)

// TestExplain: what a person reads for each way the fleet's database can
// be wrong.
func TestExplain(t *testing.T) {
	c := pgtest.Shared(t)
	d := newFleetDB(t, c)
	good := d.role(t, "good")
	ctx := context.Background()
	migrateAs(t, good)
	// A role that may log in but was never given the fleet's tables.
	c.Exec(t, "postgres", "CREATE ROLE "+d.name+"_stranger LOGIN PASSWORD 'pw'")
	t.Cleanup(func() { c.Exec(t, "postgres", "DROP ROLE IF EXISTS "+d.name+"_stranger") })
	stranger := c.URL(d.name, d.name+"_stranger", "pw")
	for _, tc := range []struct {
		name, url, want string
	}{
		{"not a URL", "postgres://a:b@host:notaport/db", "the fleet URL is not valid"},
		{"wrong password", strings.Replace(good, "pw-good", "wrong", 1), "the fleet database refused the password"},
		{"no such database", c.URL("nosuchdb", pgtest.Superuser, ""), "the fleet database does not exist"},
		{"database down", "postgres://u@/db?host=/nonexistent-socket-dir", "the fleet database is down or unreachable"},
		{"missing permission", stranger, "the fleet database's role lacks a permission"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := New(Options{URL: tc.url, Machine: "m"})
			conn, err := p.connect(ctx)
			if err == nil {
				conn.Close(ctx)
				t.Fatal("connected")
			}
			if got := Explain(err); !strings.HasPrefix(got, tc.want) {
				t.Errorf("Explain = %q, want it to start %q", got, tc.want)
			}
			if got := stateOf(err); tc.name != "database down" && got != StatePaused {
				t.Errorf("state %s, want paused (a person must act)", got)
			}
		})
	}
}

func TestRedact(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"postgres://laptop:secret@db:5432/fleet", "postgres://laptop:xxxxx@db:5432/fleet"},
		{"postgres://laptop@db/fleet", "postgres://laptop@db/fleet"},
	} {
		if got := Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestCheck: `piweb fleet status` counts what is pushed and says why the
// rest is behind.
func TestCheck(t *testing.T) {
	d := newFleetDB(t, pgtest.Shared(t))
	url := d.role(t, "desk")
	a := newAgentDir(t)
	p1 := a.create(t, 1)
	a.create(t, 2)
	cat := openCatalog(t, a)
	ctx, cancel := context.WithCancel(context.Background())
	p := New(Options{URL: url, Machine: "desk", Source: cat, Version: "piweb test"})
	done := make(chan struct{})
	go func() { p.Run(ctx); close(done) }()
	awaitStatus(t, p, "the push", func(s Status) bool { return s.State == StateCurrent })
	cancel()
	<-done
	local, _, _ := cat.List(context.Background(), catalog.ListQuery{})
	now := time.Now()
	r, err := Check(context.Background(), url, "desk", local, now)
	if err != nil {
		t.Fatal(err)
	}
	if r.Pushed != 2 || r.Behind() != 0 || !strings.Contains(r.Text(now), "behind: nothing") {
		t.Errorf("after the push:\n%s", r.Text(now))
	}
	if r.Self.Name != "desk" || r.Self.PiwebVersion != "piweb test" || !r.Self.Online || r.Self.Sessions != 2 {
		t.Errorf("this machine's row: %+v", r.Self)
	}
	// desk pushes as an owner, as fleets set up before MachineRole did:
	// warned; a machine's own role is not.
	if !strings.Contains(r.Text(now), "warning: role "+d.name+"_desk may lift row-level security") {
		t.Errorf("an owner's role pushing is not warned about:\n%s", r.Text(now))
	}
	lap, err := Check(context.Background(), d.machineRole(t, "lap"), "lap", nil, now)
	if err != nil || lap.RoleWarning != "" {
		t.Errorf("a machine's own role: %v, warning %q", err, lap.RoleWarning)
	}
	if lap.Claimed || lap.Self != (MachineInfo{}) {
		t.Errorf("a machine not in the fleet yet has a row: %+v", lap.Self)
	}
	if text := lap.Text(now); !strings.Contains(text, "machines:\n  desk: piweb piweb test, pi unknown, ") {
		t.Errorf("the fleet's machines and their versions are not listed:\n%s", text)
	}
	appendExchange(t, p1, "late", "", "not pushed")
	a.create(t, 1)
	eventually(t, func() error {
		if err := cat.Sync(context.Background()); err != nil {
			return err
		}
		if local, _, _ = cat.List(context.Background(), catalog.ListQuery{}); len(local) != 3 {
			return fmt.Errorf("%d listed", len(local))
		}
		return nil
	}, "the listing")
	later := now.Add(5 * time.Minute)
	r, err = Check(context.Background(), url, "desk", local, later)
	if err != nil {
		t.Fatal(err)
	}
	text := r.Text(later)
	for _, want := range []string{"behind: 2 sessions (1 new, 1 changed, 0 deleted here)", "why: no piweb serve --fleet is pushing from this machine (last heartbeat 5m"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
}
