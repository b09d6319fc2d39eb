package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"piweb/internal/agent"
)

// PiAgent adapts the agent package's Supervisor to the server's Agent.
type PiAgent struct {
	sup    *agent.Supervisor
	base   agent.Options
	status PiStatus

	// fetch lets one request at a time ask pi for the models, so that
	// requests arriving together (the app's tabs opening) start one pi,
	// not one each, and the others read what it cached.
	fetch  sync.Mutex
	mu     sync.Mutex
	models json.RawMessage
	at     time.Time
	gen    uint64 // bumped by ForgetModels: a fetch begun before is not cached
}

// NewPiAgent wraps a supervisor built from cfg; pi is the located
// executable (its absence is reported by NoAgent instead).
func NewPiAgent(cfg agent.Config) (*PiAgent, error) {
	st := PiStatus{Found: true, Install: InstallHint}
	if p := cfg.Base.Pi; p != nil {
		st.Path, st.Version = p.Path, p.Version.String()
	}
	// The page still draws from 0.73's cumulative message_update; this goes
	// when it assembles messages from deltas (the 1.x shape).
	cfg.CumulativeUpdates = true
	sup, err := agent.NewSupervisor(cfg)
	if err != nil {
		return nil, fmt.Errorf("start the agent supervisor: %w", err)
	}
	return &PiAgent{sup: sup, base: cfg.Base, status: st}, nil
}

// Supervisor exposes the wrapped supervisor (for tests and demo setup).
func (a *PiAgent) Supervisor() *agent.Supervisor { return a.sup }

func (a *PiAgent) Pi() PiStatus { return a.status }

func (a *PiAgent) Running(path string) bool {
	if path == "" {
		return false
	}
	w := a.sup.Live(path)
	return w != nil && w.Status().Busy()
}

func (a *PiAgent) State(path string) string {
	if path == "" {
		return ""
	}
	if w := a.sup.Live(path); w != nil {
		return string(w.Status().Phase)
	}
	return ""
}

func (a *PiAgent) Stop(ctx context.Context, path string) error {
	a.sup.Stop(ctx, path)
	return nil
}

func (a *PiAgent) Close(ctx context.Context) error { return a.sup.Close(ctx) }

// Watch follows the session's hub from now on, resubscribing after a lag
// and reporting lost events as a reset.
func (a *PiAgent) Watch(path string, fromStart bool, fn func([]byte)) func() {
	hub := a.sup.Hub(path)
	stop := make(chan struct{})
	var once sync.Once
	after := hub.Last()
	if fromStart {
		after = 0
	}
	go func() {
		for {
			replay, sub, complete := hub.Subscribe(after)
			if !complete && after > 0 {
				fn([]byte(`{"type":"reset"}`))
			}
			for _, ev := range replay {
				fn(ev.Raw)
				after = ev.Seq
			}
			for open := true; open; {
				select {
				case <-stop:
					sub.Close()
					return
				case ev, more := <-sub.C:
					if !more {
						open = false
						break
					}
					fn(ev.Raw)
					after = ev.Seq
				}
			}
			if !sub.Lagged() {
				return // the hub closed
			}
		}
	}()
	return func() { once.Do(func() { close(stop) }) }
}

func (a *PiAgent) Rename(ctx context.Context, path, name string) (bool, error) {
	if a.sup.Live(path) == nil {
		return false, nil
	}
	return true, piErr(a.sup.SetSessionName(ctx, path, name))
}

func (a *PiAgent) Label(ctx context.Context, path, entryID, label string) (bool, error) {
	w := a.sup.Live(path)
	if w == nil {
		return false, nil
	}
	return true, piErr(w.SetLabel(ctx, entryID, label))
}

// Create starts pi in cwd with the chosen model, thinking level and tools
// (on pi's command line, so the user's defaults stay as they are) and sends
// the first message.
func (a *PiAgent) Create(ctx context.Context, req CreateRequest) (string, string, error) {
	tools, err := toolList(req.Tools)
	if err != nil {
		return "", "", err
	}
	w, err := a.sup.StartNewWith(ctx, req.Cwd, agent.NewSession{Model: req.Model, Thinking: req.ThinkingLevel, Tools: tools})
	if err != nil {
		return "", "", piErr(err)
	}
	st := w.State()
	err = w.Prompt(ctx, req.Message, agent.PromptOptions{Images: images(req.Images)})
	return st.SessionID, st.SessionFile, piErr(err)
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
		return nil, errorf(Invalid, "tools must be a preset name or a list of names")
	}
	return list, nil
}

func images(raws []json.RawMessage) []agent.Image {
	var out []agent.Image
	for _, r := range raws {
		var im agent.Image
		if json.Unmarshal(r, &im) == nil {
			out = append(out, im)
		}
	}
	return out
}

// abortTypes need no worker: with none running there is nothing to stop.
var abortTypes = map[string]bool{"abort": true, "abort_bash": true, "abort_retry": true, "abort_compaction": true}

// Command relays one command to the session's worker.
func (a *PiAgent) Command(ctx context.Context, path string, cmd json.RawMessage) (json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(cmd, &fields); err != nil {
		return nil, errorf(Invalid, "command must be a JSON object")
	}
	var typ string
	json.Unmarshal(fields["type"], &typ)
	delete(fields, "type")
	if abortTypes[typ] && a.sup.Live(path) == nil {
		return nil, nil
	}
	w, err := a.sup.Worker(ctx, path)
	if err != nil {
		return nil, piErr(err)
	}
	switch typ {
	case "prompt", "steer", "follow_up":
		return nil, piErr(a.prompt(ctx, w, typ, fields))
	case "ui_response":
		return nil, piErr(answerUI(w, fields))
	case "navigate":
		return navigate(ctx, w, fields)
	case "abort_compaction":
		res, err := a.sup.AbortCompaction(ctx, path)
		if err != nil {
			return nil, piErr(err)
		}
		return json.Marshal(res)
	}
	var resp agent.Response
	err = w.Do(func(c *agent.Client) error {
		var err error
		resp, err = c.Call(ctx, typ, fields)
		return err
	})
	return resp.Data, piErr(err)
}

