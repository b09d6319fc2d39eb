package server

import (
	"os"
	"slices"
	"strconv"
	"testing"
	"time"
)

// TestForwardCost measures what forwarding adds to a small answer: the
// same GET …/files on the owner, signed in with the proof as a forwarded
// request is, and through the piweb the user uses (its Peers from a table:
// the fleet database's one-row lookup is not counted). Figures, not a
// check: run with PIWEB_BENCH_PROXY=N requests (bench/NOTES.md).
func TestForwardCost(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("PIWEB_BENCH_PROXY"))
	if n <= 0 {
		t.Skip("PIWEB_BENCH_PROXY=N measures the proxy's cost")
	}
	m := newTwoMachines(t)
	files := "/api/sessions/" + m.farID + "/files"
	proof := m.near.srv.opts.FleetKey.Proof("far", time.Now())
	direct := timeRequests(n, func() { m.far.json("GET", files, nil, 200, fleetKeyHeader, proof, fleetMachineHeader, "far") })
	forwarded := timeRequests(n, func() { m.near.json("GET", files+"?machine=far", nil, 200) })
	t.Logf("GET …/files, %d requests: direct p50 %v p99 %v; forwarded p50 %v p99 %v",
		n, direct[n/2], direct[n*99/100], forwarded[n/2], forwarded[n*99/100])
}

// timeRequests runs do n times and returns the durations, sorted.
func timeRequests(n int, do func()) []time.Duration {
	ds := make([]time.Duration, n)
	for i := range ds {
		start := time.Now()
		do()
		ds[i] = time.Since(start)
	}
	slices.Sort(ds)
	return ds
}
