package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"sync"
	"time"

	"piweb/internal/broker"
)

// Service is what the web server drives: pi workers per session behind
// one interface (Adapter), taking the API's JSON commands and
// answering with pi's data or this package's typed errors (ErrPiMissing,
// ErrBusy, ErrStale, ErrAtCapacity, *CommandError, *RefusedError,
// *RequestError, ...), which the server maps to HTTP status in its one
// error table.
type Service struct {
	sup    *Supervisor
	base   Options
	status PiStatus

	// fetch lets one request at a time ask pi for the models, so that
	// requests arriving together (the app's tabs opening) start one pi,
	// not one each, and the others read what it cached.
	fetch  sync.Mutex
	mu     sync.Mutex
	models json.RawMessage
	at     time.Time
	gen    uint64 // bumped by ForgetModels: a fetch begun before is not cached
	fresh  time.Duration
	behind sync.WaitGroup // the background refresh of the models, if any
	ending context.Context
	end    context.CancelFunc
}

// DefaultModelsFresh is Config.ModelsFresh's default. Every change piweb
// makes (a sign-in, models.json, settings, a package) drops the list at
// once (ForgetModels); the refresh behind catches the user's own edits
// and sign-ins in a terminal. A list is asked of a short-lived pi (~1.5 s
// of a core), so another machine's page opening its picker (forwarded
// here) waited for one every minute before.
const DefaultModelsFresh = 10 * time.Minute

// NewService starts a supervisor built from cfg; cfg.Base.Pi is the
// located executable (its absence is reported by NoService instead).
func NewService(cfg Config) (*Service, error) {
	st := PiStatus{Found: true, Install: InstallHint}
	if p := cfg.Base.Pi; p != nil {
		st.Path, st.Version = p.Path, p.Version.String()
	}
	sup, err := NewSupervisor(cfg)
	if err != nil {
		return nil, fmt.Errorf("start the agent supervisor: %w", err)
	}
	ending, end := context.WithCancel(context.Background())
	return &Service{sup: sup, base: cfg.Base, status: st, fresh: cmp.Or(cfg.ModelsFresh, DefaultModelsFresh),
		ending: ending, end: end}, nil
}

// Events is the broker the workers publish to (Config.Events): the server
// streams from it.
func (a *Service) Events() *broker.Broker[Event] { return a.sup.events }

// FileGrew hands appended lines to the session's live worker
// (Supervisor.FileGrew).
func (a *Service) FileGrew(path string, from int64, lines []byte) { a.sup.FileGrew(path, from, lines) }

// Supervisor exposes the wrapped supervisor (for tests and demo setup).
func (a *Service) Supervisor() *Supervisor { return a.sup }

func (a *Service) Pi() PiStatus { return a.status }

func (a *Service) Running(path string) bool {
	if path == "" {
		return false
	}
	w := a.sup.Live(path)
	return w != nil && w.Status().Busy()
}

func (a *Service) State(path string) string {
	if path == "" {
		return ""
	}
	if w := a.sup.Live(path); w != nil {
		return string(w.Status().Phase)
	}
	return ""
}

// OwnSince is the live worker's Worker.OwnSince; ok is false when no
// worker runs on the file.
func (a *Service) OwnSince(ctx context.Context, path string) (base string, ok bool, err error) {
	if w := a.sup.Live(path); path != "" && w != nil {
		return w.OwnSince(ctx)
	}
	return "", false, nil
}

func (a *Service) Stop(ctx context.Context, path string) error {
	a.sup.Stop(ctx, path)
	return nil
}

func (a *Service) Close(ctx context.Context) error {
	a.end()
	a.behind.Wait()
	return a.sup.Close(ctx)
}

// Approve is Supervisor.Approve: the session's pi loads its project
// resources for this session only (--approve).
func (a *Service) Approve(ctx context.Context, path string) error { return a.sup.Approve(ctx, path) }

// Approved reports whether the session's pi starts with --approve.
func (a *Service) Approved(path string) bool { return path != "" && a.sup.Approved(path) }

// Rename names the session through its live worker (pi keeps the name in
// memory), or with offline, which writes the file, when none runs; no pi
// starts on the file while offline runs.
func (a *Service) Rename(ctx context.Context, path, name string, offline func() error) error {
	return a.sup.Exclusive(ctx, path,
		func(w *Worker) error { return w.Do(func(c *Client) error { return c.SetSessionName(ctx, name) }) },
		offline)
}

// Label sets (or, with "", clears) an entry's label as Rename names.
func (a *Service) Label(ctx context.Context, path, entryID, label string, offline func() error) error {
	return a.sup.Exclusive(ctx, path, func(w *Worker) error { return w.SetLabel(ctx, entryID, label) }, offline)
}

