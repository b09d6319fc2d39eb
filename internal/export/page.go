package export

import "html/template"

// csp forbids everything but the page's own inline style and data: images:
// no script, no frame, no request to any server.
const csp = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

// LiveCSP is a served page's (Doc.Live): its own script may run and ask
// its own server, nothing else.
const LiveCSP = "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; img-src data:; " +
	"base-uri 'none'; form-action 'none'"

var page = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"{{with .Version}} data-version="{{.}}"{{end}}>
<head>
<meta charset="utf-8">
{{if .Live}}<meta http-equiv="Content-Security-Policy" content="` + LiveCSP + `">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<script src="{{.Live}}" defer></script>
{{else}}<meta http-equiv="Content-Security-Policy" content="` + csp + `">
{{end}}<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="generator" content="piweb">
<title>{{.Title}}</title>
<style>` + style + `</style>
</head>
<body>
<header>
<h1>{{.Title}}</h1>
<p class="facts"><span class="cwd">{{.Cwd}}</span>{{range .Models}}<span>{{.}}</span>{{end}}<span>{{.Messages}} messages</span><span>{{.Tokens}} tokens · {{.Cost}}</span>{{if .Created}}<span>created {{.Created}}</span>{{end}}</p>
<p class="facts muted"><span>session <code>{{.ID}}</code></span><span>exported {{.Exported}} by piweb</span></p>
</header>
<main>
{{range .Items}}{{template "item" .}}{{end}}
</main>
</body>
</html>
{{define "item"}}{{if .Card}}<details class="card {{.Card}}"><summary>{{.CardTitle}}{{if .Time}} <time>{{.Time}}</time>{{end}}</summary>{{range .Blocks}}{{template "block" .}}{{end}}</details>
{{else}}<article class="msg {{.Role}}">
<div class="head"><span class="who">{{.Who}}</span>{{if .Meta}}<span class="meta">{{.Meta}}</span>{{end}}{{if .Time}}<time>{{.Time}}</time>{{end}}</div>
<div class="body">{{range .Blocks}}{{template "block" .}}{{end}}{{if .Error}}<div class="stop">{{.Error}}</div>{{end}}</div>
</article>
{{end}}{{end}}
{{define "block"}}{{if .MD}}<div class="md">{{.MD}}</div>{{else if .Thinking}}<details class="thinking"><summary>Thinking</summary><div class="thinking-body">{{.Thinking}}</div></details>{{else if .Tool}}{{template "tool" .Tool}}{{else if .Image}}<img alt="image" src="{{.Image}}">{{else}}<pre class="out">{{.Pre}}</pre>{{end}}{{end}}
{{define "tool"}}<details class="tool {{.State}}"{{if or (eq .State "error") (eq .Name "edit") (eq .Name "bash") (eq .Name "!")}} open{{end}}>
<summary><span class="tool-name">{{.Name}}</span><code class="sum">{{.Summary}}</code>{{if .Exit}}<span class="exit{{if ne .Exit "0"}} bad{{end}}">exit {{.Exit}}</span>{{end}}</summary>
<div class="tool-body">{{if .Args}}<pre class="out">{{.Args}}</pre>{{end}}{{if .Content}}<pre class="out">{{.Content}}</pre>{{end}}{{if .Diff}}<pre class="diff">{{range .Diff}}<span class="{{.Class}}">{{.Text}}</span>
{{end}}</pre>{{end}}{{if or .Output .OutputHTML}}<pre class="out">{{if .OutputHTML}}{{.OutputHTML}}{{else}}{{.Output}}{{end}}</pre>{{end}}{{if eq .State "pending"}}<div class="muted">no result</div>{{end}}</div>
</details>
{{end}}`))

const style = `
:root { --bg: #fff; --bg2: #f6f7f9; --bg3: #eceef2; --fg: #1c1f24; --fg2: #555b65; --line: #e3e6eb; --accent: #5b5bd6; --accent-bg: #ededfc;
  --ok: #1a7f37; --bad: #c8352b; --bad-bg: #fdecea; --add: #e6f4ea; --del: #fdecea; --code-bg: #f6f7f9; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #16181c; --bg2: #1d2026; --bg3: #262a31; --fg: #e4e6ea; --fg2: #a7adb7; --line: #30343c; --accent: #8b8cf5; --accent-bg: #262846;
    --ok: #4ac26b; --bad: #ff7b72; --bad-bg: #3a1d1d; --add: #1b3a26; --del: #42201f; --code-bg: #1d2026; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 14px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; }
header, main { max-width: 860px; margin: 0 auto; padding: 0 16px; }
header { padding-top: 24px; padding-bottom: 12px; border-bottom: 1px solid var(--line); }
h1 { font-size: 20px; margin: 0 0 6px; overflow-wrap: anywhere; }
.facts { display: flex; flex-wrap: wrap; gap: 2px 14px; margin: 2px 0; font-size: 12.5px; color: var(--fg2); }
.cwd { font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
.muted { color: var(--fg2); }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12.5px; }
main { padding-top: 12px; padding-bottom: 48px; }
.msg { margin: 14px 0; }
.head { display: flex; flex-wrap: wrap; align-items: baseline; gap: 4px 10px; font-size: 12.5px; color: var(--fg2); margin-bottom: 4px; }
.who { font-weight: 650; color: var(--fg); }
.user .who { color: var(--accent); }
.head time { margin-left: auto; }
.user .body { background: var(--accent-bg); border-radius: 10px; padding: 8px 12px; }
.md { overflow-wrap: anywhere; }
.md > :first-child { margin-top: 0; } .md > :last-child { margin-bottom: 0; }
.md p, .md ul, .md ol, .md blockquote, .md pre, .md table { margin: 6px 0; }
.md h1, .md h2, .md h3, .md h4 { margin: 14px 0 6px; line-height: 1.3; font-size: 15px; }
.md h1 { font-size: 17px; }
.md :not(pre) > code { background: var(--bg3); padding: 1px 4px; border-radius: 4px; }
.md pre { background: var(--code-bg); border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; overflow-x: auto; }
.md blockquote { border-left: 3px solid var(--line); padding-left: 10px; margin-left: 0; color: var(--fg2); }
.md table { border-collapse: collapse; display: block; overflow-x: auto; }
.md th, .md td { border: 1px solid var(--line); padding: 3px 8px; }
.md th { background: var(--bg2); }
.md a { color: var(--accent); }
.md img { display: none; }
details > summary { cursor: pointer; }
.thinking { margin: 6px 0; color: var(--fg2); font-size: 13px; }
.thinking-body { white-space: pre-wrap; overflow-wrap: anywhere; font-style: italic; border-left: 2px solid var(--line); padding: 2px 0 2px 10px; margin-top: 4px; }
.tool { border: 1px solid var(--line); border-radius: 8px; margin: 6px 0; background: var(--bg2); overflow: hidden; }
.tool > summary { display: flex; gap: 8px; align-items: baseline; padding: 5px 10px; font-size: 12.5px; min-width: 0; }
.tool-name { font-weight: 650; flex: none; }
.tool .sum { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; min-width: 0; flex: 1; }
.exit { flex: none; color: var(--ok); } .exit.bad, .tool.error .tool-name { color: var(--bad); }
.tool-body { border-top: 1px solid var(--line); background: var(--bg); }
.out, .diff { margin: 0; padding: 6px 10px; white-space: pre-wrap; overflow-wrap: anywhere; font-size: 12px; max-height: 480px; overflow-y: auto; }
.diff { white-space: pre; overflow-x: auto; overflow-wrap: normal; }
.diff .add { background: var(--add); display: inline-block; min-width: 100%; }
.diff .del { background: var(--del); display: inline-block; min-width: 100%; }
.diff .hunk { color: var(--accent); }
.tool-body .muted { padding: 6px 10px; font-size: 12px; }
.stop { margin-top: 6px; padding: 6px 10px; border-radius: 6px; background: var(--bad-bg); color: var(--bad); font-size: 12.5px; overflow-wrap: anywhere; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 6px 12px; margin: 14px 0; background: var(--bg2); }
.card > summary { font-weight: 600; font-size: 13px; }
.card > summary time { font-weight: 400; color: var(--fg2); margin-left: 8px; }
.card .md, .card .out { margin-top: 6px; }
img { max-width: 100%; border-radius: 6px; margin: 4px 0; }
`
