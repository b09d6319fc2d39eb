package demo

import (
	"path/filepath"
	"time"
)

// sample is one session file to seed, with the cwd it belongs to.
type sample struct {
	cwd  string
	data []byte
	id   string
}

// samples writes the demo conversations for projects under root, dated in
// the hours before now so they look recent. forkParent is the path the
// first session will have, for the fork's header.
func samples(root string, now time.Time, pathOf func(*file) string) []sample {
	todo := filepath.Join(root, "todo-app")
	notes := filepath.Join(root, "notes")
	flaky := flakyTest(todo, now.Add(-26*time.Hour))
	fork := forkOf(flaky, pathOf(flaky), now.Add(-20*time.Hour))
	out := []*file{flaky, fork, darkMode(todo, now.Add(-5*time.Hour)), notesSession(notes, now.Add(-50*time.Minute)),
		retried(notes, now.Add(-3*24*time.Hour))}
	var ss []sample
	for _, f := range out {
		ss = append(ss, sample{cwd: f.cwd, data: f.bytes(), id: f.id})
	}
	return ss
}

// newSession starts a sample as pi starts a session: the header, then the
// model and the thinking level.
func newSession(cwd string, t time.Time) *file {
	f := newFile(cwd, t, "")
	f.entry("model_change", kv{"provider", "fake"}, kv{"modelId", "fake-model"})
	f.entry("thinking_level_change", kv{"thinkingLevel", "off"})
	return f
}

// flakyTest: a tool loop (read, bash, edit, bash) ending in a fix.
func flakyTest(cwd string, t time.Time) *file {
	f := newSession(cwd, t)
	f.user("The due-date test fails when I run it late in the evening. Can you find out why and fix it?")
	f.assistant("toolUse", 812, 64, text("Let me look at the code first."),
		call("call_1", "read", obj{{"path", "src/due.js"}}))
	f.result("call_1", "read", "export function isOverdue(due, now = new Date()) {\n  const d = new Date(due);\n  d.setHours(23, 59, 59, 999);\n  return now > d;\n}\n", false)
	f.assistant("toolUse", 1034, 41, call("call_2", "bash", obj{{"command", "TZ=America/Los_Angeles npm test"}}))
	f.result("call_2", "bash", "✖ a task due today is not overdue\n  AssertionError: Expected values to be strictly equal:\n  true !== false\n\nCommand exited with code 1", true)
	f.assistant("toolUse", 1290, 230,
		think("new Date(\"2026-03-14\") is midnight UTC, but setHours works in local time, so in a zone west of UTC the end of the day moves to the previous day."),
		text("`new Date(\"YYYY-MM-DD\")` parses as **UTC** midnight, but `setHours` then works in *local* time. West of UTC the end of the day lands on the previous day. I'll compute the end of the day in UTC instead."),
		call("call_3", "edit", obj{{"path", "src/due.js"}, {"edits", []any{obj{
			{"oldText", "  const d = new Date(due);\n  d.setHours(23, 59, 59, 999);\n  return now > d;"},
			{"newText", "  const [y, m, d] = due.split(\"-\").map(Number);\n  const endOfDay = Date.UTC(y, m - 1, d, 23, 59, 59, 999);\n  return now.getTime() > endOfDay;"}}}}}))
	f.result("call_3", "edit", "Successfully replaced 1 block(s) in src/due.js.", false)
	f.assistant("toolUse", 1502, 38, call("call_4", "bash", obj{{"command", "TZ=America/Los_Angeles npm test && TZ=Asia/Tokyo npm test"}}))
	f.result("call_4", "bash", "✔ a task due today is not overdue\n✔ a task due yesterday is overdue\nℹ tests 2\nℹ pass 2\n✔ a task due today is not overdue\n✔ a task due yesterday is overdue\nℹ tests 2\nℹ pass 2", false)
	done := f.assistant("stop", 1620, 120, text("Fixed. The test now passes in both Los Angeles and Tokyo time:\n\n```js\nconst endOfDay = Date.UTC(y, m - 1, d, 23, 59, 59, 999);\nreturn now.getTime() > endOfDay;\n```\n\nDue dates are now compared in UTC, so the answer no longer depends on the machine's time zone."))
	f.entry("label", kv{"targetId", done}, kv{"label", "fixed"})
	f.entry("session_info", kv{"name", "Fix the flaky due-date test"})
	return f
}

