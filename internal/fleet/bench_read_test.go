package fleet

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"piweb/internal/catalog"
	"piweb/internal/pgtest"
	"piweb/internal/testkit"
)

// BenchmarkFleetRead times what a fleet page asks most: a search over
// every machine's entries and the listing's first page. One generated
// machine (FLEET_BENCH_SESSIONS sessions, default 2,500, ~40 entries
// each) is pushed, then copied as the superuser into
// FLEET_BENCH_MACHINES machines (default 10): issue 22's 10 x 2,500
// sessions, about 1M entries (the copies have no lines or usage, which
// neither answer reads). It reports the median and p99 of each.
func BenchmarkFleetRead(b *testing.B) {
	n, machines := testkit.EnvInt("FLEET_BENCH_SESSIONS", 2500), testkit.EnvInt("FLEET_BENCH_MACHINES", 10)
	url, entries := fleetOf(b, n, machines)
	r := openReader(b, url)
	ctx := context.Background()
	// Common to rare words of the generated prose, a prefix, a phrase.
	words := []string{"the", "function", "error", "config", "handler", "database", "parser", "refactor", "docker",
		"quokka", "zqabc", "mig*", `"the function"`, "socket timeout", "nothing-matches"}
	var search, list []time.Duration
	partial := 0
	b.ResetTimer()
	for range b.N {
		for _, w := range words {
			start := time.Now()
			a, err := r.Search(ctx, catalog.SearchQuery{Text: w, Limit: 50})
			if err != nil {
				b.Fatal(err)
			}
			if a.Partial {
				partial++
			}
			search = append(search, time.Since(start))
			start = time.Now()
			if _, err := r.Sessions(ctx, catalog.ListQuery{Sort: "modified", Limit: 50}, ""); err != nil {
				b.Fatal(err)
			}
			list = append(list, time.Since(start))
		}
	}
	b.StopTimer()
	report(b, "search", search)
	report(b, "list", list)
	b.ReportMetric(float64(partial)/float64(len(search)), "search-partial")
	b.Logf("%d machines x %d sessions, %d entries; %d of %d searches partial", machines, n, entries, partial, len(search))
	benchFleetBudget(b, r)
}

// benchFleetBudget times searches whose filter passes none of a common
// word's matches, so that the whole search reads every match, with the
// budget and without (budget=off): the time of each and whether it was
// partial (decision 0036).
func benchFleetBudget(b *testing.B, r *Reader) {
	texts := []string{"the model:no-such-model", "the branch:abandoned", "the role:tool", "t*"}
	for _, budget := range []time.Duration{defaultBudget, time.Hour} {
		name := "budget"
		if budget == time.Hour {
			name = "budget=off"
		}
		var ds []time.Duration
		partial := 0
		for range max(1, b.N/5) {
			for _, text := range texts {
				rr := *r
				rr.budget = budget
				q := catalog.ParseSearch(text, time.UTC)
				q.Limit = 50
				start := time.Now()
				a, err := rr.Search(context.Background(), q)
				if err != nil {
					b.Fatal(err)
				}
				ds = append(ds, time.Since(start))
				if a.Partial {
					partial++
				}
			}
		}
		report(b, name, ds)
		b.ReportMetric(float64(partial)/float64(len(ds)), name+"-partial")
	}
}

// report adds the median and p99 of ds as metrics and to the log.
func report(b *testing.B, what string, ds []time.Duration) {
	testkit.ReportLatencies(b, what+"-", ds) // sorts ds
	b.Logf("%s: median %v, p99 %v, max %v over %d", what, ds[len(ds)/2], ds[len(ds)*99/100], ds[len(ds)-1], len(ds))
}

// fleetOf builds a fleet database of machines copies of one pushed
// machine of n generated sessions, and returns its URL and entries.
func fleetOf(b *testing.B, n, machines int) (string, int) {
	b.Helper()
	cat, _ := indexedCorpus(b, n, 26<<10)
	ctx := context.Background()
	c := pgtest.Shared(b)
	d := newFleetDB(b, c)
	url := d.role(b, "read")
	pushAll(b, url, "m0", cat, n)
	conn, err := pgx.Connect(ctx, c.URL(d.name, pgtest.Superuser, ""))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	for i := 1; i < machines; i++ {
		m := fmt.Sprintf("m%d", i)
		for _, sql := range []string{
			`INSERT INTO fleet.machines (name, role, share) SELECT $1, role, share FROM fleet.machines WHERE name = 'm0'`,
			`INSERT INTO fleet.sessions SELECT $1, path, key, session_id, cwd, name, has_name, created, modified - $2,
				message_count, first_message, parent_path, size, deleted, head_hash, tail_hash, pushed_offset,
				pushed_lines, leaf_id, share, updated_at FROM fleet.sessions WHERE machine = 'm0'`,
			`INSERT INTO fleet.entries (machine, path, line, entry_id, parent_id, type, role, ts, on_branch, text, tools)
				SELECT $1, path, line, entry_id, parent_id, type, role, ts - $2, on_branch, text, tools
				FROM fleet.entries WHERE machine = 'm0'`,
		} {
			args := []any{m}
			if strings.Contains(sql, "$2") {
				args = append(args, i*3600_000)
			}
			if _, err := conn.Exec(ctx, sql, args...); err != nil {
				b.Fatalf("copy into %s: %v", m, err)
			}
		}
	}
	for _, t := range []string{"sessions", "entries"} {
		if _, err := conn.Exec(ctx, `VACUUM ANALYZE fleet.`+t); err != nil {
			b.Fatal(err)
		}
	}
	var entries int
	conn.QueryRow(ctx, `SELECT count(*) FROM fleet.entries`).Scan(&entries)
	return url, entries
}
