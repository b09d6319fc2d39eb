package fakellm

import (
	"fmt"
	"regexp"
	"strings"
)

// DefaultSummary is the canned answer to summarization requests. pi appends
// its own <read-files>/<modified-files> lists to compaction summaries, so
// match it with strings.HasPrefix.
const DefaultSummary = `## Goal
Summary written by the piweb demo model.

## Constraints & Preferences
- (none)

## Progress
### Done
- [x] Conversation summarized by the fake LLM

### In Progress
- [ ] (none)

### Blocked
- (none)

## Key Decisions
- **Fake summary**: no real LLM is connected

## Next Steps
1. Continue the conversation

## Critical Context
- (none)`

var runPattern = regexp.MustCompile("(?i)\\brun\\s+`([^`]+)`")

// Demo is the default rule, used when the queue is empty: deterministic
// answers for piweb's --demo mode and for tests that do not script replies.
//
//   - a request carrying tool results gets a short report of their output;
//   - "run `cmd`" (or a message starting with "run ") calls bash with cmd;
//   - "list files" calls bash with "ls -la";
//   - a message containing "think" gets a thinking block, then text;
//   - anything else gets a friendly echo naming the demo model.
//
// Summarization requests are left to the canned summary (it returns false).
func Demo(req *Request) (Reply, bool) {
	if req.Kind() != KindChat {
		return Reply{}, false
	}
	if results := req.ToolResults(); len(results) > 0 {
		return Text(reportTools(results)), true
	}
	text := strings.TrimSpace(req.LastUserText())
	lower := strings.ToLower(text)
	if m := runPattern.FindStringSubmatch(text); m != nil {
		return Tools(Bash(m[1])), true
	}
	if cmd, ok := strings.CutPrefix(lower, "run "); ok && cmd != "" {
		return Tools(Bash(strings.TrimSpace(text[len("run "):]))), true
	}
	if strings.Contains(lower, "list files") || strings.Contains(lower, "list the files") {
		return Tools(Bash("ls -la")), true
	}
	if strings.Contains(lower, "think") {
		return Think("The user wants to see me think. I am a demo model, so this is all the thinking there is.",
			"I thought about it (briefly). "+echo(text)), true
	}
	return Text(echo(text)), true
}

func echo(text string) string {
	if r := []rune(text); len(r) > 200 {
		text = string(r[:200]) + "…"
	}
	return fmt.Sprintf("Hello! I am the built-in demo model of piweb, an offline fake rather than a real LLM. "+
		"You said: %q. Try \"list files\" or \"run `echo hi`\" to see a tool call.", text)
}

func reportTools(results []Message) string {
	var b strings.Builder
	b.WriteString("The demo model received the tool output:\n")
	for _, m := range results {
		lines := strings.Split(strings.TrimRight(m.Text(), "\n"), "\n")
		if len(lines) > 20 {
			lines = append(lines[:20], fmt.Sprintf("… (%d more lines)", len(lines)-20))
		}
		fmt.Fprintf(&b, "\n```\n%s\n```\n", strings.Join(lines, "\n"))
	}
	return b.String()
}
