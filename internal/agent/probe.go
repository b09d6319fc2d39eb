package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"piweb/internal/apitype"
)

// ModelTest is the outcome of TestModel (apitype.ModelTest, where the API's
// shapes are defined).
type ModelTest = apitype.ModelTest

// probePrompt is the one tiny request a test sends.
const probePrompt = "Reply with the single word OK."

// TestModel sends one tiny request to provider/modelID through a
// short-lived pi with no session file (so nothing is written), and reports
// the answer or pi's error. A provider that does not answer within timeout
// is reported as such and its pi stopped.
func (a *Service) TestModel(ctx context.Context, provider, modelID string, timeout time.Duration) (ModelTest, error) {
	return a.ask(ctx, provider, modelID, probePrompt, timeout)
}

// titlePrompt asks for a session's title from its first message.
const titlePrompt = "Write a title of at most six words for a coding session that starts with the message below. " +
	"Answer with the title alone: no quotes, no punctuation at the end.\n\n"

// Title asks pi's default model, through a short-lived pi with no session
// file, for a short title of a session whose first message is first; ""
// when the model fails or does not answer within timeout.
func (a *Service) Title(ctx context.Context, first string, timeout time.Duration) string {
	res, err := a.ask(ctx, "", "", titlePrompt+truncateRunes(first, 2000), timeout)
	if err != nil || !res.OK {
		return ""
	}
	return res.Reply
}

// ask sends one prompt to provider/modelID (pi's default model when
// provider is "") through a short-lived pi with no session file.
func (a *Service) ask(ctx context.Context, provider, modelID, prompt string, timeout time.Duration) (ModelTest, error) {
	ends := make(chan json.RawMessage, 8)
	o := a.base
	o.NoSession, o.SessionFile = true, ""
	o.OnEvent = func(ev Event) {
		if ev.Type == "message_end" || ev.Type == "agent_end" {
			select {
			case ends <- append(json.RawMessage(ev.Type+" "), ev.Raw...):
			default:
			}
		}
	}
	c, _, err := Start(ctx, o)
	if err != nil {
		return ModelTest{}, err
	}
	defer c.Close(context.Background(), time.Second)
	if provider != "" {
		if _, err := c.Call(ctx, "set_model", map[string]string{"provider": provider, "modelId": modelID}); err != nil {
			return ModelTest{}, err
		}
	}
	start := time.Now()
	if _, err := c.Call(ctx, "prompt", map[string]string{"message": prompt}); err != nil {
		return ModelTest{}, err
	}
	res, err := waitProbe(ctx, ends, timeout)
	res.Ms = time.Since(start).Milliseconds()
	if errors.Is(err, context.DeadlineExceeded) {
		c.Kill()
		return ModelTest{Error: fmt.Sprintf("no answer within %v", timeout), Ms: res.Ms}, nil
	}
	return res, err
}

// waitProbe reads the assistant's message_end events until agent_end.
func waitProbe(ctx context.Context, ends <-chan json.RawMessage, timeout time.Duration) (ModelTest, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	var res ModelTest
	for {
		select {
		case raw := <-ends:
			typ, body, _ := cutSpace(raw)
			if typ == "agent_end" {
				res.OK = res.Error == "" && res.Reply != ""
				if !res.OK && res.Error == "" {
					res.Error = "the model gave no answer"
				}
				return res, nil
			}
			readProbeMessage(body, &res)
		case <-deadline.C:
			return res, context.DeadlineExceeded
		case <-ctx.Done():
			return res, ctx.Err()
		}
	}
}

func cutSpace(b []byte) (string, []byte, bool) {
	for i, c := range b {
		if c == ' ' {
			return string(b[:i]), b[i+1:], true
		}
	}
	return string(b), nil, false
}

// readProbeMessage keeps an assistant message's text or error.
func readProbeMessage(raw []byte, res *ModelTest) {
	var ev struct {
		Message struct {
			Role         string `json:"role"`
			StopReason   string `json:"stopReason"`
			ErrorMessage string `json:"errorMessage"`
			Content      []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(raw, &ev) != nil || ev.Message.Role != "assistant" {
		return
	}
	if ev.Message.StopReason == "error" || ev.Message.ErrorMessage != "" {
		res.Error = ev.Message.ErrorMessage
		if res.Error == "" {
			res.Error = "the request failed"
		}
		return
	}
	for _, b := range ev.Message.Content {
		if b.Type == "text" && res.Reply == "" {
			res.Reply = truncateRunes(b.Text, 200)
		}
	}
}

func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// Resource is one skill, prompt template or extension command pi loads for
// a folder (RPC get_commands), with where it comes from (apitype.Resource,
// where the API's shapes are defined).
type Resource = apitype.Resource

// Resources asks a short-lived pi started in cwd, with no session file,
// which skills, prompt templates and extension commands it loads there.
func (a *Service) Resources(ctx context.Context, cwd string) ([]Resource, error) {
	o := a.base
	o.NoSession, o.SessionFile, o.OnEvent, o.Cwd = true, "", nil, cwd
	c, _, err := Start(ctx, o)
	if err != nil {
		return nil, err
	}
	defer c.Close(context.Background(), time.Second)
	resp, err := c.Call(ctx, "get_commands", nil)
	if err != nil {
		return nil, err
	}
	var data struct {
		Commands []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			Source      string `json:"source"`
			SourceInfo  struct {
				Path   string `json:"path"`
				Scope  string `json:"scope"`
				Source string `json:"source"`
				Origin string `json:"origin"`
			} `json:"sourceInfo"`
		} `json:"commands"`
	}
	if err := json.Unmarshal(resp.Data, &data); err != nil {
		return nil, fmt.Errorf("get_commands: %w", err)
	}
	out := make([]Resource, 0, len(data.Commands))
	for _, c := range data.Commands {
		si := c.SourceInfo
		out = append(out, Resource{Name: c.Name, Description: c.Description, Kind: c.Source,
			Path: si.Path, Scope: si.Scope, Source: si.Source, Origin: si.Origin})
	}
	return out, nil
}
