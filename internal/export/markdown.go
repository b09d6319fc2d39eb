package export

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"piweb/pisession"
)

// Markdown writes the branch as a Markdown document that reads like the
// page: a heading per message with its time (and model and cost), text
// as written, thinking in a collapsed <details>, tool calls with their
// results in fenced blocks (a diff for edits).
func Markdown(w io.Writer, d Doc) error {
	bw := bufio.NewWriter(w)
	t := d.totals()
	fmt.Fprintf(bw, "# %s\n\n", oneLine(d.Title))
	fmt.Fprintf(bw, "- Directory: `%s`\n- Session: `%s`\n", d.Cwd, d.ID)
	if !d.Created.IsZero() {
		fmt.Fprintf(bw, "- Created: %s\n", d.Created.UTC().Format("2006-01-02 15:04 UTC"))
	}
	if len(t.Models) > 0 {
		fmt.Fprintf(bw, "- Models: %s\n", strings.Join(t.Models, ", "))
	}
	fmt.Fprintf(bw, "- %d messages · %s tokens · %s\n", t.Messages, fmtTokens(t.Tokens), FmtCost(t.Cost))
	mdItems(&d, bw)
	return bw.Flush()
}

// mdItems writes each message's Markdown to b, after a blank line, as it
// goes: a message of tens of MB is not copied into a string first (issue
// 21).
func mdItems(d *Doc, b *bufio.Writer) {
	res := results(d.Messages)
	for i := range d.Messages {
		m := &d.Messages[i]
		head := func(who, meta string) {
			fmt.Fprintf(b, "\n## %s", who)
			for _, s := range []string{fmtTime(m.Timestamp), meta} {
				if s != "" {
					b.WriteString(" · " + s)
				}
			}
			b.WriteString("\n\n")
		}
		switch m.Role {
		case pisession.RoleUser:
			head("You", "")
			mdContent(b, m, res)
		case pisession.RoleAssistant:
			head("Assistant", usageLine(m))
			mdContent(b, m, res)
			if m.StopReason == "error" || m.StopReason == "aborted" {
				fmt.Fprintf(b, "> **%s** %s\n\n", map[bool]string{true: "Aborted", false: "Error"}[m.StopReason == "aborted"], oneLine(m.ErrorMessage))
			}
		case pisession.RoleToolResult:
			if _, paired := res[m.ToolCallID]; paired {
				continue
			}
			head("Tool", "")
			mdTool(b, newTool(nil, m))
		case pisession.RoleBashExecution:
			head("Shell", "")
			t := tool{Name: "!", Summary: "$ " + m.Command, Output: m.Output}
			if m.ExitCode != nil {
				t.Exit = fmtNumber(*m.ExitCode)
			}
			mdTool(b, t)
		case pisession.RoleCustom:
			if !m.Display {
				continue
			}
			head(m.CustomType, "")
			mdContent(b, m, res)
		case pisession.RoleBranchSummary, pisession.RoleCompactionSummary:
			title := "Branch summary"
			if m.Role == pisession.RoleCompactionSummary {
				title = "Compacted: " + fmtTokens(m.TokensBefore) + " tokens before"
			}
			fmt.Fprintf(b, "\n<details><summary>%s</summary>\n\n%s\n\n</details>\n", title, strings.TrimSpace(m.Summary))
		}
	}
}

func mdContent(b *bufio.Writer, m *pisession.Message, res map[string]*pisession.Message) {
	for _, blk := range textBlocks(m.Content) {
		switch blk.Type {
		case "text":
			if blk.TextJSON != nil {
				writeTrimmed(b, blk.TextJSON)
			} else {
				b.WriteString(strings.TrimSpace(blk.Text))
			}
			b.WriteString("\n\n")
		case "thinking":
			if blk.Thinking != "" {
				fmt.Fprintf(b, "<details><summary>Thinking</summary>\n\n%s\n\n</details>\n\n", quote(blk.Thinking))
			}
		case "toolCall":
			mdTool(b, newTool(&blk, res[blk.ID]))
		case "image":
			fmt.Fprintf(b, "*[%s image]*\n\n", blk.MimeType)
		}
	}
}

func mdTool(b *bufio.Writer, t tool) {
	fmt.Fprintf(b, "**%s** %s", t.Name, code(t.Summary))
	if t.Exit != "" {
		fmt.Fprintf(b, " — exit %s", t.Exit)
	}
	b.WriteString("\n\n")
	if t.Args != "" {
		writeFence(b, t.Args, "json")
	}
	if t.Content != "" {
		writeFence(b, t.Content, "")
	}
	if len(t.Diff) > 0 {
		lines := make([]string, len(t.Diff))
		for i, l := range t.Diff {
			lines[i] = l.Text
		}
		writeFence(b, strings.Join(lines, "\n"), "diff")
	}
	if t.Output != "" {
		writeFence(b, t.Output, "text")
	}
	if o := t.big; o != nil {
		f := strings.Repeat("`", max(3, o.run+1))
		b.WriteString(f + "text\n")
		o.writeTo(o.n-o.trail, func(p []byte) { b.Write(p) })
		b.WriteString("\n" + f + "\n\n")
	}
}

// fence puts s in a fenced code block whose fence is longer than any run
// of backticks in s, so that nothing in s can end it.
func fence(s, lang string) string {
	var b strings.Builder
	writeFence(&b, s, lang)
	return b.String()
}

// writeFence writes fence(s, lang) to b without copying s.
func writeFence(b io.StringWriter, s, lang string) {
	f := strings.Repeat("`", max(3, longestRun(s)+1))
	for _, part := range []string{f, lang, "\n", strings.TrimRight(s, "\n"), "\n", f, "\n\n"} {
		b.WriteString(part)
	}
}

// longestRun is the length of the longest run of backticks in s.
func longestRun(s string) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] != '`' {
			run = 0
			continue
		}
		run++
		longest = max(longest, run)
	}
	return longest
}

// code is s as an inline code span that s cannot end.
func code(s string) string {
	s = oneLine(s)
	if s == "" {
		return ""
	}
	f := strings.Repeat("`", longestRun(s)+1)
	return f + " " + s + " " + f
}

// quote makes s a block quote (thinking reads as an aside).
func quote(s string) string {
	return "> " + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n> ")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
