package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
)

// The 29 RPC commands of pi 0.73.1 (rpc-types.d.ts, pi-rpc.md §2.1), one
// typed method each. Data that piweb only forwards to the browser (models,
// messages) stays json.RawMessage.

// Image is an image attached to a prompt.
type Image struct {
	Type     string `json:"type"` // "image"
	Data     string `json:"data"` // base64
	MimeType string `json:"mimeType"`
}

// Streaming behaviours for a prompt sent while pi is busy.
const (
	Steer    = "steer"
	FollowUp = "followUp"
)

type promptArgs struct {
	Message           string  `json:"message"`
	Images            []Image `json:"images,omitempty"`
	StreamingBehavior string  `json:"streamingBehavior,omitempty"`
}

// Prompt sends a user message (or /command). The response comes after
// pi's preflight, before agent_start; for an extension command only after
// its handler (and its dialogs) finished. behavior is "", Steer or FollowUp.
func (c *Client) Prompt(ctx context.Context, text string, images []Image, behavior string) error {
	_, err := c.Submit(ctx, text, images, behavior)
	return err
}

// Disposition is what became of a prompt, steer or follow-up: started a
// run, queued behind the running one, or handled without the model (an
// extension command, a prompt template's own handling).
type Disposition string

const (
	Started Disposition = "started"
	Queued  Disposition = "queued"
	Handled Disposition = "handled"
)

// Submit is Prompt returning the disposition. pi before 0.99 does not say;
// it is then inferred from behavior (a plain prompt started, a steer or
// follow-up queued).
func (c *Client) Submit(ctx context.Context, text string, images []Image, behavior string) (Disposition, error) {
	resp, err := c.Call(ctx, "prompt", promptArgs{text, images, behavior})
	if err != nil {
		return "", err
	}
	var d struct{ Disposition Disposition }
	if json.Unmarshal(resp.Data, &d) == nil && d.Disposition != "" {
		return d.Disposition, nil
	}
	if behavior == "" {
		return Started, nil
	}
	return Queued, nil
}

// Steer queues a message delivered after the current assistant message.
func (c *Client) Steer(ctx context.Context, text string, images []Image) error {
	_, err := c.Call(ctx, "steer", promptArgs{Message: text, Images: images})
	return err
}

// FollowUp queues a message delivered when the agent would stop.
func (c *Client) FollowUp(ctx context.Context, text string, images []Image) error {
	_, err := c.Call(ctx, "follow_up", promptArgs{Message: text, Images: images})
	return err
}

// Abort stops the current run; it succeeds when idle too. It does not clear
// the follow-up queue.
func (c *Client) Abort(ctx context.Context) error { return c.void(ctx, "abort", nil) }

// Cancelled is the data of new_session, switch_session and clone.
type Cancelled struct {
	Cancelled bool `json:"cancelled"`
}

// NewSession starts an empty session (optionally recording parent).
func (c *Client) NewSession(ctx context.Context, parent string) (Cancelled, error) {
	var out Cancelled
	err := c.decode(ctx, "new_session", struct {
		ParentSession string `json:"parentSession,omitempty"`
	}{parent}, &out)
	return out, err
}

// State is get_state's answer. sessionFile is empty with --no-session.
type State struct {
	Model                 json.RawMessage `json:"model,omitempty"`
	ThinkingLevel         string          `json:"thinkingLevel"`
	IsStreaming           bool            `json:"isStreaming"`
	IsCompacting          bool            `json:"isCompacting"`
	SteeringMode          string          `json:"steeringMode"`
	FollowUpMode          string          `json:"followUpMode"`
	SessionFile           string          `json:"sessionFile,omitempty"`
	SessionID             string          `json:"sessionId"`
	SessionName           string          `json:"sessionName,omitempty"`
	AutoCompactionEnabled bool            `json:"autoCompactionEnabled"`
	MessageCount          int             `json:"messageCount"`
	PendingMessageCount   int             `json:"pendingMessageCount"`
}

// GetState asks for the session state.
func (c *Client) GetState(ctx context.Context) (State, error) {
	var st State
	err := c.decode(ctx, "get_state", nil, &st)
	return st, err
}

// GetMessages returns the live context's messages, undecoded.
func (c *Client) GetMessages(ctx context.Context) ([]json.RawMessage, error) {
	var out struct{ Messages []json.RawMessage }
	err := c.decode(ctx, "get_messages", nil, &out)
	return out.Messages, err
}

// SetModel selects provider/modelID and returns the Model object.
func (c *Client) SetModel(ctx context.Context, provider, modelID string) (json.RawMessage, error) {
	resp, err := c.Call(ctx, "set_model", struct {
		Provider string `json:"provider"`
		ModelID  string `json:"modelId"`
	}{provider, modelID})
	return resp.Data, err
}

// CycleModel moves to the next model; the data is null with a single model.
func (c *Client) CycleModel(ctx context.Context) (json.RawMessage, error) {
	resp, err := c.Call(ctx, "cycle_model", nil)
	return resp.Data, err
}