// Create starts pi in cwd with the chosen model, thinking level and tools
// (on pi's command line, so the user's defaults stay as they are) and sends
// the first message.
func (a *Service) Create(ctx context.Context, req CreateRequest) (string, string, error) {
	tools, err := toolList(req.Tools)
	if err != nil {
		return "", "", err
	}
	w, err := a.sup.StartNewWith(ctx, req.Cwd, NewSession{Model: req.Model, Thinking: req.ThinkingLevel, Tools: tools, Approve: req.Approve})
	if err != nil {
		return "", "", err
	}
	st := w.State()
	err = w.Prompt(ctx, req.Message, PromptOptions{Images: images(req.Images)})
	return st.SessionID, st.SessionFile, err
}

// toolSets are pi 0.73's tool groups (core/tools/index.js): its coding
// tools are the default, the read-only set and every built-in tool.
var toolSets = map[string][]string{
	"none":      {},
	"read-only": {"read", "grep", "find", "ls"},
	"default":   nil,
	"all":       {"read", "bash", "edit", "write", "grep", "find", "ls"},
}

// toolList turns the request's tools (a preset name or a list of names,
// already validated) into pi's --tools list; nil means pi's default.
func toolList(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var preset string
	if json.Unmarshal(raw, &preset) == nil {
		return toolSets[preset], nil
	}
	list := []string{}
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, badRequest("tools must be a preset name or a list of names")
	}
	return list, nil
}

func images(raws []json.RawMessage) []Image {
	var out []Image
	for _, r := range raws {
		var im Image
		if json.Unmarshal(r, &im) == nil {
			out = append(out, im)
		}
	}
	return out
}

// abortTypes need no worker: with none running there is nothing to stop.
var abortTypes = map[string]bool{"abort": true, "abort_bash": true, "abort_retry": true, "abort_compaction": true}

// Command relays one command to the session's worker.
func (a *Service) Command(ctx context.Context, path string, cmd json.RawMessage) (json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(cmd, &fields); err != nil {
		return nil, badRequest("command must be a JSON object")
	}
	var typ string
	json.Unmarshal(fields["type"], &typ)
	delete(fields, "type")
	if abortTypes[typ] && a.sup.Live(path) == nil {
		return nil, nil
	}
	w, err := a.sup.Worker(ctx, path)
	if err != nil {
		return nil, err
	}
	switch typ {
	case "prompt", "steer", "follow_up":
		d, err := a.prompt(ctx, w, typ, fields)
		if err != nil {
			return nil, err
		}
		return json.Marshal(map[string]Disposition{"disposition": d})
	case "get_available_thinking_levels":
		levels, err := w.ThinkingLevels(ctx)
		if err != nil {
			return nil, err
		}
		return json.Marshal(map[string][]string{"levels": levels})
	case "ui_response":
		return nil, answerUI(w, fields)
	case "navigate":
		return navigate(ctx, w, fields)
	case "abort_compaction":
		res, err := a.sup.AbortCompaction(ctx, path)
		if err != nil {
			return nil, err
		}
		return json.Marshal(res)
	}
	var resp Response
	err = w.Do(func(c *Client) error {
		var err error
		resp, err = c.Call(ctx, typ, fields)
		return err
	})
	return resp.Data, err
}

func (a *Service) prompt(ctx context.Context, w *Worker, typ string, f map[string]json.RawMessage) (Disposition, error) {
	var p struct {
		Message           string            `json:"message"`
		Images            []json.RawMessage `json:"images"`
		StreamingBehavior string            `json:"streamingBehavior"`
		Force             bool              `json:"force"`
		ExpectLeaf        string            `json:"expectLeaf"`
	}
	b, _ := json.Marshal(f)
	if err := json.Unmarshal(b, &p); err != nil {
		return "", badRequest("bad prompt fields")
	}
	o := PromptOptions{Images: images(p.Images), Behavior: p.StreamingBehavior, Force: p.Force, ExpectLeaf: p.ExpectLeaf}
	switch typ {
	case "steer":
		o.Behavior = Steer
	case "follow_up":
		o.Behavior = FollowUp
	}
	return w.Submit(ctx, p.Message, o)
}

// navigate moves the leaf in place through the bridge extension.
func navigate(ctx context.Context, w *Worker, f map[string]json.RawMessage) (json.RawMessage, error) {
	var n struct {
		EntryID      string `json:"entryId"`
		Summarize    bool   `json:"summarize"`
		Instructions string `json:"instructions"`
		Label        string `json:"label"`
		ExpectLeaf   string `json:"expectLeaf"`
	}
	b, _ := json.Marshal(f)
	if json.Unmarshal(b, &n) != nil || n.EntryID == "" {
		return nil, badRequest("navigate needs entryId")
	}
	if n.ExpectLeaf != "" {
		// The page moves from the file as it shows it: pi adopts what
		// another process appended first, as before a prompt.
		if err := w.checkStale(ctx, PromptOptions{ExpectLeaf: n.ExpectLeaf}); err != nil {
			return nil, err
		}
	}
	res, err := w.NavigateTree(ctx, n.EntryID, TreeOptions{Summarize: n.Summarize,
		CustomInstructions: n.Instructions, Label: n.Label})
	if err != nil {
		return nil, err
	}
	var leaf any
	if res.Leaf != "" {
		leaf = res.Leaf
	}
	out, _ := json.Marshal(map[string]any{"leaf": leaf, "cancelled": res.Cancelled, "editorText": res.EditorText})
	return out, nil
}

