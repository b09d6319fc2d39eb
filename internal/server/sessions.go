package server

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"piweb/internal/apitype"
	"piweb/internal/catalog"
	"piweb/internal/errs"
	"piweb/internal/ops"
	"piweb/pisession"
)

func (s *Server) getStatus(w http.ResponseWriter, r *http.Request) error {
	version := s.opts.Version
	if version == "" {
		version = "dev"
	}
	st := apitype.Status{Version: version, SignIn: s.auth.required, AgentDir: s.agentDir, Demo: s.opts.Demo,
		Pi: s.agent.Pi(), Index: s.cat.State()}
	st.CanLeave = s.opts.Demo && s.opts.LeaveDemo != nil
	if s.opts.Fleet != nil {
		fs := s.opts.Fleet.Status()
		st.Fleet = &fs
	}
	if s.opts.Demo && s.opts.DemoRealDir != "" {
		n := len(pisession.SessionFiles(s.opts.DemoRealDir))
		st.RealSessions, st.RealAgentDir = &n, s.opts.DemoRealDir
	}
	return ok(w, st)
}

// leaveDemo answers POST /api/demo/leave: in the demo, serve is asked to
// switch to the user's own agent dir once this answer is out (the switch
// ends this server and its requests, so it cannot wait for them);
// outside the demo there is nothing to leave.
func (s *Server) leaveDemo(w http.ResponseWriter, r *http.Request) error {
	leaving := s.opts.Demo && s.opts.LeaveDemo != nil
	if err := ok(w, apitype.Leave{Leaving: leaving}); err != nil || !leaving {
		return err
	}
	go s.opts.LeaveDemo()
	return nil
}

// intParam reads a non-negative integer query parameter.
func intParam(r *http.Request, name string, def, max int) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, errs.Errorf(errs.Invalid, "%s must be a non-negative integer", name)
	}
	if max > 0 && n > max {
		return 0, errs.Errorf(errs.Invalid, "%s must be at most %d", name, max)
	}
	return n, nil
}

var sortKeys = map[string]bool{"modified": true, "created": true, "name": true, "messages": true, "size": true}

func (s *Server) listSessions(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	lq := ListQuery{Project: q.Get("project"), Text: q.Get("q"), Sort: q.Get("sort")}
	if lq.Sort == "" {
		lq.Sort = "modified"
	}
	if !sortKeys[lq.Sort] {
		return errs.Errorf(errs.Invalid, "sort must be modified, created, name, messages or size")
	}
	switch q.Get("order") {
	case "", "desc":
	case "asc":
		lq.Asc = true
	default:
		return errs.Errorf(errs.Invalid, "order must be asc or desc")
	}
	var err error
	if lq.Limit, err = intParam(r, "limit", 0, 10000); err != nil {
		return err
	}
	if lq.Offset, err = intParam(r, "offset", 0, 0); err != nil {
		return err
	}
	if q.Has("fleet") {
		return s.fleetAnswer(w, func(f Fleet) (any, error) { return f.Sessions(r.Context(), lq, q.Get("machine")) })
	}
	src, err := s.pageSource(r, &lq)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Vary", "Accept-Encoding")
	gzipOK := strings.Contains(r.Header.Get("Accept-Encoding"), "gzip")
	if lq.Limit == 0 { // the whole listing: written as it is encoded, kept nowhere
		return catalog.StreamList(w, gzipOK, src, func() {
			if gzipOK {
				h.Set("Content-Encoding", "gzip")
			}
		})
	}
	body, gz, err := s.lists.Get(r.URL.RawQuery, lq.Text == "", src)
	if err != nil {
		return err
	}
	if gz != nil && gzipOK {
		h.Set("Content-Encoding", "gzip")
		body = gz
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
	return nil
}

// pageSource reads the sidebar's parameters of GET /api/sessions into lq
// (archived=hide|only, pinned=first: the pins and archive of GET
// /api/order) and returns the listing's source.
func (s *Server) pageSource(r *http.Request, lq *ListQuery) (catalog.ListSource, error) {
	q := r.URL.Query()
	src := s.listSource(func() (catalog.Listed, error) { return s.cat.Page(r.Context(), *lq) })
	mode, pins := q.Get("archived"), q.Get("pinned")
	if mode == "" && pins == "" {
		return src, nil
	}
	if mode != "" && mode != "hide" && mode != "only" || pins != "" && pins != "first" {
		return src, errs.Errorf(errs.Invalid, "archived must be hide or only, pinned first")
	}
	order := s.order.State()
	if mode != "" {
		only := mode == "only"
		lq.Keep = func(m Meta) bool { _, a := order.Archived[m.Key]; return a == only }
		lq.Counts = true
		src.Archived = func(l catalog.Listed) int { return map[bool]int{true: l.Total, false: l.Left}[only] }
	}
	if pins != "" {
		lq.First = func(m Meta) bool { _, p := order.Pinned[m.Key]; return p }
	}
	return src, nil
}

// listSource is a listing of the catalog for the list cache.
func (s *Server) listSource(list func() (catalog.Listed, error)) catalog.ListSource {
	return catalog.ListSource{List: list, Links: s.live.Links,
		Gen: func() catalog.Gen {
			return catalog.Gen{Catalog: s.cat.Generation(), Running: s.live.RunGen(), Order: s.order.Generation()}
		}}
}

// listProjects lists the folders of the sessions, newest first, each
// marked missing when it is no folder here (a new session cannot start
// there; the page offers the others).
func (s *Server) listProjects(w http.ResponseWriter, r *http.Request) error {
	metas, _, err := s.cat.List(r.Context(), ListQuery{Sort: "modified"})
	ps := catalog.Projects(metas)
	for _, p := range ps {
		fi, err := os.Stat(p.Cwd)
		p.Missing = err != nil || !fi.IsDir()
	}
	return answer(w, apitype.ProjectList{Projects: ps}, err)
}

// lookup finds the session named by the {id} path value.
// Another machine's session (?machine=) is read-only here: only the read
// routes (open) answer for it, and no other route may act on a local
// session of the same id instead.
func (s *Server) lookup(r *http.Request) (Meta, error) {
	machine, err := s.remoteMachine(r)
	if err != nil {
		return Meta{}, err
	}
	if machine != "" {
		return Meta{}, errs.Errorf(errs.Forbidden, "read-only: this session is on machine %s, whose piweb does not take it from here", machine)
	}
	return s.lookupID(r.Context(), r.PathValue("id"))
}

// sessionHandler is a handler of a route under /api/sessions/{id} that
// needs only the session's listing.
type sessionHandler func(w http.ResponseWriter, r *http.Request, m Meta) error

// withSession finds the session named by {id} (404 when none) for h.
func (s *Server) withSession(h sessionHandler) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		m, err := s.lookup(r)
		if err != nil {
			return err
		}
		return h(w, r, m)
	}
}

