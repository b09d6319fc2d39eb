// Package export writes a session branch as a document to keep or share:
// a self-contained HTML page that reads like piweb's (Markdown rendered,
// tool calls as cards with their results, diffs, thinking collapsed,
// model and cost, light and dark) and the same as Markdown.
//
// Nothing from a session can run in an HTML export: the page is built with
// html/template (every text escaped), Markdown is rendered by goldmark
// with raw HTML omitted and dangerous link schemes dropped, the page has
// no script at all, and its Content-Security-Policy (default-src 'none';
// styles inline, images only as data: URLs) would block one anyway. It
// loads nothing from the network, so it opens offline.
package export

import (
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"regexp"
	"strings"
	"time"

	"piweb/pisession"
)

// Doc is what an export shows: the session's facts and the messages of
// one branch's context, in order.
type Doc struct {
	Title, ID, Cwd string
	// Created is the session's creation time, zero when unknown.
	Created  time.Time
	Messages []pisession.Message
	// Live, when not "", is the same-origin address of the script that
	// keeps a page piweb serves current (a share link's, at version
	// Version); the page then allows that script and nothing else, and
	// asks not to be indexed. A document to keep has none.
	Live, Version string
}

// totals sums the branch's answers.
type totals struct {
	Messages int
	Tokens   float64
	Cost     float64
	Models   []string
}

// Messages counts every message of the branch, of every role, as the
// page's header does (docs/decisions/0032).
func (d *Doc) totals() totals {
	t := totals{Messages: len(d.Messages)}
	seen := map[string]bool{}
	for i := range d.Messages {
		m := &d.Messages[i]
		if m.Role != pisession.RoleAssistant {
			continue
		}
		if name := modelName(m); name != "" && !seen[name] {
			seen[name] = true
			t.Models = append(t.Models, name)
		}
		if u := m.Usage; u != nil {
			t.Tokens += u.Input + u.Output + u.CacheRead + u.CacheWrite
			t.Cost += u.Cost.Total
		}
	}
	return t
}

func modelName(m *pisession.Message) string {
	if m.ResponseModel != "" {
		return m.ResponseModel
	}
	return m.Model
}

// results maps tool call ids to their results, so that a call and its
// result are shown as one card.
func results(msgs []pisession.Message) map[string]*pisession.Message {
	calls := map[string]bool{}
	for i := range msgs {
		for _, b := range msgs[i].Content.BlocksUpTo(1) { // no text decoded
			if msgs[i].Role == pisession.RoleAssistant && b.Type == "toolCall" {
				calls[b.ID] = true
			}
		}
	}
	out := map[string]*pisession.Message{}
	for i := range msgs {
		if m := &msgs[i]; m.Role == pisession.RoleToolResult && calls[m.ToolCallID] {
			out[m.ToolCallID] = m
		}
	}
	return out
}

// fmtTime is a message's time as UTC, "" when unknown.
func fmtTime(ms float64) string {
	if ms <= 0 || math.IsNaN(ms) || math.IsInf(ms, 0) {
		return ""
	}
	return time.UnixMilli(int64(ms)).UTC().Format("2006-01-02 15:04 UTC")
}

// FmtCost formats dollars with two significant digits below a cent and
// cents above, as the page does: $0.0067, $0.012, $1.25; $0 only for 0.
func FmtCost(c float64) string {
	switch {
	case !(c > 0):
		return "$0"
	case c >= 1:
		return fmt.Sprintf("$%.2f", c)
	case c >= 0.01:
		return fmt.Sprintf("$%.3f", c)
	}
	s := fmt.Sprintf("$%.2g", c)
	if strings.Contains(s, "e") { // under 0.0001
		return "<$0.0001"
	}
	return s
}

// fmtTokens is a token count as the page writes it: 950, 1.2k, 34k, 1.5M.
func fmtTokens(n float64) string {
	switch {
	case !(n > 0):
		return "0"
	case n < 1000:
		return fmt.Sprintf("%.0f", n)
	case n < 1e4:
		return fmt.Sprintf("%.1fk", n/1000)
	case n < 1e6:
		return fmt.Sprintf("%.0fk", n/1000)
	}
	return fmt.Sprintf("%.1fM", n/1e6)
}