// GetAvailableModels lists the models that have credentials.
func (c *Client) GetAvailableModels(ctx context.Context) ([]json.RawMessage, error) {
	var out struct{ Models []json.RawMessage }
	err := c.decode(ctx, "get_available_models", nil, &out)
	return out.Models, err
}

// SetThinkingLevel sets off/minimal/low/medium/high/xhigh (pi clamps it).
func (c *Client) SetThinkingLevel(ctx context.Context, level string) error {
	return c.void(ctx, "set_thinking_level", struct {
		Level string `json:"level"`
	}{level})
}

// CycleThinkingLevel returns the new level, "" for a non-reasoning model.
func (c *Client) CycleThinkingLevel(ctx context.Context) (string, error) {
	var out *struct{ Level string }
	if err := c.decode(ctx, "cycle_thinking_level", nil, &out); err != nil || out == nil {
		return "", err
	}
	return out.Level, nil
}

type modeArgs struct {
	Mode string `json:"mode"`
}

// SetSteeringMode sets "all" or "one-at-a-time".
func (c *Client) SetSteeringMode(ctx context.Context, mode string) error {
	return c.void(ctx, "set_steering_mode", modeArgs{mode})
}

// SetFollowUpMode sets "all" or "one-at-a-time".
func (c *Client) SetFollowUpMode(ctx context.Context, mode string) error {
	return c.void(ctx, "set_follow_up_mode", modeArgs{mode})
}

// CompactionResult is compact's answer.
type CompactionResult struct {
	Summary          string          `json:"summary"`
	FirstKeptEntryID string          `json:"firstKeptEntryId"`
	TokensBefore     int             `json:"tokensBefore"`
	Details          json.RawMessage `json:"details,omitempty"`
}

// Compact summarizes the context; it aborts a running turn first.
func (c *Client) Compact(ctx context.Context, instructions string) (CompactionResult, error) {
	var out CompactionResult
	err := c.decode(ctx, "compact", struct {
		CustomInstructions string `json:"customInstructions,omitempty"`
	}{instructions}, &out)
	return out, err
}

type enabledArgs struct {
	Enabled bool `json:"enabled"`
}

// SetAutoCompaction toggles automatic compaction (written to settings.json).
func (c *Client) SetAutoCompaction(ctx context.Context, on bool) error {
	return c.void(ctx, "set_auto_compaction", enabledArgs{on})
}

// SetAutoRetry toggles automatic retry (written to settings.json).
func (c *Client) SetAutoRetry(ctx context.Context, on bool) error {
	return c.void(ctx, "set_auto_retry", enabledArgs{on})
}

// AbortRetry cancels a pending retry; auto_retry_end follows.
func (c *Client) AbortRetry(ctx context.Context) error { return c.void(ctx, "abort_retry", nil) }

// BashResult is bash's answer. ExitCode is nil when cancelled.
type BashResult struct {
	Output         string `json:"output"`
	ExitCode       *int   `json:"exitCode,omitempty"`
	Cancelled      bool   `json:"cancelled"`
	Truncated      bool   `json:"truncated"`
	FullOutputPath string `json:"fullOutputPath,omitempty"`
}

// Bash runs a shell command whose output reaches the LLM with the next
// prompt. It emits no events.
func (c *Client) Bash(ctx context.Context, command string) (BashResult, error) {
	var out BashResult
	err := c.decode(ctx, "bash", struct {
		Command string `json:"command"`
	}{command}, &out)
	return out, err
}

// AbortBash cancels the running bash command.
func (c *Client) AbortBash(ctx context.Context) error { return c.void(ctx, "abort_bash", nil) }

// SessionStats is get_session_stats's answer; the token figures in
// ContextUsage are null right after a compaction.
type SessionStats struct {
	SessionFile       string `json:"sessionFile,omitempty"`
	SessionID         string `json:"sessionId"`
	UserMessages      int    `json:"userMessages"`
	AssistantMessages int    `json:"assistantMessages"`
	ToolCalls         int    `json:"toolCalls"`
	ToolResults       int    `json:"toolResults"`
	TotalMessages     int    `json:"totalMessages"`
	Tokens            struct {
		Input, Output, CacheRead, CacheWrite, Total int
	} `json:"tokens"`
	Cost         float64 `json:"cost"`
	ContextUsage *struct {
		Tokens        *int     `json:"tokens"`
		ContextWindow int      `json:"contextWindow"`
		Percent       *float64 `json:"percent"`
	} `json:"contextUsage,omitempty"`
}

// GetSessionStats returns message and token counts.
func (c *Client) GetSessionStats(ctx context.Context) (SessionStats, error) {
	var out SessionStats
	err := c.decode(ctx, "get_session_stats", nil, &out)
	return out, err
}

// ExportHTML writes the session as HTML; with no path pi picks one in its
// cwd and returns it relative.
func (c *Client) ExportHTML(ctx context.Context, outputPath string) (string, error) {
	var out struct{ Path string }
	err := c.decode(ctx, "export_html", struct {
		OutputPath string `json:"outputPath,omitempty"`
	}{outputPath}, &out)
	return out.Path, err
}