// settleWait bounds how long a lookup that missed waits for the catalog
// to list the changes it holds back (see Catalog.Settle).
const settleWait = 2 * time.Second

// lookupID finds the session with the given id; a miss waits for the
// catalog to catch up while ctx lasts.
func (s *Server) lookupID(ctx context.Context, id string) (Meta, error) {
	if m, found := s.cat.ByKey(id); found {
		return m, nil
	}
	if m, found := s.live.Pending(id); found {
		m.Key = m.ID // a new session, not indexed yet: no copy shares its id
		return m, nil
	}
	// A page may ask as soon as the live events said the file is back,
	// before the catalog reloaded it: it is asked to catch up, once, for
	// as long as the request lasts (at most settleWait).
	ctx, cancel := context.WithTimeout(ctx, settleWait)
	defer cancel()
	s.cat.Settle(ctx)
	if m, found := s.cat.ByKey(id); found {
		return m, nil
	}
	return Meta{}, errs.Errorf(errs.NotFound, "session not found")
}

// load returns the current parse of the session file at path (cached).
func (s *Server) load(path string) (*pisession.Session, error) {
	sess, err := s.cache.Load(path)
	if err != nil {
		return nil, err
	}
	return sess, nil
}

// open finds and parses the session named by {id}.
func (s *Server) open(r *http.Request) (Meta, *pisession.Session, error) {
	if machine, err := s.remoteMachine(r); err != nil || machine != "" {
		if err != nil {
			return Meta{}, nil, err
		}
		return s.openRemote(r, machine)
	}
	m, err := s.lookup(r)
	if err != nil {
		return m, nil, err
	}
	sess, err := s.loadMeta(m)
	return m, sess, err
}

// loadMeta parses the local session m (cached); a new session pi has not
// written yet is empty.
func (s *Server) loadMeta(m Meta) (*pisession.Session, error) {
	sess, err := s.load(m.Path)
	if errs.Is(err, errs.NotFound) {
		if _, pending := s.live.Pending(m.ID); pending {
			return pisession.Parse(nil), nil // pi has not written it yet
		}
	}
	if err != nil {
		return nil, err
	}
	return sess, nil
}