// usageLine is an answer's model, tokens and cost.
func usageLine(m *pisession.Message) string {
	parts := []string{}
	if name := modelName(m); name != "" {
		parts = append(parts, name)
	}
	if u := m.Usage; u != nil {
		parts = append(parts, fmtTokens(u.Input)+" in", fmtTokens(u.Output)+" out")
		if u.CacheRead > 0 {
			parts = append(parts, fmtTokens(u.CacheRead)+" cached")
		}
		if u.Cost.Total > 0 {
			parts = append(parts, FmtCost(u.Cost.Total))
		}
	}
	return strings.Join(parts, " · ")
}

var exitRE = regexp.MustCompile(`Command exited with code (-?\d+)\s*$`)

// tool is a tool call with its result, as a card shows it.
type tool struct {
	Name    string
	Summary string // the command, the path, or the arguments in brief
	Args    string // arguments as indented JSON (other tools)
	Content string // what write wrote
	Diff    []diffLine
	Output  string
	// OutputHTML marks a big output's place in a page (bigs.markOutput).
	OutputHTML template.HTML
	// big is an output longer than bigJSON, in place of Output (bigout.go).
	big   *bigOutput
	Exit  string // bash's exit code, "" when not bash
	State string // ok, error or pending
}

type diffLine struct{ Class, Text string }

func newTool(call *pisession.Block, result *pisession.Message) tool {
	t := tool{State: "pending"}
	var args map[string]any
	if call != nil {
		t.Name = call.Name
		json.Unmarshal(call.Arguments, &args)
	}
	if result != nil {
		if t.Name == "" {
			t.Name = result.ToolName
		}
		t.State = "ok"
		if result.IsError {
			t.State = "error"
		}
	}
	if result != nil && !t.bigOutput(result) {
		t.Output = result.Content.Text("\n")
	}
	str := func(k string) string { s, _ := args[k].(string); return s }
	switch t.Name {
	case "bash":
		t.Summary = "$ " + str("command")
		if t.big != nil && t.Exit != "" {
			break
		}
		if m := exitRE.FindStringSubmatch(t.Output); m != nil {
			t.Exit = m[1]
			t.Output = strings.TrimRight(exitRE.ReplaceAllString(t.Output, ""), " \n")
		} else if result != nil {
			t.Exit = map[bool]string{true: "?", false: "0"}[result.IsError]
		}
	case "read":
		t.Summary = str("path")
	case "write":
		t.Summary, t.Content = str("path"), str("content")
	case "edit":
		t.Summary = str("path")
		t.Diff = diff(args, result)
	default:
		if b, err := json.MarshalIndent(args, "", "  "); err == nil && args != nil {
			t.Args = string(b)
		}
	}
	return t
}

// bigOutput sets t.big to result's output when it is big and its end is
// short (bigOutput.scan), with bash's exit code when its exit line is
// there; false leaves the output to be decoded whole.
func (t *tool) bigOutput(result *pisession.Message) bool {
	o := bigOutputOf(result.Content)
	if o == nil {
		return false
	}
	exit, ok := o.scan(t.Name == "bash")
	if !ok {
		return false
	}
	if o.n > 0 {
		t.big = o
	}
	t.Exit = exit
	return true
}

// diff is pi's diff of an edit (details.diff), else one built from the
// edit's arguments.
func diff(args map[string]any, result *pisession.Message) []diffLine {
	text := ""
	if result != nil && len(result.Details) > 0 {
		var d struct {
			Diff string `json:"diff"`
		}
		json.Unmarshal(result.Details, &d)
		text = d.Diff
	}
	if text == "" {
		edits, _ := args["edits"].([]any)
		if edits == nil {
			edits = []any{map[string]any{"oldText": args["oldText"], "newText": args["newText"]}}
		}
		var parts []string
		for _, e := range edits {
			em, _ := e.(map[string]any)
			o, _ := em["oldText"].(string)
			n, _ := em["newText"].(string)
			var lines []string
			for _, l := range strings.Split(o, "\n") {
				lines = append(lines, "-"+l)
			}
			for _, l := range strings.Split(n, "\n") {
				lines = append(lines, "+"+l)
			}
			parts = append(parts, strings.Join(lines, "\n"))
		}
		text = strings.Join(parts, "\n@@\n")
	}
	var out []diffLine
	for _, l := range strings.Split(text, "\n") {
		c := ""
		switch {
		case strings.HasPrefix(l, "+"):
			c = "add"
		case strings.HasPrefix(l, "-"):
			c = "del"
		case strings.HasPrefix(l, "@@"):
			c = "hunk"
		}
		out = append(out, diffLine{c, l})
	}
	return out
}
