// Generates random but realistic sessions through pi's own SessionManager
// API, so every byte on disk is what pi 0.73.1 writes. Structure is seeded;
// the clock is seeded too (and sometimes jumps backwards, as real clocks do);
// pi's entry ids and the random part of session ids stay random.

import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { SessionManager } from "./pi.mjs";
import { NUMBERS, Rng, base64, installClock, object, text, value } from "./rand.mjs";

const CWDS = ["/home/user/proj", "/home/user/my project", "/tmp/ü/😀 dir", "/srv/a<&>b", "C:\\Users\\dev\\code", "/"];
const MODELS = [
	["anthropic", "claude-sonnet-4-5", "anthropic-messages"],
	["openai", "gpt-5", "openai-responses"],
	["google", "gemini-2.5-pro", "google-generative-ai"],
	["fake", "fake-model", "openai-completions"],
];
const THINKING = ["off", "minimal", "low", "medium", "high", "xhigh"];
const STOPS = ["stop", "stop", "stop", "length", "error", "aborted"];
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
		return { input, output, cacheRead: n(), cacheWrite: 0, totalTokens: input + output, cost };
	}

	assistant() {
		const r = this.rng;
		const [provider, model, api] = r.chance(0.9) ? this.model : r.pick(MODELS);
		const content = this.assistantContent();
		const stopReason = this.pendingCalls.length ? "toolUse" : r.pick(STOPS);
		const msg = { role: "assistant", content, api, provider, model };
		if (r.chance(0.1)) msg.responseId = `resp_${r.int(1e9)}`;
		Object.assign(msg, { usage: this.usage(), stopReason });
		if (stopReason === "error" || stopReason === "aborted") msg.errorMessage = text(r, 6);
		msg.timestamp = this.msgTime();
		this.sm.appendMessage(msg);
	}

	toolResults() {
		const r = this.rng;
		for (const call of this.pendingCalls.splice(0)) {
			if (r.chance(0.05)) continue; // a missing result, as after a crash
			const content = [{ type: "text", text: text(r, 25) }];
			if (r.chance(0.1)) content.push({ type: "image", data: base64(r, 32), mimeType: "image/png" });
			const msg = { role: "toolResult", toolCallId: call.id, toolName: call.name, content, isError: r.chance(0.15), timestamp: this.msgTime() };
			if (r.chance(0.4)) msg.details = r.chance(0.5) ? { diff: text(r, 10), firstChangedLine: r.int(100) } : value(r, 2);
			this.sm.appendMessage(msg);
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
		const first = r.weighted({ path: 6, any: 1, unknown: 1, none: 1 });
		const id = { path: () => this.pathId(), any: () => this.anyId(), unknown: () => "nope1234", none: () => undefined }[first]();
		const details = r.chance(0.6) ? { readFiles: ["src/a.ts", "ü.go"], modifiedFiles: r.chance(0.5) ? [] : ["b.ts"] } : undefined;
		const fromHook = r.pick([undefined, true, false]);
		this.sm.appendCompaction(`## Goal\n${text(r, 30)}`, id, r.pick(NUMBERS.concat([12345])), details, fromHook);
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
		this.sm.branchWithSummary(from ?? null, summary, details, r.pick([undefined, true, false]));
	}

	customMessage() {
		const r = this.rng;
		const content = r.chance(0.5) ? text(r, 10) : [{ type: "text", text: text(r, 10) }, ...(r.chance(0.3) ? [{ type: "image", data: base64(r, 20), mimeType: "image/gif" }] : [])];
		this.sm.appendCustomMessageEntry(r.pick(["my-ext", "plan", "ü-ext"]), content, r.chance(0.5), r.chance(0.5) ? object(r, 2) : undefined);
	}

	/** step performs one random action. */
	step() {
		const r = this.rng;
		this.clock.tick(r.chance(0.05) ? -r.int(3_600_000) : r.int(r.chance(0.3) ? 0 : 90_000));
		if (this.pendingCalls.length && r.chance(0.9)) return this.toolResults();
		const action = r.weighted({
			user: 10, assistant: 10, bash: 2, thinking: 1, model: 1, compaction: 2, custom: 1, customMessage: 2,
			label: 2, name: 1, branch: 2, resetLeaf: 0.3, branchSummary: 1.5,
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
			name: () => sm.appendSessionInfo(r.pick(["  My session  ", "", "   ", "名前 😀", "a\u2028b", "<script>x</script>"])),
			branch: () => {
				const id = this.anyId();
				if (id) sm.branch(id);
			},
			resetLeaf: () => sm.resetLeaf(),
			branchSummary: () => this.branchSummary(),
		};
		acts[action]();
	}
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
