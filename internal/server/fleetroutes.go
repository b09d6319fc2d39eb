package server

import "net/http"

// The fleet's routes (issue 22, docs/decisions/0018): a remote session's
// routes are exactly the local ones with ?machine=NAME added. The piweb a
// user uses forwards these, and only these, to the machine that owns the
// session (proxy.go); that machine serves a forwarded request only on
// these routes, and only with the fleet key (fleetpeer.go). Reading a
// remote session (its detail, context, entries, export) is answered from
// the fleet database instead, so that it works while its machine is off.

// Headers of a forwarded request.
const (
	fleetKeyHeader     = "Piweb-Fleet-Key"     // the fleet key (--fleet-key-file)
	fleetMachineHeader = "Piweb-Fleet-Machine" // the machine it is meant for
	fleetFromHeader    = "Piweb-Fleet-From"    // the machine that forwarded it, for the log
	fleetClockHeader   = "Piweb-Fleet-Clock"   // on a refusal of a proof out of its time window: this machine's time
)

// fleetPatterns are the forwarded routes: driving pi (prompts, steer,
// abort and model switches are commands), its event streams, fork and
// clone, files, Changes, Terminal, new sessions in a known folder, and
// share links made, listed and revoked where the session is (decision
// 0046).
var fleetPatterns = []string{
	"POST /api/shares",
	"GET /api/shares",
	"DELETE /api/shares/{shareId}",
	"POST /api/sessions/{id}/commands",
	"GET /api/sessions/{id}/events",
	"GET /api/stream",
	"POST /api/stream/subscribe",
	"POST /api/stream/unsubscribe",
	"GET /api/models",
	"POST /api/sessions/{id}/fork",
	"POST /api/sessions/{id}/clone",
	"GET /api/projects",
	"POST /api/sessions",
	"GET /api/trust",
	"POST /api/trust",
	"GET /api/sessions/{id}/files",
	"GET /api/sessions/{id}/file",
	"GET /api/sessions/{id}/files/events",
	"GET /api/sessions/{id}/files/find",
	"POST /api/sessions/{id}/upload",
	"GET /api/sessions/{id}/git/status",
	"GET /api/sessions/{id}/git/diff",
	"POST /api/sessions/{id}/git/stage",
	"POST /api/sessions/{id}/git/unstage",
	"POST /api/sessions/{id}/git/discard",
	"GET /api/sessions/{id}/git/commits",
	"POST /api/sessions/{id}/git/commits",
	"GET /api/sessions/{id}/changes",
	"GET /api/sessions/{id}/worktrees",
	"POST /api/sessions/{id}/worktrees",
	"POST /api/sessions/{id}/worktrees/remove",
	"GET /api/repos",
	"GET /api/sessions/{id}/terminals",
	"POST /api/sessions/{id}/terminals",
	"GET /api/sessions/{id}/terminals/{tid}/socket",
	"DELETE /api/sessions/{id}/terminals/{tid}",
}

// fleetRoutes matches a request against fleetPatterns with the routes'
// own pattern syntax.
var fleetRoutes = func() *http.ServeMux {
	mux := http.NewServeMux()
	for _, p := range fleetPatterns {
		mux.Handle(p, http.NotFoundHandler())
	}
	return mux
}()

// fleetRoute says whether r is one of the forwarded routes.
func fleetRoute(r *http.Request) bool {
	_, pattern := fleetRoutes.Handler(r)
	return pattern != ""
}

// isFleet says whether r came from another machine of the fleet (it
// carries the key header); guard served it only if the key was right.
func isFleet(r *http.Request) bool { return r.Header.Get(fleetKeyHeader) != "" }
