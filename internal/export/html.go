package export

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"regexp"
	"strconv"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/util"

	"piweb/internal/jsjson"
	"piweb/pisession"
)

// md renders Markdown as CommonMark with GFM tables, strikethrough, task
// lists and autolinks, without raw HTML: like the page (markdown-it with
// html off), it does not parse HTML blocks or tags, so they are text and
// escaped as such. Links with javascript:, vbscript:, file: and non-image
// data: URLs lose their URL (goldmark's default without WithUnsafe).
var md = goldmark.New(goldmark.WithParser(parser.NewParser(
	parser.WithBlockParsers(without(parser.DefaultBlockParsers(), "*parser.htmlBlockParser")...),
	parser.WithInlineParsers(without(parser.DefaultInlineParsers(), "*parser.rawHTMLParser")...),
	parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
)), goldmark.WithExtensions(extension.GFM))

// without drops the parser of the given type from a list.
func without(list util.PrioritizedSlice, typ string) []util.PrioritizedValue {
	var out []util.PrioritizedValue
	for _, v := range list {
		if fmt.Sprintf("%T", v.Value) != typ {
			out = append(out, v)
		}
	}
	if len(out) == len(list) {
		panic("export: goldmark has no " + typ) // caught by the tests
	}
	return out
}

// maxMarkdown is the longest text rendered as Markdown: goldmark's tree of
// a text holds many times its size (a 52 MB message took 1.5 GB), so a
// longer one (a pasted log, a dumped file) is shown as it is, escaped in
// a <pre> (issue 21).
var maxMarkdown = 1 << 20 // a variable for tests

// textHTML is markdown of a text block's text; a big one is marked for
// bigs to write.
func textHTML(b pisession.Block, big *bigs) template.HTML {
	if b.TextJSON == nil {
		return markdown(b.Text)
	}
	if decodedLen(b.TextJSON) > maxMarkdown {
		return big.mark(b.TextJSON)
	}
	s, _ := jsjson.DecodeString(b.TextJSON)
	return markdown(s)
}

func markdown(s string) template.HTML {
	if len(s) > maxMarkdown {
		return template.HTML("<pre>" + template.HTMLEscapeString(s) + "</pre>")
	}
	var b bytes.Buffer
	if err := md.Convert([]byte(s), &b); err != nil {
		return template.HTML(template.HTMLEscapeString(s))
	}
	return template.HTML(b.String()) // goldmark escapes text and drops raw HTML
}

// item is one message as the page shows it.
type item struct {
	Role, Who, Time, Meta string
	Blocks                []block
	// Summary cards (branch, compaction, system) are collapsed.
	Card, CardTitle string
	Error           string
}

// block is one part of a message: Markdown, thinking, a tool card, an
// image or preformatted text.
type block struct {
	MD       template.HTML
	Thinking string
	Tool     *tool
	Image    template.URL
	Pre      string
}

var imageData = regexp.MustCompile(`^[A-Za-z0-9+/]*={0,2}$`)
var imageType = regexp.MustCompile(`^image/(png|jpeg|gif|webp)$`)

func contentBlocks(m *pisession.Message, res map[string]*pisession.Message, big *bigs) []block {
	var out []block
	for _, b := range textBlocks(m.Content) {
		switch b.Type {
		case "text":
			out = append(out, block{MD: textHTML(b, big)})
		case "thinking":
			if b.Thinking != "" {
				out = append(out, block{Thinking: b.Thinking})
			}
		case "toolCall":
			t := newTool(&b, res[b.ID])
			out = append(out, block{Tool: big.output(&t)})
		case "image":
			if imageType.MatchString(b.MimeType) && imageData.MatchString(b.Data) {
				out = append(out, block{Image: template.URL("data:" + b.MimeType + ";base64," + b.Data)})
			} else {
				out = append(out, block{Pre: "[" + b.MimeType + " image]"})
			}
		}
	}
	return out
}

func items(d *Doc, big *bigs) []item {
	res := results(d.Messages)
	var out []item
	for i := range d.Messages {
		m := &d.Messages[i]
		it := item{Role: m.Role, Time: fmtTime(m.Timestamp)}
		switch m.Role {
		case pisession.RoleUser:
			it.Who, it.Blocks = "You", contentBlocks(m, res, big)
		case pisession.RoleAssistant:
			it.Who, it.Meta, it.Blocks = "Assistant", usageLine(m), contentBlocks(m, res, big)
			if m.StopReason == "error" || m.StopReason == "aborted" {
				it.Error = map[bool]string{true: "Aborted", false: "Error"}[m.StopReason == "aborted"]
				if m.ErrorMessage != "" {
					it.Error += ": " + m.ErrorMessage
				}
			}
		case pisession.RoleToolResult:
			if _, paired := res[m.ToolCallID]; paired {
				continue
			}
			t := newTool(nil, m)
			it.Who, it.Blocks = "Tool", []block{{Tool: big.output(&t)}}
		case pisession.RoleBashExecution:
			t := tool{Name: "!", Summary: "$ " + m.Command, Output: m.Output, State: "ok", Exit: "?"}
			if m.ExitCode != nil {
				t.Exit = fmtNumber(*m.ExitCode)
			}
			if t.Exit != "0" {
				t.State = "error"
			}
			it.Who, it.Blocks = "Shell", []block{{Tool: big.output(&t)}}
		case pisession.RoleCustom:
			if !m.Display {
				continue
			}
			it.Who, it.Blocks = m.CustomType, contentBlocks(m, res, big)
		case pisession.RoleBranchSummary:
			it.Card, it.CardTitle, it.Blocks = "summary", "Branch summary", []block{{MD: markdown(m.Summary)}}
		case pisession.RoleCompactionSummary:
			it.Card, it.CardTitle, it.Blocks = "compaction", "Compacted: "+fmtTokens(m.TokensBefore)+" tokens before", []block{{MD: markdown(m.Summary)}}
		case pisession.RoleSystem:
			it.Card, it.CardTitle = "system", "System prompt"
			for _, s := range m.Sections {
				if s.Text != nil {
					it.Blocks = append(it.Blocks, block{Pre: s.Name + ":\n" + *s.Text})
				}
			}
		default:
			it.Who, it.Blocks = m.Role, []block{{Pre: string(m.Raw)}}
		}
		out = append(out, it)
	}
	return out
}

// fmtNumber prints an exit code as JavaScript would.
func fmtNumber(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// HTML writes the branch as one self-contained page.
func HTML(w io.Writer, d Doc) error {
	t := d.totals()
	big := &bigs{}
	data := map[string]any{
		"Title": d.Title, "ID": d.ID, "Cwd": d.Cwd, "Items": items(&d, big),
		"Messages": t.Messages, "Tokens": fmtTokens(t.Tokens), "Cost": FmtCost(t.Cost), "Models": t.Models,
		"Live": d.Live, "Version": d.Version, "Created": "", "Exported": time.Now().UTC().Format("2006-01-02 15:04 UTC"),
	}
	if !d.Created.IsZero() {
		data["Created"] = d.Created.UTC().Format("2006-01-02 15:04 UTC")
	}
	if len(big.texts)+len(big.outputs) == 0 {
		return page.Execute(w, data)
	}
	bw := big.writer(w)
	if err := page.Execute(bw, data); err != nil {
		return err
	}
	return bw.err
}
