// gen.mjs writes session files with pi 1.6.0's own SessionManager, covering
// every entry type and field pi 1.x writes (system messages and patches,
// context_edit, usage entries, compaction usage/systemMessage/retain-none,
// branch summaries, thinking level max, 1.x assistant and tool result
// fields), plus its createBranchedSession output. The files in ../gen-out
// were written by it; rerun it with the pinned pi to regenerate them:
//
//   node gen.mjs PATH/TO/pi-coding-agent/dist/core/session-manager.js OUTDIR
import { mkdirSync, readdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [corePath, out] = process.argv.slice(2);
const { SessionManager } = await import(pathToFileURL(corePath).href);
mkdirSync(out, { recursive: true });

let clock = Date.parse("2026-11-25T10:00:00.000Z");
const realNow = Date.now;
Date.now = () => (clock += 1000);
const RealDate = Date;
globalThis.Date = class extends RealDate {
	constructor(...a) { super(...(a.length ? a : [Date.now()])); }
	static now() { return clock += 1000; }
};

const usage = (input, output, extra = {}) => ({
	input, output, cacheRead: 0, cacheWrite: 0, ...extra, totalTokens: input + output,
	cost: { input: input / 1e6, output: output / 5e5, cacheRead: 0, cacheWrite: 0, total: input / 1e6 + output / 5e5 },
});
const ts = () => clock;
const user = (content) => ({ role: "user", content, timestamp: ts() });
const assistant = (text, extra = {}) => ({
	role: "assistant", content: [{ type: "text", text }], api: "openai-completions", provider: "fake", model: "fake-model",
	usage: usage(100, 20), stopReason: "stop", timestamp: ts(), responseId: "r1", durationMs: 1234, thinkingLevel: "max", ...extra,
});
const system = (extra) => ({ role: "system", content: "", ...extra, timestamp: ts() });

function s1(sm) {
	sm.appendModelChange("fake", "fake-model");
	sm.appendThinkingLevelChange("max");
	sm.appendMessage(system({ sections: { preamble: "You are pi.", tools: "read, bash", cwd: "/home/user/proj" },
		toolsAdded: [{ name: "read", description: "Read a file", parameters: { type: "object" } }] }));
	const u1 = sm.appendMessage(user("Hello <&> \u2028 line 🎉"));
	const a1 = sm.appendMessage({
		role: "assistant",
		content: [{ type: "thinking", thinking: "hmm" }, { type: "text", text: "Let me look." },
			{ type: "toolCall", id: "call_1", name: "bash", arguments: { "1": "x", command: "ls" } }],
		api: "openai-completions", provider: "fake", model: "fake-model", responseModel: "fake-model-2026",
		usage: usage(200, 50, { cacheWrite1h: 0, reasoning: 10 }), stopReason: "toolUse", timestamp: ts(),
		responseId: "r0", rawStopReason: "tool_calls", durationMs: 2000, thinkingLevel: "max",
	});
	const tr = sm.appendMessage({ role: "toolResult", toolCallId: "call_1", toolName: "bash",
		content: [{ type: "text", text: "file.txt" }], details: { exit: 0 }, isError: false, durationMs: 15,
		usage: usage(30, 5), nestedCalls: { calls: [{ id: "n1", name: "read", status: "ok", durationMs: 3 }], complete: true },
		timestamp: ts() });
	const a2 = sm.appendMessage(assistant("First answer"));
	sm.appendMessage({ role: "bashExecution", command: "echo hi", output: "hi\n", exitCode: 0, cancelled: false, truncated: false, timestamp: ts() });
	sm.appendMessage({ role: "bashExecution", command: "echo secret", output: "secret\n", exitCode: 0, cancelled: false, truncated: false, timestamp: ts(), excludeFromContext: true });
	sm.appendMessage({ role: "custom", customType: "legacy", content: "legacy custom role", display: true, timestamp: ts() });
	const cm = sm.appendCustomMessageEntry("ext", "custom message text", true, { k: 1 });
	sm.appendCustomMessageEntry("ext", [{ type: "text", text: "second custom" }], false);
	sm.appendCustomEntry("state", { x: 1 });
	sm.appendCustomEntry("pi.virtual-model-state", { provider: "fake", modelId: "v", state: {} });
	sm.appendUsage("cache_warm", "fake", "fake-model", usage(0, 0), "warming");
	sm.appendUsage("cache_warm", "fake", "fake-model", usage(1000, 0));
	sm.appendSessionInfo("  two\nlines \r\n here ");
	sm.appendSessionInfo("");
	sm.appendSessionInfo("Renamed");
	const lbl = sm.appendLabelChange(u1, "start");
	sm.appendLabelChange(a2, "answer");
	sm.appendLabelChange(a2, "");
	sm.appendLabelChange(a1, "tool");
	sm.appendMessage(system({ sections: { tools: null, rules: "Be brief." }, toolsRemoved: [{ name: "read" }] }));
	const u2 = sm.appendMessage(user([{ type: "text", text: "Second question" }, { type: "image", data: "aGk=", mimeType: "image/png" }]));
	const a3 = sm.appendMessage(assistant("Second answer"));
	sm.appendContextEdit(a3, { content: "replaced answer" });
	sm.appendContextEdit(cm, { content: [{ type: "text", text: "edited custom" }] });
	sm.appendContextEdit(u1, { content: "edited once" });
	sm.appendContextEdit(u1, { content: [{ type: "text", text: "edited twice" }] });
	sm.appendContextEdit(tr, null);
	const u3 = sm.appendMessage(user("Third"));
	sm.appendMessage(assistant("Third answer"));
	sm.appendCompaction("## Goal\nsummary one", u2, 5000, { readFiles: [], modifiedFiles: [] }, false, usage(400, 80));
	sm.appendMessage(user("After compaction"));
	const err = sm.appendMessage(assistant("", { content: [], stopReason: "error", errorMessage: "boom" }));
	sm.appendContextEdit(err, null);
	sm.appendMessage(system({ sections: { rules: "Be briefer." } }));
	sm.appendMessage(user("Retry"));
	sm.appendMessage(assistant("Retried answer", { stopReason: "stop" }));
	sm.appendCompaction("summary two (retain none)", undefined, 6000, undefined, false, usage(300, 60));
	const u5 = sm.appendMessage(user("After retain none"));
	const main = sm.appendMessage(assistant("Final answer"));
	// an in-place branch from the second question
	sm.branch(u2);
	sm.appendMessage(user("Branch question"));
	const bleaf = sm.appendMessage(assistant("Branch answer"));
	// summary of the abandoned branch, back before the first compaction
	sm.branchWithSummary(u3, "The user explored a branch.", { readFiles: [], modifiedFiles: [] }, false, usage(50, 10));
	sm.appendMessage(user("After branch summary"));
	sm.appendMessage(assistant("ok"));
	sm.branchWithSummary(null, "A new root summary.");
	sm.appendMessage(user("New root via summary"));
	sm.resetLeaf();
	sm.appendMessage(user("Another root"));
	sm.appendMessage({ role: "assistant", content: null, api: "x", provider: "fake", model: "fake-model", usage: usage(1, 1), stopReason: "stop", timestamp: ts() });
	return { main, lbl, bleaf, u5 };
}

function s3(sm) {
	sm.appendMessage(user("q1"));
	sm.appendMessage(assistant("a1"));
	const l = sm.appendLabelChange(sm.getLeafId(), "mark");
	sm.appendMessage(user("q2"));
	sm.appendMessage(assistant("a2"));
	sm.appendCompaction("summary", l, 100, undefined, false);
	sm.appendMessage(user("q3"));
	return sm.appendMessage(assistant("a3"));
}

function file(name, fn) {
	const dir = join(out, "tmp");
	mkdirSync(dir, { recursive: true });
	const sm = SessionManager.create("/home/user/proj", dir);
	const r = fn(sm);
	const path = sm.getSessionFile();
	renameSync(path, join(out, `${name}.jsonl`));
	return { r, path: join(out, `${name}.jsonl`) };
}

function branch(src, leaf, name) {
	const sm = SessionManager.open(src, join(out, "tmp"));
	const p = sm.createBranchedSession(leaf);
	renameSync(p, join(out, `${name}.jsonl`));
}

const one = file("s1", s1);
branch(one.path, one.r.main, "s1branch");
branch(one.path, one.r.lbl, "s1branchAtLabel");
branch(one.path, one.r.bleaf, "s1branchInPlace");
const three = file("s3", s3);
branch(three.path, three.r, "s3branch");
file("s6", (sm) => sm.appendMessage(user("only a user message")));
for (const f of readdirSync(join(out, "tmp"))) throw new Error(`left over: ${f}`);
Date.now = realNow;
