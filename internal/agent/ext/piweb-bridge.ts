// piweb bridge: what pi's RPC mode lacks, as extension commands that piweb
// (internal/agent) sends with the RPC "prompt" command. Written by piweb to
// a private folder and loaded with -e; not meant to be typed by users.
//
//   /piweb-tree  {"nonce","target","summarize"?,"customInstructions"?,"replaceInstructions"?,"label"?}
//   /piweb-label {"nonce","target","label"}      (empty label clears it)
//   /piweb-leaf  {"nonce"}
//   /piweb-abort-compact {"nonce"}               (answers {"aborted"|"pending"})
//
// Each command answers with ctx.ui.setStatus("piweb-bridge:<nonce>", JSON),
// which reaches piweb as an extension_ui_request that it keeps to itself:
// {"ok":true,"leaf":<id|null>,...} or {"ok":false,"error":"..."}.
//
// Aborting a compaction: pi's AgentSession.abortCompaction() has no RPC
// command, and an extension sees a running compaction's AbortSignal (in
// session_before_compact) but not its controller. The bridge installs a
// subclass of AbortController as the global one that remembers each
// controller by its signal, so /piweb-abort-compact aborts the controller
// pi itself made: pi then ends the compaction as abortCompaction() would
// (compaction_end aborted, nothing written). An abort that arrives before
// session_before_compact makes the bridge cancel that compaction when it
// comes (within pendingAbortMs).
//
// At load it also imports the LLM provider module of the current model in
// the background (pi loads it lazily on the first request, ~0.2 s), so the
// first answer of a pre-started pi comes sooner.

import { realpathSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const providerFiles: Record<string, string> = {
	"anthropic-messages": "anthropic.js",
	"openai-completions": "openai-completions.js",
	"openai-responses": "openai-responses.js",
	"azure-openai-responses": "azure-openai-responses.js",
	"openai-codex-responses": "openai-codex-responses.js",
	"mistral-conversations": "mistral.js",
	"google-generative-ai": "google.js",
	"google-vertex": "google-vertex.js",
	"bedrock-converse-stream": "amazon-bedrock.js",
};

// Node's own require (Node >= 20.19 loads ES modules with it) bypasses the
// extension loader's transpiler, so the module lands in Node's module cache
// where pi's lazy import finds it. setImmediate keeps pi's start-up first.
function nativeLoad(path: string) {
	setImmediate(() => {
		try {
			createRequire(path)(path);
		} catch {
			// Older Node: no require(esm); pi loads it lazily as usual.
		}
	});
}
const warmed = new Set<string>();

function warm(api: string | undefined) {
	const file = api && providerFiles[api];
	if (!file || warmed.has(file) || process.env.PIWEB_BRIDGE_NO_WARM) return;
	warmed.add(file);
	// Node loads its fetch implementation (undici) on first use; a data: URL
	// loads it without touching the network.
	fetch("data:text/plain,piweb").then((r) => r.text()).catch(() => {});
	try {
		const cli = realpathSync(process.argv[1]);
		const pkg = dirname(dirname(cli)); // .../pi-coding-agent
		for (const ai of [join(pkg, "..", "pi-ai"), join(pkg, "node_modules", "@mariozechner", "pi-ai")]) {
			const path = join(ai, "dist", "providers", file);
			if (existsSync(path)) {
				nativeLoad(path);
				return;
			}
		}
	} catch {
		// Warming is an optimisation only.
	}
}

// controllers maps signals to their controllers, once per process (the
// extension is loaded again when pi replaces its runtime).
const trackKey = Symbol.for("piweb.abortControllers");
const controllers: WeakMap<AbortSignal, AbortController> =
	(globalThis as any)[trackKey] ??
	(() => {
		const byControllerSignal = new WeakMap<AbortSignal, AbortController>();
		const Base = globalThis.AbortController;
		class TrackedAbortController extends Base {
			constructor() {
				super();
				byControllerSignal.set(this.signal, this);
			}
		}
		globalThis.AbortController = TrackedAbortController;
		(globalThis as any)[trackKey] = byControllerSignal;
		return byControllerSignal;
	})();

const pendingAbortMs = 3000;

function parse(args: string): any {
	try {
		return JSON.parse(args);
	} catch {
		return undefined;
	}
}

export default function (pi: any) {
	const reply = (ctx: any, nonce: string, v: unknown) => ctx.ui.setStatus(`piweb-bridge:${nonce}`, JSON.stringify(v));
	const command = (name: string, description: string, run: (req: any, ctx: any) => Promise<object>) => {
		pi.registerCommand(name, {
			description,
			handler: async (args: string, ctx: any) => {
				const req = parse(args);
				if (!req || typeof req.nonce !== "string") return;
				try {
					const out = await run(req, ctx);
					reply(ctx, req.nonce, { ok: true, leaf: ctx.sessionManager.getLeafId() ?? null, ...out });
				} catch (e: any) {
					reply(ctx, req.nonce, { ok: false, error: String(e?.message ?? e) });
				}
			},
		});
	};

	command("piweb-tree", "piweb internal: move the session leaf in place", async (req, ctx) => {
		await ctx.waitForIdle();
		const entry = ctx.sessionManager.getEntry(req.target);
		const r = await ctx.navigateTree(req.target, {
			summarize: !!req.summarize,
			customInstructions: req.customInstructions,
			replaceInstructions: req.replaceInstructions,
			label: req.label,
		});
		let editorText: string | undefined;
		if (entry?.type === "message" && entry.message.role === "user") {
			const c = entry.message.content;
			editorText = typeof c === "string" ? c : c.filter((p: any) => p.type === "text").map((p: any) => p.text).join("");
		}
		return { cancelled: r.cancelled, editorText };
	});

	command("piweb-label", "piweb internal: set or clear an entry label", async (req, ctx) => {
		if (!ctx.sessionManager.getEntry(req.target)) throw new Error(`Entry ${req.target} not found`);
		pi.setLabel(req.target, req.label ? String(req.label) : undefined);
		return {};
	});

	command("piweb-leaf", "piweb internal: report the current leaf", async () => ({}));

	// The compaction under way: its controller, until session_compact.
	let compaction: AbortController | undefined;
	let abortBefore = 0; // cancel a compaction that starts before this time
	pi.on("session_before_compact", async (event: any) => {
		compaction = controllers.get(event.signal);
		if (Date.now() < abortBefore) {
			abortBefore = 0;
			return { cancel: true };
		}
		return undefined;
	});
	pi.on("session_compact", async () => {
		compaction = undefined;
	});
	command("piweb-abort-compact", "piweb internal: abort the running compaction", async () => {
		if (compaction && !compaction.signal.aborted) {
			compaction.abort();
			compaction = undefined;
			return { aborted: true };
		}
		abortBefore = Date.now() + pendingAbortMs;
		return { aborted: false, pending: true };
	});

	pi.on("session_start", async (_event: any, ctx: any) => warm(ctx.model?.api));
	pi.on("model_select", async (event: any) => warm(event?.model?.api));
}