func (s *Server) getSession(w http.ResponseWriter, r *http.Request) error {
	machine, err := s.remoteMachine(r)
	if err != nil {
		return err
	}
	if machine != "" {
		m, sess, err := s.openRemote(r, machine)
		if err != nil {
			return err
		}
		d := ops.RemoteDetail(m, sess)
		d.Session.Machine = machine // an Item of the fleet says its machine
		return writeDetail(w, d)
	}
	m, err := s.lookupID(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	if d, ok := s.scanDetail(m); ok {
		return writeDetail(w, d)
	}
	sess, err := s.loadMeta(m)
	if err != nil {
		return err
	}
	return writeDetail(w, s.ops.Detail(m, sess))
}

// scanDetail is the detail of the local session m if its parse is not cached,
// from a scan of its file (ops.ScanDetail): opening a huge session then
// parses nothing (its context's page comes from the index, tailContext).
// ok is false when the parse answers (a cached one, or a file the scan
// does not take).
func (s *Server) scanDetail(m Meta) (apitype.SessionDetail, bool) {
	if s.cache.Ready(m.Path) {
		return apitype.SessionDetail{}, false
	}
	return s.ops.ScanDetail(m)
}

// pageBounds computes a backwards page over n items: the items before
// cursor `before` (default n), at most limit of them (0: all).
func pageBounds(r *http.Request, n int) (start, end int, err error) {
	end = n
	if v := r.URL.Query().Get("before"); v != "" {
		b, perr := strconv.Atoi(v)
		if perr != nil || b < 0 || b > n {
			return 0, 0, errs.Errorf(errs.Invalid, "bad before cursor")
		}
		end = b
	}
	limit, err := intParam(r, "limit", 0, 0)
	if err != nil {
		return 0, 0, err
	}
	start = 0
	if limit > 0 {
		start = max(0, end-limit)
	}
	return start, end, nil
}

// openAt is open with the entry ?leaf= names (default the file's leaf).
func (s *Server) openAt(r *http.Request) (Meta, *pisession.Session, *pisession.Entry, error) {
	m, sess, err := s.open(r)
	if err != nil {
		return m, nil, nil, err
	}
	id := r.URL.Query().Get("leaf")
	if id == "" {
		return m, sess, sess.Leaf(), nil
	}
	if e := sess.ByID(id); e != nil {
		return m, sess, e, nil
	}
	return m, nil, nil, errs.Errorf(errs.NotFound, "entry not found")
}

func (s *Server) getContext(w http.ResponseWriter, r *http.Request) error {
	if done, err := s.tailContext(w, r); done || err != nil {
		return err
	}
	_, sess, leaf, err := s.openAt(r)
	if err != nil {
		return err
	}
	c := sess.ContextAt(leaf)
	start, end, err := pageBounds(r, len(c.Messages))
	if err != nil {
		return err
	}
	out, msgs := ops.ContextPage(sess, leaf, c, start, end)
	return okVerbatim(w, out, "messages", msgs)
}

// tailContext answers a page of the context at the file's leaf from the
// index, without parsing the file (ops.TailPage), when no current parse
// is cached; done is false when the index cannot answer. The whole
// context (no limit) is left to the parse, which the cache keeps for the
// next reader.
func (s *Server) tailContext(w http.ResponseWriter, r *http.Request) (done bool, err error) {
	if q := r.URL.Query(); q.Get("leaf") != "" || q.Get("limit") == "" || q.Get("limit") == "0" {
		return false, nil
	}
	if machine, err := s.remoteMachine(r); err != nil || machine != "" {
		return false, nil
	}
	m, err := s.lookupID(r.Context(), r.PathValue("id"))
	if err != nil || s.cache.Ready(m.Path) {
		return false, nil
	}
	out, msgs, ok, err := s.ops.TailPage(r.Context(), m.Path, func(n int) (int, int, error) { return pageBounds(r, n) })
	if err != nil || !ok {
		return err != nil, err
	}
	return true, okVerbatim(w, out, "messages", msgs)
}

func (s *Server) getEntries(w http.ResponseWriter, r *http.Request) error {
	_, sess, leaf, err := s.openAt(r)
	if err != nil {
		return err
	}
	var path []*pisession.Entry
	if leaf != nil {
		path = sess.PathTo(leaf)
	}
	start, end, err := pageBounds(r, len(path))
	if err != nil {
		return err
	}
	out, entries := ops.EntriesPage(path, leaf, start, end)
	return okVerbatim(w, out, "entries", entries)
}

func (s *Server) search(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query().Get("q")
	if q == "" {
		return errs.Errorf(errs.Invalid, "q is required")
	}
	limit, err := intParam(r, "limit", 50, 500)
	if err != nil {
		return err
	}
	sq := catalog.ParseSearch(searchText(r.URL.Query()), searchZone(r.URL.Query().Get("tz")))
	sq.Project, sq.Limit = r.URL.Query().Get("project"), limit
	if r.URL.Query().Has("fleet") {
		return s.fleetAnswer(w, func(f Fleet) (any, error) { return f.Search(r.Context(), sq) })
	}
	a, err := s.ops.Search(r.Context(), sq)
	return answer(w, a, err)
}

// searchFilterParams are the search filters that may also come as
// parameters (the typed client's); they join the text as key:value, so
// that ParseSearch stays the one reader of filters.
var searchFilterParams = []string{"role", "model", "branch", "after", "before"}

// searchText is q with the filter parameters of v.
func searchText(v url.Values) string {
	text := v.Get("q")
	for _, k := range searchFilterParams {
		for _, val := range v[k] {
			if strings.ContainsAny(val, " \t\"") {
				val = `"` + strings.ReplaceAll(val, `"`, "") + `"`
			}
			text += " " + k + ":" + val
		}
	}
	return text
}

// searchZone is the time zone of after: and before: dates: the page's
// (tz=Area/City), UTC when it is not given or not known.
func searchZone(tz string) *time.Location {
	if l, err := time.LoadLocation(tz); err == nil && tz != "" {
		return l
	}
	return time.UTC
}
