package server

import (
	"path/filepath"
	"testing"
	"time"

	"piweb/internal/client"
	"piweb/internal/index"
	"piweb/internal/testkit"
)

// TestSearchPartial: a search that stops at its budget (issue 21 item 11;
// here the budget ends at once) answers 200 with partial set and the count
// said to be a lower bound, not an error.
func TestSearchPartial(t *testing.T) {
	d := seedDemo(t)
	s := newIndexServer(t, index.Options{AgentDir: d.AgentDir, Path: filepath.Join(t.TempDir(), "index.db"),
		Log: testkit.Log(t), SearchBudget: time.Nanosecond, BudgetFrom: -1}, watchOnly)
	t.Cleanup(s.cleanup)
	api := (&rig{t: t, srv: s.srv, ts: s.ts}).api()
	got, err := api.Search(t.Context(), client.SearchOptions{Text: "toggle"})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Partial || !got.CountCapped {
		t.Errorf("search at its budget: partial %v, countCapped %v; want both", got.Partial, got.CountCapped)
	}
}
