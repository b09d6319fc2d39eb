package index

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"piweb/internal/corpus"
	"piweb/internal/testkit"
	"piweb/pisession"
)

// directUsage computes what Usage should answer by reading every listed
// session with the session parser, independently of the index's fold.
// Forks and clones copy their parent's answers: an entry (same id and
// timestamp) found in several files of a family (files linked by
// parentSession, by path or by the id in its file name) counts once, in
// the oldest file.
func directUsage(t testing.TB, ix *Index, q UsageQuery) []UsageRow {
	t.Helper()
	metas, err := ix.Sessions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	slices.SortStableFunc(metas, func(a, b Meta) int {
		if c := testkit.CompareFloat(a.Info.Created, b.Info.Created); c != 0 {
			return c
		}
		return strings.Compare(a.Info.Path, b.Info.Path)
	})
	family := families(metas)
	seen := map[string]bool{}
	groups := map[string]*UsageRow{}
	for _, m := range metas {
		if !m.Listed || m.Error != "" {
			continue
		}
		s, err := pisession.ReadFile(m.Info.Path)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range s.Entries {
			key, r, ok := directEntry(e, m.Info.Cwd, q)
			answer := family[m.Info.Path] + "\x00" + e.ID + "\x00" + e.Timestamp
			if !ok || seen[answer] {
				continue
			}
			seen[answer] = true
			if g := groups[key]; g != nil {
				AddUsage(g, r)
			} else {
				r.Key = key
				groups[key] = &r
			}
		}
	}
	var out []UsageRow
	for _, g := range groups {
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b UsageRow) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// directEntry is one entry's contribution, by pi 1.6's rules
// (getSessionStats and the /session breakdown of usage-totals.js): an
// answer under provider/(responseModel ?? model), a usage entry under
// provider/model, a tool result's or a summary's usage under
// "Tools/summaries"; only answers count as messages.
func directEntry(e *pisession.Entry, cwd string, q UsageQuery) (string, UsageRow, bool) {
	type usage struct {
		Input, Output, CacheRead, CacheWrite float64
		Cost                                 struct{ Total float64 }
	}
	var m struct {
		Type     string `json:"type"`
		Provider string `json:"provider"`
		Model    string `json:"model"`
		Usage    *usage `json:"usage"`
		Message  *struct {
			Role          string  `json:"role"`
			Provider      string  `json:"provider"`
			Model         string  `json:"model"`
			ResponseModel *string `json:"responseModel"`
			Usage         *usage  `json:"usage"`
		} `json:"message"`
	}
	if json.Unmarshal(e.Raw, &m) != nil {
		return "", UsageRow{}, false
	}
	key, u, answer := "Tools/summaries", m.Usage, false
	switch {
	case m.Type == "usage":
		key = m.Provider + "/" + m.Model
	case m.Type == "compaction" || m.Type == "branch_summary":
	case m.Type == "message" && m.Message != nil && m.Message.Role == "assistant":
		model := m.Message.Model
		if m.Message.ResponseModel != nil {
			model = *m.Message.ResponseModel
		}
		key, u, answer = m.Message.Provider+"/"+model, m.Message.Usage, true
	case m.Type == "message" && m.Message != nil && m.Message.Role == "toolResult":
		u = m.Message.Usage
	default:
		return "", UsageRow{}, false
	}
	if u == nil {
		return "", UsageRow{}, false
	}
	r := UsageRow{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite, Cost: u.Cost.Total}
	if answer {
		r.Messages = 1
	}
	ts, err := time.Parse(time.RFC3339Nano, e.Timestamp)
	if !q.Since.IsZero() && (err != nil || ts.Before(q.Since)) {
		return "", UsageRow{}, false
	}
	switch q.By {
	case "model":
		return strings.TrimPrefix(key, "/"), r, true
	case "project":
		return cwd, r, true
	}
	if err != nil {
		return "", r, true
	}
	loc := q.Loc
	if loc == nil {
		loc = time.UTC
	}
	return ts.In(loc).Format(time.DateOnly), r, true
}

var approx = cmpopts.EquateApprox(1e-9, 1e-9)

// checkUsage compares Usage with the direct computation for every grouping.
func checkUsage(t *testing.T, ix *Index, zones ...string) {
	t.Helper()
	qs := []UsageQuery{{By: "day"}, {By: "model"}, {By: "project"}}
	for _, z := range zones {
		loc, err := time.LoadLocation(z)
		if err != nil {
			t.Fatal(err)
		}
		qs = append(qs, UsageQuery{By: "day", Loc: loc})
	}
	if since := usageMiddle(t, ix); !since.IsZero() {
		for _, by := range []string{"day", "model", "project"} {
			qs = append(qs, UsageQuery{By: by, Since: since})
		}
	}
	for _, q := range qs {
		got, err := ix.Usage(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		want := directUsage(t, ix, q)
		if len(want) == 0 {
			t.Fatalf("%v: no usage in the corpus", q)
		}
		if d := cmp.Diff(want, got, approx); d != "" {
			t.Errorf("usage by %s in %v (-direct +index):\n%s", q.By, q.Loc, d)
		}
	}
}

// usageMiddle returns a half-hour boundary in the middle of the indexed
// answers' times, to check Since.
func usageMiddle(t *testing.T, ix *Index) time.Time {
	t.Helper()
	var lo, hi int64
	if err := ix.db.QueryRow(`SELECT min(slot), max(slot) FROM usage WHERE slot >= 0`).Scan(&lo, &hi); err != nil || lo == hi {
		return time.Time{}
	}
	return time.UnixMilli((lo + hi) / 2 * usageSlot.Milliseconds())
}

func TestUsageFixtures(t *testing.T) {
	t.Parallel() // long under -race; shares nothing (TestFilterExact, which sets the tunables, is not parallel)
	ix := openTest(t, fixtureAgentDir(t))
	syncAll(t, ix)
	checkUsage(t, ix, "America/Los_Angeles", "Asia/Kolkata")
}

func TestUsageCorpus(t *testing.T) {
	t.Parallel() // long under -race; shares nothing (TestFilterExact, which sets the tunables, is not parallel)
	dir := genCorpus(t, corpus.Options{Files: 60, Bytes: 6 << 20, Projects: 4, Seed: 7})
	ix := openTest(t, dir)
	syncAll(t, ix)
	checkUsage(t, ix, "Pacific/Auckland", "America/St_Johns")
}

// TestUsageFollowsFile appends assistant messages (counted once each),
// rewrites the file (its old rows replaced) and deletes it (rows gone).
func TestUsageFollowsFile(t *testing.T) {
	dir := t.TempDir()
	p := writeSession(t, dir, "s", hdr+"\n"+usr+"\n"+asst+"\n")
	ix := openTest(t, dir)
	syncAll(t, ix)
	want := []UsageRow{{Key: "p/m", Input: 3, Output: 4, Cost: 0.5, Messages: 1}}
	expect := func(step string) {
		t.Helper()
		got, err := ix.Usage(context.Background(), UsageQuery{By: "model"})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got, approx, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("%s (-want +got):\n%s", step, d)
		}
		checkUsageIfAny(t, ix)
	}
	expect("initial")
	more := strings.Replace(strings.Replace(asst, `"a2","parentId":"a1"`, `"a4","parentId":"a2"`, 1), `"input":3`, `"input":30`, 1)
	testkit.AppendFile(t, p, more+"\n")
	if err := ix.Update(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	want[0].Input, want[0].Output, want[0].Cost, want[0].Messages = 33, 8, 1, 2
	expect("after append by event")
	other := strings.Replace(strings.Replace(asst, `"a2","parentId":"a1"`, `"a5","parentId":"a4"`, 1), `"provider":"p"`, `"provider":"q"`, 1)
	testkit.AppendFile(t, p, other+"\n")
	syncAll(t, ix)
	want = append(want, UsageRow{Key: "q/m", Input: 3, Output: 4, Cost: 0.5, Messages: 1})
	expect("after append by rescan")
	// A rewrite (a new inode with other content) replaces the rows.
	tmp := p + ".tmp"
	os.WriteFile(tmp, []byte(hdr+"\n"+usr+"\n"+other+"\n"), 0o644)
	os.Rename(tmp, p)
	syncAll(t, ix)
	want = want[1:]
	expect("after rewrite")
	os.Remove(p)
	syncAll(t, ix)
	want = nil
	expect("after delete")
}

// checkUsageIfAny compares with the direct computation when there is usage.
func checkUsageIfAny(t *testing.T, ix *Index) {
	t.Helper()
	for _, by := range []string{"day", "model", "project"} {
		got, err := ix.Usage(context.Background(), UsageQuery{By: by})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(directUsage(t, ix, UsageQuery{By: by}), got, approx, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("by %s (-direct +index):\n%s", by, d)
		}
	}
}

// TestUsageDaysAcrossDST puts answers just before and after local
// midnights around daylight saving changes, where a fixed offset would
// count them on the wrong day.
func TestUsageDaysAcrossDST(t *testing.T) {
	dir := t.TempDir()
	lines := []string{hdr, usr}
	parent := "a1"
	for i, ts := range []string{"2026-03-28T22:59:00.000Z", "2026-03-28T23:00:00.000Z", "2026-03-29T21:59:00.000Z",
		"2026-03-29T22:00:00.000Z", "2026-10-24T21:59:00.000Z", "2026-10-24T22:00:00.000Z", "2026-10-25T22:59:00.000Z",
		"2026-10-25T23:00:00.000Z", "2026-04-04T13:29:00.000Z", "2026-04-04T13:31:00.000Z", "2026-11-01T04:30:00.000Z"} {
		id := fmt.Sprintf("d%d", i)
		l := strings.Replace(asst, `"a2","parentId":"a1","timestamp":"2026-01-02T03:04:07.000Z"`,
			fmt.Sprintf(`%q,"parentId":%q,"timestamp":%q`, id, parent, ts), 1)
		lines = append(lines, strings.Replace(l, `"input":3`, fmt.Sprintf(`"input":%d`, 1<<i), 1))
		parent = id
	}
	writeSession(t, dir, "s", strings.Join(lines, "\n")+"\n")
	ix := openTest(t, dir)
	syncAll(t, ix)
	checkUsage(t, ix, "Europe/Berlin", "Australia/Adelaide", "America/New_York", "Asia/Kolkata")
}

func TestUsageBadGroup(t *testing.T) {
	ix := openTest(t, t.TempDir())
	if _, err := ix.Usage(context.Background(), UsageQuery{By: "week"}); err == nil {
		t.Error("by week accepted")
	}
}

// BenchmarkUsage answers usage by day (in a time zone), model and project
// over the bench corpus (PIWEB_BENCH_CORPUS for the 5,000-session one).
func BenchmarkUsage(b *testing.B) {
	dir := benchCorpus(b)
	ix := benchIndex(b, dir)
	if _, err := ix.Sync(context.Background(), false); err != nil {
		b.Fatal(err)
	}
	loc, _ := time.LoadLocation("Europe/Berlin")
	metas, _ := ix.Sessions(context.Background())
	var rows int
	if err := ix.db.QueryRow(`SELECT count(*) FROM usage`).Scan(&rows); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d sessions, %d usage rows", len(metas), rows)
	for _, by := range []string{"day", "model", "project"} {
		b.Run(by, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ix.Usage(context.Background(), UsageQuery{By: by, Loc: loc}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// families maps each listed file's path to the path of the root of its
// family: files joined by their parentSession links.
func families(metas []Meta) map[string]string {
	up := map[string]string{}
	byPath, byID := map[string]bool{}, map[string]string{}
	for _, m := range metas {
		if m.Listed && m.Error == "" {
			byPath[m.Info.Path] = true
			byID[m.SessionID] = m.Info.Path
		}
	}
	for _, m := range metas {
		var p string
		if json.Unmarshal(m.Info.ParentSessionPath, &p) != nil || p == "" {
			continue
		}
		if byPath[p] {
			up[m.Info.Path] = p
		} else if q, ok := byID[pisession.IDFromFileName(p)]; ok && q != m.Info.Path {
			up[m.Info.Path] = q
		}
	}
	root := map[string]string{}
	for path := range byPath {
		r, hops := path, 0
		for up[r] != "" && hops < len(metas) {
			r, hops = up[r], hops+1
		}
		root[path] = r
	}
	return root
}
