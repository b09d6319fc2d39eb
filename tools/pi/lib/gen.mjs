// Generates random but realistic sessions through pi's own SessionManager
// API, so every byte on disk is what the loaded pi (1.6.0 or 0.73.1, see
// pi.mjs) writes. Structure is seeded; the clock is seeded too (and
// sometimes jumps backwards, as real clocks do); pi's entry ids and the
// random part of session ids stay random.
//
// Under pi 1.x the sessions also hold everything 1.x writes: system
// messages (a full one before the first prompt, patches later), context_edit
// entries (null, string and array replacements, several on one target),
// usage entries, compactions with usage and a systemMessage (pi adds it when
// the context has system messages), retain-none compactions (firstKeptEntryId
// is the compaction's own id), kept ranges starting at a label, branch
// summaries with usage, thinking level "max", and the new assistant and tool
// result fields. Under 0.73 the random draws are the ones 0.73-only
// generation always made, so a seed gives the same 0.73 corpus as before.

import { mkdirSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { SessionManager, major } from "./pi.mjs";
import { NUMBERS, Rng, base64, installClock, object, text, value } from "./rand.mjs";

const CWDS = ["/home/user/proj", "/home/user/my project", "/tmp/ü/😀 dir", "/srv/a<&>b", "C:\\Users\\dev\\code", "/"];
const MODELS = [
	["anthropic", "claude-sonnet-4-5", "anthropic-messages"],
	["openai", "gpt-5", "openai-responses"],
	["google", "gemini-2.5-pro", "google-generative-ai"],
	["fake", "fake-model", "openai-completions"],
];
/** V1 is true when the loaded pi is 1.x, which writes more entry types. */
const V1 = major >= 1;
const THINKING = ["off", "minimal", "low", "medium", "high", "xhigh", ...(V1 ? ["max"] : [])];
const STOPS = ["stop", "stop", "stop", "length", "error", "aborted", ...(V1 ? ["deferred"] : [])];
const USAGE_KINDS = ["cache_warm", "cache_warm", "nested", "classifier"];
const SECTIONS = ["preamble", "tools", "rules", "docs", "cwd"];
const TOOLS = ["read", "bash", "edit", "write", "grep"];

/** Session is one generated session: pi's manager plus our bookkeeping. */
class Session {
	constructor(rng, clock, dir, parent) {
		this.rng = rng;
		this.clock = clock;
		this.sm = SessionManager.create(rng.pick(CWDS), dir);
		if (parent || rng.chance(0.1)) this.sm.newSession({ parentSession: parent ?? "/elsewhere/old.jsonl" });
		this.model = rng.pick(MODELS);
		this.pendingCalls = [];
	}

	/** ids are every entry id so far, in file order. */
	ids() {
		return this.sm.getEntries().map((e) => e.id);
	}

	anyId() {
		const ids = this.ids();
		return ids.length ? this.rng.pick(ids) : undefined;
	}

	/** pathId picks an entry on the current branch (for valid compactions). */
	pathId() {
		const path = this.sm.getBranch();
		return path.length ? this.rng.pick(path).id : undefined;
	}

	/** msgTime is the message's own timestamp (ms), occasionally absent. */
	msgTime() {
		return this.rng.chance(0.05) ? undefined : this.clock.now() + this.rng.int(5);
	}

	user() {
		const r = this.rng;
		let content = text(r, 12);
		if (r.chance(0.5)) {
			content = [{ type: "text", text: content }];
			if (r.chance(0.25)) content.push({ type: "image", data: base64(r, 16 + r.int(64)), mimeType: r.pick(["image/png", "image/jpeg"]) });
			if (r.chance(0.2)) content.push({ type: "text", text: text(r, 5) });
		}
		this.sm.appendMessage({ role: "user", content, timestamp: this.msgTime() });
	}

	assistantContent() {
		const r = this.rng;
		const content = [];
		if (r.chance(0.4)) {
			const block = { type: "thinking", thinking: text(r, 20) };
			if (r.chance(0.7)) block.thinkingSignature = base64(r, 12);
			if (r.chance(0.1)) block.redacted = true;
			content.push(block);
		}
		if (r.chance(0.85)) content.push({ type: "text", text: text(r, 30) });
		for (let i = r.chance(0.4) ? 1 + r.int(3) : 0; i > 0; i--) {
			const call = { type: "toolCall", id: `toolu_${base64(r, 9).replace(/[+/=]/g, "x")}`, name: r.pick(TOOLS), arguments: object(r, 2) };
			content.push(call);
			this.pendingCalls.push(call);
		}
		return content;
	}

	usage() {
		const r = this.rng;
		const n = () => (r.chance(0.1) ? r.pick(NUMBERS) : r.int(100000));
		const input = n();
		const output = n();
		const cost = { input: input * 3e-6, output: output * 1.5e-5, cacheRead: 0, cacheWrite: r.pick([0, 0.1, 1e-7]), total: 0 };
		cost.total = cost.input + cost.output + cost.cacheWrite;
		if (!V1) return { input, output, cacheRead: n(), cacheWrite: 0, totalTokens: input + output, cost };
		const u = { input, output, cacheRead: n(), cacheWrite: r.chance(0.3) ? r.int(5000) : 0 };
		if (r.chance(0.2)) u.cacheWrite1h = r.int(3000);
		if (r.chance(0.5)) u.reasoning = typeof output === "number" && output > 0 ? r.int(output) : 0;
		u.totalTokens = input + output;
		if (r.chance(0.3)) cost.totalFromProvider = r.chance(0.5);
		u.cost = cost;
		return u;
	}

	assistant() {
		const r = this.rng;
		const [provider, model, api] = r.chance(0.9) ? this.model : r.pick(MODELS);
		const content = this.assistantContent();
		const stopReason = this.pendingCalls.length ? "toolUse" : r.pick(STOPS);
		const msg = { role: "assistant", content, api, provider, model };
		if (V1) return this.sm.appendMessage(this.assistantV1(msg, stopReason));
		if (r.chance(0.1)) msg.responseId = `resp_${r.int(1e9)}`;
		Object.assign(msg, { usage: this.usage(), stopReason });
		if (stopReason === "error" || stopReason === "aborted") msg.errorMessage = text(r, 6);
		msg.timestamp = this.msgTime();
		this.sm.appendMessage(msg);
	}

	/** assistantV1 adds the fields pi 1.x writes, in its key order. */
	assistantV1(msg, stopReason) {
		const r = this.rng;
		Object.assign(msg, { usage: this.usage(), stopReason, timestamp: this.msgTime() });
		if (r.chance(0.1)) msg.responseModel = `${msg.model}-2026-11-01`;
		if (r.chance(0.3)) msg.responseId = `resp_${r.int(1e9)}`;
		if (stopReason === "error" || stopReason === "aborted") msg.errorMessage = text(r, 6);
		if (stopReason === "deferred") {
			msg.deferred = { provider: msg.provider, modelId: msg.model, api: msg.api, id: `batch_${r.int(1e6)}` };
			if (r.chance(0.5)) msg.deferred.expiresAt = this.clock.now() + 86_400_000;
		}
		if (r.chance(0.9)) msg.durationMs = r.int(120_000);
		if (r.chance(0.9)) msg.thinkingLevel = r.pick(THINKING);
		return msg;
	}

	toolResults() {
		const r = this.rng;
		for (const call of this.pendingCalls.splice(0)) {
			if (r.chance(0.05)) continue; // a missing result, as after a crash
			const content = [{ type: "text", text: this.large ? bigOutput(r) : text(r, 25) }];
			if (r.chance(0.1)) content.push({ type: "image", data: base64(r, 32), mimeType: "image/png" });
			const msg = { role: "toolResult", toolCallId: call.id, toolName: call.name, content, isError: r.chance(0.15), timestamp: this.msgTime() };
			if (r.chance(0.4)) msg.details = r.chance(0.5) ? { diff: text(r, 10), firstChangedLine: r.int(100) } : value(r, 2);
			if (V1) this.toolResultV1(msg);
			this.sm.appendMessage(msg);
		}
	}

	/** toolResultV1 adds durationMs (before timestamp, as pi 1.x orders it), nested usage and calls. */
	toolResultV1(msg) {
		const r = this.rng;
		const { timestamp } = msg;
		delete msg.timestamp;
		if (r.chance(0.9)) msg.durationMs = r.int(30_000);
		msg.timestamp = timestamp;
		if (r.chance(0.1)) msg.usage = this.usage();
		if (r.chance(0.1)) {
			const calls = [];
			for (let i = 1 + r.int(3); i > 0; i--) {
				const call = { id: `n${r.int(1e6)}`, name: r.pick(TOOLS), status: r.pick(["ok", "ok", "error", "unfinished"]) };
				if (r.chance(0.7)) call.arguments = object(r, 1);
				else call.argumentsBytes = r.int(1e6);
				if (r.chance(0.7)) call.durationMs = r.int(5000);
				if (call.status === "error") call.error = text(r, 4);
				calls.push(call);
			}
			msg.nestedCalls = { calls, complete: r.chance(0.8) };
		}
	}

	bash() {
		const r = this.rng;
		const msg = { role: "bashExecution", command: r.pick(["ls", "go test ./...", "echo '<&>'", "cat \u2028x"]), output: text(r, 20), exitCode: r.pick([0, 0, 1, 127, null, undefined]) };
		Object.assign(msg, { cancelled: r.chance(0.1), truncated: r.chance(0.1), timestamp: this.msgTime() });
		if (msg.truncated && r.chance(0.7)) msg.fullOutputPath = "/tmp/pi-bash-out.txt";
		if (r.chance(0.2)) msg.excludeFromContext = true;
		this.sm.appendMessage(msg);
	}

	compaction() {
		const r = this.rng;
		const first = r.weighted({ path: 6, any: 1, unknown: 1, none: 1, label: V1 ? 2 : 0 });
		const id = { path: () => this.pathId(), any: () => this.anyId(), unknown: () => "nope1234", none: () => undefined, label: () => this.keptLabel() }[first]();
		const details = r.chance(0.6) ? { readFiles: ["src/a.ts", "ü.go"], modifiedFiles: r.chance(0.5) ? [] : ["b.ts"] } : undefined;
		const fromHook = r.pick([undefined, true, false]);
		const usage = V1 && r.chance(0.7) ? this.usage() : undefined;
		// Under 1.x, undefined and null both make a retain-none compaction (its own id).
		const kept = V1 && id === undefined && r.chance(0.5) ? null : id;
		this.sm.appendCompaction(`## Goal\n${text(r, 30)}`, kept, r.pick(NUMBERS.concat([12345])), details, fromHook, usage);
	}

	/**
	 * keptLabel is a label entry on the current branch, for a compaction's
	 * kept range to start at (pi's cut point pulls labels into it, and a fork
	 * that drops labels must remap it): an existing one, or one labelling an
	 * entry a few steps up, appended now with a message after it.
	 */
	keptLabel() {
		const r = this.rng;
		const labels = this.sm.getBranch().filter((e) => e.type === "label");
		if (labels.length && r.chance(0.5)) return r.pick(labels).id;
		const target = this.pathId();
		if (!target) return undefined;
		const id = this.sm.appendLabelChange(target, r.pick(["kept", "checkpoint", "😀"]));
		this.user();
		return id;
	}

	label() {
		const r = this.rng;
		const target = this.anyId();
		if (!target) return;
		this.sm.appendLabelChange(target, r.pick(["start", "  spaced  ", "😀 label", "<&>", undefined, "", "v2"]));
	}

	branchSummary() {
		const r = this.rng;
		const from = r.chance(0.15) ? null : this.anyId();
		const details = r.chance(0.5) ? { readFiles: [], modifiedFiles: [] } : undefined;
		const summary = r.chance(0.05) ? "" : `The user explored a branch.\n${text(r, 20)}`;
		const fromHook = r.pick([undefined, true, false]);
		this.sm.branchWithSummary(from ?? null, summary, details, fromHook, V1 && r.chance(0.6) ? this.usage() : undefined);
	}

	customMessage() {
		const r = this.rng;
		const content = r.chance(0.5) ? text(r, 10) : [{ type: "text", text: text(r, 10) }, ...(r.chance(0.3) ? [{ type: "image", data: base64(r, 20), mimeType: "image/gif" }] : [])];
		this.sm.appendCustomMessageEntry(r.pick(["my-ext", "plan", "ü-ext"]), content, r.chance(0.5), r.chance(0.5) ? object(r, 2) : undefined);
	}

	/**
	 * system appends a system message as pi 1.x writes them: the full prompt
	 * (sections and every tool) before a session's first prompt, or a patch
	 * later (changed or deleted sections, tools added or removed, text).
	 */
	system(full) {
		const r = this.rng;
		const msg = { role: "system", content: r.chance(0.8) ? "" : text(r, 8) };
		if (r.chance(0.1)) msg.content = [{ type: "text", text: text(r, 6) }];
		if (r.chance(0.03)) msg.content = null;
		const names = full ? SECTIONS : SECTIONS.filter(() => r.chance(0.3));
		if (names.length) msg.sections = Object.fromEntries(names.map((n) => [n, !full && r.chance(0.2) ? null : `<${n}>\n${text(r, 15)}\n</${n}>`]));
		msg.timestamp = this.msgTime();
		const tools = full ? TOOLS : TOOLS.filter(() => r.chance(0.2));
		if (tools.length) msg.toolsAdded = tools.map((name) => ({ name, description: text(r, 6), parameters: { type: "object", properties: object(r, 1), required: [] } }));
		if (!full && r.chance(0.3)) msg.toolsRemoved = [{ name: r.pick(TOOLS) }];
		this.sm.appendMessage(msg);
	}

	/**
	 * contextEdit edits an entry on the current branch that pi lets edit (a
	 * user, assistant or toolResult message, or a custom_message): omitted
	 * (null, as pi's auto-retry does), or replaced by a string (pi stores it
	 * as a text block for assistant and toolResult) or by blocks; sometimes
	 * twice, so the later edit must win.
	 */
	contextEdit() {
		const r = this.rng;
		const editable = this.sm.getBranch().filter((e) => e.type === "custom_message" || (e.type === "message" && ["user", "assistant", "toolResult"].includes(e.message.role)));
		if (!editable.length) return;
		const target = r.pick(editable).id;
		for (let i = r.chance(0.2) ? 2 : 1; i > 0; i--) {
			const replacement = r.weighted({
				none: 3,
				string: 2,
				blocks: 1,
			});
			const content = { none: null, string: { content: text(r, 10) }, blocks: { content: [{ type: "text", text: text(r, 10) }] } }[replacement];
			this.sm.appendContextEdit(target, content);
		}
	}

	/** step performs one random action. */
	step() {
		const r = this.rng;
		this.clock.tick(r.chance(0.05) ? -r.int(3_600_000) : r.int(r.chance(0.3) ? 0 : 90_000));
		if (this.pendingCalls.length && r.chance(0.9)) return this.toolResults();
		const action = r.weighted({
			user: 10, assistant: 10, bash: 2, thinking: 1, model: 1, compaction: 2, custom: 1, customMessage: 2,
			label: 2, name: 1, branch: 2, resetLeaf: 0.3, branchSummary: 1.5,
			system: V1 ? 1 : 0, contextEdit: V1 ? 2 : 0, usageEntry: V1 ? 1 : 0,
		});
		const sm = this.sm;
		const acts = {
			user: () => this.user(),
			assistant: () => this.assistant(),
			bash: () => this.bash(),
			thinking: () => sm.appendThinkingLevelChange(r.pick(THINKING)),
			model: () => {
				this.model = r.pick(MODELS);
				sm.appendModelChange(this.model[0], this.model[1]);
			},
			compaction: () => this.compaction(),
			custom: () => sm.appendCustomEntry(r.pick(["my-ext", "todo", ""]), r.chance(0.2) ? undefined : value(r, 3)),
			customMessage: () => this.customMessage(),
			label: () => this.label(),
			name: () => sm.appendSessionInfo(r.pick(["  My session  ", "", "   ", "名前 😀", "a\u2028b", "<script>x</script>", "  My\nfirst \r\n session  ", "\n\r\n", "line\rbreak"])),
			branch: () => {
				const id = this.anyId();
				if (id) sm.branch(id);
			},
			resetLeaf: () => sm.resetLeaf(),
			branchSummary: () => this.branchSummary(),
			system: () => this.system(false),
			contextEdit: () => this.contextEdit(),
			usageEntry: () => sm.appendUsage(r.pick(USAGE_KINDS), this.model[0], this.model[1], this.usage(), r.chance(0.3) ? r.pick(["warming", "extension override"]) : undefined),
		};
		acts[action]();
	}
}

/** bigOutput is a tool's output as large sessions have them: a file read, 2-40 KB of code-like lines. */
function bigOutput(rng) {
	const lines = [];
	for (let n = 50 + rng.int(800); n > 0; n--) lines.push(`${"\t".repeat(rng.int(4))}${text(rng, 8)}`);
	return lines.join("\n");
}

/**
 * generateLarge writes one session of at least mb megabytes into outDir,
 * as a long pi 1.x (or 0.73) session grows: the usual random steps, with
 * tool results as large as real file reads, and answers its path.
 */
export function generateLarge(seed, outDir, mb) {
	return oneSession("gen-large", seed, outDir, mb, (s) => {
		s.large = true;
		if (V1) s.system(true);
		s.user();
		s.assistant();
		for (let k = 0; k % 100 !== 0 || statSync(s.sm.getSessionFile()).size < mb * 1e6; k++) s.step();
	});
}

/**
 * oneSession checks cmd's SEED and MB, makes outDir, runs grow on a new
 * session under a clock of the seed's and answers the session's path.
 */
function oneSession(cmd, seed, outDir, mb, grow) {
	if (!Number.isFinite(seed) || !(mb > 0)) throw new Error(cmd + ": SEED and MB must be numbers");
	const dir = resolve(outDir);
	mkdirSync(dir, { recursive: true });
	const rng = new Rng(seed);
	const clock = installClock(Date.UTC(2026, 0, 1) + rng.int(365 * 86_400_000));
	try {
		const s = new Session(rng, clock, dir);
		grow(s, rng, clock);
		return s.sm.getSessionFile();
	} finally {
		clock.restore();
	}
}

/**
 * generateSmall writes one session of at least mb megabytes of short
 * entries into outDir, as a long chat of small steps grows: prompts,
 * answers with thinking and tool calls, and short tool results (entries of
 * about 1 KB, nothing else), and answers its path.
 */
export function generateSmall(seed, outDir, mb) {
	return oneSession("gen-small", seed, outDir, mb, (s, rng, clock) => {
		if (V1) s.system(true);
		s.user();
		s.assistant(); // pi writes the file once an answer exists
		let userNext = !s.pendingCalls.length;
		for (let k = 1; k % 100 !== 0 || statSync(s.sm.getSessionFile()).size < mb * 1e6; k++) {
			clock.tick(rng.int(30_000));
			if (s.pendingCalls.length) {
				s.toolResults();
				userNext = false;
			} else if (userNext) {
				s.user();
				userNext = false;
			} else {
				s.assistant();
				userNext = !s.pendingCalls.length;
			}
		}
	});
}

/**
 * generate writes n sessions for seed into outDir and returns their paths.
 * Every session starts with a user and an assistant message, because pi
 * only creates the file once an assistant message exists.
 */
export function generate(seed, outDir, n = 20) {
	if (!Number.isFinite(seed) || !Number.isFinite(n)) throw new Error("gen: SEED and N must be numbers");
	n = Math.max(0, Math.min(n, 1000));
	const dir = resolve(outDir);
	mkdirSync(dir, { recursive: true });
	const rng = new Rng(seed);
	const clock = installClock(Date.UTC(2026, 0, 1) + rng.int(365 * 86_400_000));
	const files = [];
	try {
		for (let i = 0; i < n; i++) {
			const s = new Session(rng, clock, dir, i > 0 && rng.chance(0.1) ? files[files.length - 1] : undefined);
			if (rng.chance(0.5)) s.sm.appendModelChange(s.model[0], s.model[1]);
			if (rng.chance(0.4)) s.sm.appendThinkingLevelChange(rng.pick(THINKING));
			if (V1 && rng.chance(0.85)) s.system(true);
			s.user();
			s.assistant();
			for (let k = rng.int(rng.chance(0.1) ? 300 : 40); k > 0; k--) s.step();
			files.push(s.sm.getSessionFile());
			clock.tick(rng.int(86_400_000));
		}
	} finally {
		clock.restore();
	}
	return files;
}