func answerUI(w *Worker, f map[string]json.RawMessage) error {
	var u struct {
		RequestID string  `json:"requestId"`
		Value     *string `json:"value"`
		Confirmed *bool   `json:"confirmed"`
		Cancelled bool    `json:"cancelled"`
	}
	b, _ := json.Marshal(f)
	if json.Unmarshal(b, &u) != nil || u.RequestID == "" {
		return badRequest("ui_response needs requestId")
	}
	return w.AnswerUI(u.RequestID, UIAnswer{Value: u.Value, Confirmed: u.Confirmed, Cancelled: u.Cancelled})
}

// Models asks pi for its available models through a short-lived pi, and
// keeps the list: fresh (Config.ModelsFresh) it is the answer; older it
// is the answer too while one pi refreshes it behind, so that only the
// first request waits for a pi.
func (a *Service) Models(ctx context.Context) (json.RawMessage, error) {
	if m, fresh := a.cachedModels(); m != nil {
		if !fresh {
			a.refreshModels()
		}
		return m, nil
	}
	return a.fetchModels(ctx)
}

// refreshModels fetches the models behind, unless a fetch runs already.
func (a *Service) refreshModels() {
	if a.ending.Err() != nil || !a.fetch.TryLock() {
		return // closing, or a fetch runs: it brings the new list
	}
	a.behind.Add(1)
	go func() {
		defer a.behind.Done()
		defer a.fetch.Unlock()
		ctx, cancel := context.WithTimeout(a.ending, 2*time.Minute)
		defer cancel()
		a.fetchModelsLocked(ctx) // a failure keeps the old list; the next request tries again
	}()
}

// fetchModels asks a short-lived pi for the models, one fetch at a time:
// requests arriving together (the app's tabs opening) start one pi, and
// the others answer the list it brought.
func (a *Service) fetchModels(ctx context.Context) (json.RawMessage, error) {
	a.fetch.Lock()
	defer a.fetch.Unlock()
	if m, _ := a.cachedModels(); m != nil {
		return m, nil // another request fetched them meanwhile
	}
	return a.fetchModelsLocked(ctx)
}

// fetchModelsLocked asks pi, holding a.fetch, and keeps the answer
// unless ForgetModels ran meanwhile.
func (a *Service) fetchModelsLocked(ctx context.Context) (json.RawMessage, error) {
	a.mu.Lock()
	gen := a.gen
	a.mu.Unlock()
	o := a.base
	o.NoSession, o.SessionFile, o.OnEvent = true, "", nil
	c, _, err := Start(ctx, o)
	if err != nil {
		return nil, err
	}
	defer c.Close(context.Background(), time.Second)
	models, err := c.GetAvailableModels(ctx)
	if err != nil {
		return nil, err
	}
	b, _ := json.Marshal(map[string]any{"models": models})
	a.mu.Lock()
	if a.gen == gen {
		a.models, a.at = b, time.Now()
	}
	a.mu.Unlock()
	return b, nil
}

// cachedModels returns the model list kept, if any, and whether it is
// fresh.
func (a *Service) cachedModels() (json.RawMessage, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.models, time.Since(a.at) < a.fresh
}

// ForgetModels drops the cached model list (after models.json changed).
func (a *Service) ForgetModels() {
	a.mu.Lock()
	a.models = nil
	a.gen++
	a.mu.Unlock()
}

// PiCommand is pi started for one of its own commands (args, e.g. "auth",
// "login", "anthropic", "--no-browser") as the workers' pi is: the same
// executable and Node, agent dir (PI_CODING_AGENT_DIR) and added
// environment, in the workers' directory; but without the PI_OFFLINE=1
// the workers get, as in the user's terminal: with it pi 1.6.0 skips the
// provider's model catalog refresh after a sign-in (ModelRuntime's
// modelNetworkEnabled). The caller starts it.
func (a *Service) PiCommand(ctx context.Context, args ...string) (*exec.Cmd, error) {
	pi := a.base.Pi
	if pi == nil {
		var err error
		if pi, err = Find(ctx, ""); err != nil {
			return nil, err
		}
	}
	return a.base.piCommand(pi, args, false), nil
}

// LiveCount reports how many pi processes run now.
func (s *Service) LiveCount() int { return s.sup.LiveCount() }