// SwitchSession points pi at another session file. pi accepts a path that
// does not exist (it starts an empty session there), so callers check.
func (c *Client) SwitchSession(ctx context.Context, path string) (Cancelled, error) {
	var out Cancelled
	err := c.decode(ctx, "switch_session", struct {
		SessionPath string `json:"sessionPath"`
	}{path}, &out)
	return out, err
}

// ForkResult is fork's answer: the text of the user message forked before.
type ForkResult struct {
	Text      string `json:"text"`
	Cancelled bool   `json:"cancelled"`
}

// Fork creates a new session file holding the branch up to just before the
// user message entryID, and switches to it.
func (c *Client) Fork(ctx context.Context, entryID string) (ForkResult, error) {
	var out ForkResult
	err := c.decode(ctx, "fork", struct {
		EntryID string `json:"entryId"`
	}{entryID}, &out)
	return out, err
}

// Clone copies the current branch into a new session file and switches.
func (c *Client) Clone(ctx context.Context) (Cancelled, error) {
	var out Cancelled
	err := c.decode(ctx, "clone", nil, &out)
	return out, err
}

// ForkMessage is a user message that Fork accepts.
type ForkMessage struct {
	EntryID string `json:"entryId"`
	Text    string `json:"text"`
}

// GetForkMessages lists the user messages on the current branch.
func (c *Client) GetForkMessages(ctx context.Context) ([]ForkMessage, error) {
	var out struct{ Messages []ForkMessage }
	err := c.decode(ctx, "get_fork_messages", nil, &out)
	return out.Messages, err
}

// GetLastAssistantText returns the last answer's text ("" when none).
func (c *Client) GetLastAssistantText(ctx context.Context) (string, error) {
	var out struct{ Text *string }
	if err := c.decode(ctx, "get_last_assistant_text", nil, &out); err != nil || out.Text == nil {
		return "", err
	}
	return *out.Text, nil
}

// SetSessionName names the session (appends a session_info entry).
func (c *Client) SetSessionName(ctx context.Context, name string) error {
	return c.void(ctx, "set_session_name", struct {
		Name string `json:"name"`
	}{name})
}

// SlashCommand is an extension command, prompt template or skill.
type SlashCommand struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Source      string          `json:"source"` // extension, prompt or skill
	SourceInfo  json.RawMessage `json:"sourceInfo,omitempty"`
}

// GetCommands lists the slash commands a prompt may start with.
func (c *Client) GetCommands(ctx context.Context) ([]SlashCommand, error) {
	var out struct{ Commands []SlashCommand }
	err := c.decode(ctx, "get_commands", nil, &out)
	return out.Commands, err
}

// UIAnswer answers a dialog extension_ui_request. Set Value for select,
// input and editor, Confirmed for confirm, or Cancelled.
type UIAnswer struct {
	Value     *string `json:"value,omitempty"`
	Confirmed *bool   `json:"confirmed,omitempty"`
	Cancelled bool    `json:"cancelled,omitempty"`
}

// AnswerUI sends extension_ui_response for request id; pi does not reply.
func (c *Client) AnswerUI(id string, a UIAnswer) error {
	return c.Send(struct {
		Type string `json:"type"`
		ID   string `json:"id"`
		UIAnswer
	}{"extension_ui_response", id, a})
}

func (c *Client) void(ctx context.Context, typ string, args any) error {
	_, err := c.Call(ctx, typ, args)
	return err
}

func (c *Client) decode(ctx context.Context, typ string, args any, out any) error {
	resp, err := c.Call(ctx, typ, args)
	if err != nil {
		return err
	}
	if len(resp.Data) == 0 {
		return nil
	}
	if err := json.Unmarshal(resp.Data, out); err != nil {
		return fmt.Errorf("decode %s response: %w", typ, err)
	}
	return nil
}

// thinkingLevels are pi's levels for a reasoning model, as pi 0.73 offers
// them (it has no get_available_thinking_levels).
var thinkingLevels = []string{"off", "minimal", "low", "medium", "high"}

// ThinkingLevels lists the thinking levels the session's model accepts
// (pi's get_available_thinking_levels on pi >= 0.81; for older pi, off for
// a model without reasoning and the standard levels otherwise).
func (w *Worker) ThinkingLevels(ctx context.Context) ([]string, error) {
	var out struct{ Levels []string }
	if w.client.Has(VersionThinkingLevels) {
		err := w.Do(func(c *Client) error { return c.decode(ctx, "get_available_thinking_levels", nil, &out) })
		return out.Levels, err
	}
	var st State
	if err := w.Do(func(c *Client) (err error) { st, err = c.GetState(ctx); return err }); err != nil {
		return nil, err
	}
	var model struct{ Reasoning bool }
	_ = json.Unmarshal(st.Model, &model)
	if !model.Reasoning {
		return []string{"off"}, nil
	}
	return slices.Clone(thinkingLevels), nil
}