// forkOf: pi's fork before the follow-up question, asked differently.
func forkOf(src *file, srcPath string, t time.Time) *file {
	f := newFile(src.cwd, t, srcPath)
	// The fork holds the source up to the first tool result (pi copies the path).
	f.lines = append(f.lines, src.lines[1:6]...)
	f.last = lastID(src.lines[5])
	f.now = t
	f.user("Before fixing anything: explain in two sentences why time zones break this test.")
	f.assistant("stop", 420, 80, text("`new Date(\"2026-03-14\")` means midnight **UTC**, while `setHours` changes the date in the machine's *local* zone. West of UTC that moves the end of the day back by one day, so a task due today looks overdue in the evening."))
	return f
}

// darkMode: two branches from one answer, the current one last.
func darkMode(cwd string, t time.Time) *file {
	f := newSession(cwd, t)
	f.user("Add a dark theme to the app.")
	a := f.assistant("stop", 300, 90, text("Two options:\n\n1. A toggle stored in `localStorage`.\n2. Follow the system with `prefers-color-scheme`.\n\nWhich do you prefer?"))
	f.user("A toggle, please.")
	f.assistant("stop", 420, 60, text("I would add a button that sets `data-theme=\"dark\"` on `<html>` and remembers it."))
	f.from(a)
	f.user("Actually, just follow the system setting.")
	f.assistant("stop", 440, 120, text("Then no JavaScript is needed:\n\n```css\n@media (prefers-color-scheme: dark) {\n  :root { --bg: #111; --fg: #eee; }\n}\n```"))
	f.entry("session_info", kv{"name", "Dark theme"})
	return f
}

// notesSession: a longer chat with a thinking block, a bash execution and
// a compaction in the middle.
func notesSession(cwd string, t time.Time) *file {
	f := newSession(cwd, t)
	f.user("Read ideas.md and tell me which idea is the quickest win.")
	f.assistant("toolUse", 500, 30, call("call_1", "read", obj{{"path", "ideas.md"}}))
	f.result("call_1", "read", "# Ideas\n\n1. Recurring tasks (\"every Monday\").\n2. A dark theme that follows the system setting.\n3. Export the list as Markdown.\n", false)
	f.assistant("stop", 700, 110, think("Recurring tasks need a scheduler; the theme is a few lines of CSS; export is a small function."),
		text("The **dark theme** is the quickest: a few lines of CSS with `prefers-color-scheme`. Export to Markdown comes second."))
	f.tick(time.Minute)
	f.message(obj{{"role", "bashExecution"}, {"command", "wc -l ideas.md"}, {"output", "5 ideas.md\n"}, {"exitCode", 0},
		{"cancelled", false}, {"truncated", false}, {"timestamp", f.ms()}})
	kept := f.user("Write the export idea down in more detail.")
	f.assistant("stop", 900, 200, text("**Export as Markdown**: one `- [ ]` line per open task and `- [x]` per done task, grouped by list, downloadable from the menu."))
	f.entry("compaction", kv{"summary", "## Goal\nChoose and refine ideas from ideas.md.\n\n## Progress\n- Dark theme chosen as the quickest win.\n- Export idea written down."},
		kv{"firstKeptEntryId", kept}, kv{"tokensBefore", 2210},
		kv{"details", obj{{"readFiles", []string{"ideas.md"}}, {"modifiedFiles", []string{}}}}, kv{"fromHook", false})
	f.user("Great. What should the file name of the export be?")
	f.assistant("stop", 640, 50, text("`todo-YYYY-MM-DD.md`, dated with the day of the export."))
	return f
}

// retried: an error answer, then the successful retry.
func retried(cwd string, t time.Time) *file {
	f := newSession(cwd, t)
	f.user("Summarize README.md in one line.")
	f.tick(3 * time.Second)
	f.message(obj{{"role", "assistant"}, {"content", []any{}}, {"api", "openai-completions"}, {"provider", "fake"},
		{"model", "fake-model"}, {"usage", usage(0, 0)}, {"stopReason", "error"},
		{"errorMessage", "503 The demo model is overloaded"}, {"timestamp", f.ms()}})
	f.assistant("stop", 210, 20, text("Plain Markdown notes, with a file of ideas for the to-do app."))
	return f
}

// lastID reads the id of a line the builder wrote.
func lastID(line []byte) string {
	const key = `"id":"`
	for i := 0; i+len(key) < len(line); i++ {
		if string(line[i:i+len(key)]) == key {
			return string(line[i+len(key) : i+len(key)+8])
		}
	}
	return ""
}
