package server

import (
	"net/http"
	"net/http/pprof"

	"piweb/internal/errs"
)

// routes is the whole API surface; docs/api.md documents each route.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	h := func(pattern string, fn handlerFunc) { mux.HandleFunc(pattern, s.adapt(fn)) }

	h("GET /auth", s.serveAuth)
	h("POST /api/signout", s.signOut)
	h("GET /api/status", s.getStatus)
	h("POST /api/demo/leave", s.leaveDemo)

	// Browsing.
	h("GET /api/sessions", s.listSessions)
	h("GET /api/projects", s.listProjects)
	h("GET /api/sessions/{id}", s.getSession)
	h("GET /api/sessions/{id}/context", s.getContext)
	h("GET /api/sessions/{id}/entries", s.getEntries)
	h("GET /api/search", s.search)
	h("GET /api/fleet/machines", s.machines)
	h("GET /api/usage", s.getUsage)
	h("GET /api/usage/sessions", s.getUsageSessions)

	// Mutations.
	h("POST /api/sessions/{id}/rename", s.rename)
	h("POST /api/sessions/{id}/label", s.label)
	h("POST /api/sessions/{id}/repair", s.repair)
	h("DELETE /api/sessions/{id}", s.deleteSession)
	h("GET /api/trash", s.listTrash)
	h("POST /api/trash/{trashId}/restore", s.restore)
	h("DELETE /api/trash/{trashId}", s.deleteForever)
	h("GET /api/backups", s.listBackups)
	h("POST /api/sessions/{id}/fork", s.fork)
	h("POST /api/sessions/{id}/clone", s.clone)
	h("GET /api/sessions/{id}/export", s.export)
	h("POST /api/export", s.exportMany)

	// Agent.
	h("POST /api/sessions", s.createSession)
	h("POST /api/sessions/{id}/commands", s.command)
	h("GET /api/sessions/{id}/events", s.withSession(s.sessionEvents))
	h("GET /api/events", s.indexEvents)
	h("GET /api/stream", s.stream)
	h("POST /api/stream/subscribe", s.subscribe)
	h("POST /api/stream/unsubscribe", s.unsubscribe)
	h("GET /api/trust", s.getTrust)
	h("POST /api/trust", s.postTrust)

	// Models.
	h("GET /api/models", s.getModels)
	h("GET /api/models-config", s.getModelsConfig)
	h("PUT /api/models-config", s.putModelsConfig)

	// pi's configuration (settings.json, auth.json).
	h("GET /api/config", s.getConfig)
	h("PUT /api/config/settings", s.putSettings)
	h("PUT /api/config/auth/{provider}", s.putKey)
	h("DELETE /api/config/auth/{provider}", s.deleteKey)
	h("POST /api/config/test", s.testModel)
	h("GET /api/config/resources", s.getResources)
	h("PUT /api/config/resources", s.putResource)
	h("PUT /api/config/mcp", s.putMCP)
	h("POST /api/config/mcp/piweb", s.postPiwebMCP)
	h("POST /api/config/packages", s.postPackage)
	// Account sign-in through pi's own `pi auth login` on a PTY (login.go).
	h("POST /api/config/signin/{provider}", s.startSignIn)
	h("GET /api/config/signin/{provider}", s.getSignIn)
	h("POST /api/config/signin/{provider}/answer", s.answerSignIn)
	h("DELETE /api/config/signin/{provider}", s.cancelSignIn)

	// piweb's own preferences (not pi's).
	h("GET /api/prefs", s.getPrefs)
	h("PUT /api/prefs", s.putPrefs)

	// Read-only share links (shares.go), and what one opens without
	// sign-in (sharepage.go): these GETs under /share/ and nothing else.
	h("GET /api/shares", s.listShares)
	h("POST /api/shares", s.postShare)
	h("DELETE /api/shares/{shareId}", s.deleteShare)
	h("GET /share/{token}", s.sharePage)
	h("GET /share/{token}/version", s.shareVersion)
	h("GET /share/live.js", s.shareScript)
	h("GET /share/", s.shareNotFound)

	// Web Push.
	h("GET /api/push/key", s.getPushKey)
	h("POST /api/push/subscribe", s.pushSubscribe)
	h("POST /api/push/unsubscribe", s.pushUnsubscribe)

	// Pins and archive (they follow the user across devices).
	h("GET /api/order", s.getOrder)
	h("POST /api/order", s.postOrder)

	// Read marks and mutes (they follow the user across devices).
	h("GET /api/attention", s.getAttention)
	h("POST /api/attention/read", s.postRead)
	h("POST /api/attention/mute", s.postMute)

	// Files of a session's cwd.
	h("GET /api/sessions/{id}/files", s.withSession(s.listFiles))
	h("GET /api/sessions/{id}/file", s.withSession(s.readFile))
	h("GET /api/sessions/{id}/files/events", s.withSession(s.fileEvents))
	h("GET /api/sessions/{id}/files/find", s.withSession(s.findFiles))
	h("POST /api/sessions/{id}/upload", s.withSession(s.upload))

	// Changes: git's view of the session's cwd, and the session's own edits.
	h("GET /api/sessions/{id}/git/status", s.withSession(s.gitStatus))
	h("GET /api/sessions/{id}/git/diff", s.withSession(s.gitDiff))
	h("POST /api/sessions/{id}/git/stage", s.withSession(s.gitStage))
	h("POST /api/sessions/{id}/git/unstage", s.withSession(s.gitUnstage))
	h("POST /api/sessions/{id}/git/discard", s.withSession(s.gitDiscard))
	h("GET /api/sessions/{id}/git/commits", s.withSession(s.gitCommits))
	h("POST /api/sessions/{id}/git/commits", s.withSession(s.gitCommit))
	h("GET /api/sessions/{id}/changes", s.sessionChanges)
	h("GET /api/sessions/{id}/worktrees", s.withSession(s.listWorktrees))
	h("POST /api/sessions/{id}/worktrees", s.withSession(s.addWorktree))
	h("POST /api/sessions/{id}/worktrees/remove", s.withSession(s.removeWorktree))
	h("GET /api/repos", s.listRepos)

	// Terminals in a session's cwd (terminal.go): started by POST only,
	// the GET attaches a WebSocket to a running one.
	h("GET /api/sessions/{id}/terminals", s.withSession(s.listTerminals))
	h("POST /api/sessions/{id}/terminals", s.startTerminal)
	h("GET /api/sessions/{id}/terminals/{tid}/socket", s.terminalSocket)
	h("DELETE /api/sessions/{id}/terminals/{tid}", s.closeTerminal)

	s.debugRoutes(mux)

	h("/api/", func(w http.ResponseWriter, r *http.Request) error {
		return unknownRoute(mux, r)
	})
	mux.Handle("/", s.webHandler())
	return mux
}

// unknownRoute tells a wrong method (405) from a wrong path (404), in the
// API's JSON error shape.
func unknownRoute(mux *http.ServeMux, r *http.Request) error {
	for _, m := range []string{"GET", "POST", "PUT", "DELETE"} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := mux.Handler(probe); pattern != "/api/" && pattern != "" {
			return errs.Errorf(errs.MethodNotAllowed, "method %s not allowed here", r.Method)
		}
	}
	return errs.Errorf(errs.NotFound, "no such API route")
}

// debugRoutes adds GET /metrics and the runtime's profiles under
// /debug/pprof/ when the server has a metrics registry (metrics.go). Like
// every route they are behind the server's checks (guard): the owner only.
func (s *Server) debugRoutes(mux *http.ServeMux) {
	if s.opts.Metrics == nil {
		return
	}
	mux.Handle("GET /metrics", s.opts.Metrics.Handler())
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
}