func (a *PiAgent) prompt(ctx context.Context, w *agent.Worker, typ string, f map[string]json.RawMessage) error {
	var p struct {
		Message           string            `json:"message"`
		Images            []json.RawMessage `json:"images"`
		StreamingBehavior string            `json:"streamingBehavior"`
		Force             bool              `json:"force"`
	}
	b, _ := json.Marshal(f)
	if err := json.Unmarshal(b, &p); err != nil {
		return errorf(Invalid, "bad prompt fields")
	}
	o := agent.PromptOptions{Images: images(p.Images), Behavior: p.StreamingBehavior, Force: p.Force}
	switch typ {
	case "steer":
		o.Behavior = agent.Steer
	case "follow_up":
		o.Behavior = agent.FollowUp
	}
	return w.Prompt(ctx, p.Message, o)
}

// navigate moves the leaf in place through the bridge extension.
func navigate(ctx context.Context, w *agent.Worker, f map[string]json.RawMessage) (json.RawMessage, error) {
	var n struct {
		EntryID      string `json:"entryId"`
		Summarize    bool   `json:"summarize"`
		Instructions string `json:"instructions"`
		Label        string `json:"label"`
	}
	b, _ := json.Marshal(f)
	if json.Unmarshal(b, &n) != nil || n.EntryID == "" {
		return nil, errorf(Invalid, "navigate needs entryId")
	}
	res, err := w.NavigateTree(ctx, n.EntryID, agent.TreeOptions{Summarize: n.Summarize,
		CustomInstructions: n.Instructions, Label: n.Label})
	if err != nil {
		return nil, piErr(err)
	}
	var leaf any
	if res.Leaf != "" {
		leaf = res.Leaf
	}
	out, _ := json.Marshal(map[string]any{"leaf": leaf, "cancelled": res.Cancelled, "editorText": res.EditorText})
	return out, nil
}

func answerUI(w *agent.Worker, f map[string]json.RawMessage) error {
	var u struct {
		RequestID string  `json:"requestId"`
		Value     *string `json:"value"`
		Confirmed *bool   `json:"confirmed"`
		Cancelled bool    `json:"cancelled"`
	}
	b, _ := json.Marshal(f)
	if json.Unmarshal(b, &u) != nil || u.RequestID == "" {
		return errorf(Invalid, "ui_response needs requestId")
	}
	err := w.AnswerUI(u.RequestID, agent.UIAnswer{Value: u.Value, Confirmed: u.Confirmed, Cancelled: u.Cancelled})
	if errors.Is(err, agent.ErrNoDialog) {
		return errorf(NotFound, "no such pending dialog (answered elsewhere or timed out)")
	}
	return err
}

// Models asks pi for its available models, through a live worker when
// there is one or a short-lived pi otherwise, cached for a minute.
func (a *PiAgent) Models(ctx context.Context) (json.RawMessage, error) {
	if m := a.cachedModels(); m != nil {
		return m, nil
	}
	a.fetch.Lock()
	defer a.fetch.Unlock()
	if m := a.cachedModels(); m != nil {
		return m, nil // another request fetched them meanwhile
	}
	a.mu.Lock()
	gen := a.gen
	a.mu.Unlock()
	o := a.base
	o.NoSession, o.SessionFile, o.OnEvent = true, "", nil
	c, _, err := agent.Start(ctx, o)
	if err != nil {
		return nil, piErr(err)
	}
	defer c.Close(context.Background(), time.Second)
	models, err := c.GetAvailableModels(ctx)
	if err != nil {
		return nil, piErr(err)
	}
	b, _ := json.Marshal(map[string]any{"models": models})
	a.mu.Lock()
	if a.gen == gen {
		a.models, a.at = b, time.Now()
	}
	a.mu.Unlock()
	return b, nil
}

// cachedModels returns the model list fetched less than a minute ago, or
// nil.
func (a *PiAgent) cachedModels() json.RawMessage {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.models != nil && time.Since(a.at) < time.Minute {
		return a.models
	}
	return nil
}

// ForgetModels drops the cached model list (after models.json changed).
func (a *PiAgent) ForgetModels() {
	a.mu.Lock()
	a.models = nil
	a.gen++
	a.mu.Unlock()
}

// piErr maps the agent package's errors onto the API's kinds.
func piErr(err error) error {
	var ce *agent.CommandError
	var cg *agent.CwdGoneError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, agent.ErrPiMissing):
		return wrap(PiMissing, err, "pi is not installed: "+InstallHint)
	case errors.Is(err, agent.ErrBusy):
		return wrap(Busy, err, "the agent is busy; steer or follow up instead")
	case errors.Is(err, agent.ErrStale):
		return wrap(Stale, err, "the session file changed outside piweb; reload or fork")
	case errors.Is(err, agent.ErrAtCapacity):
		return wrap(Busy, err, "too many agents are running; stop one first")
	case errors.Is(err, agent.ErrNoBridge):
		return wrap(Invalid, err, "this pi cannot navigate the tree (the piweb bridge extension is not loaded)")
	case errors.As(err, &cg):
		return wrap(Invalid, err, "the session's working directory no longer exists")
	case errors.As(err, &ce):
		return &CommandError{Command: ce.Command, Message: ce.Message}
	}
	return err
}
