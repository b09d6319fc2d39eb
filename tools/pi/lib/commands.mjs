// The oracle's read-only questions to real pi. Each command takes string
// arguments and returns a JSON-serialisable value (or a Promise of one).

import { SessionManager, checkExports, contextAt, packageVersion, parentCycle, withCopy } from "./pi.mjs";
import { generate, generateLarge, generateSmall } from "./gen.mjs";
import { generateDamaged } from "./damage.mjs";
import { flatTree, treeCycle } from "./tree.mjs";

/** leafArg maps the command-line leaf: absent → undefined, "null" → null. */
function leafArg(s) {
	if (s === undefined) return undefined;
	return s === "null" ? null : s;
}

function need(args, n, usage) {
	if (args.length < n) throw new Error(`usage: ${usage}`);
}

/** labelsOf lists every entry's resolved label and label timestamp. */
function labelsOf(sm) {
	const labels = {};
	for (const [id, label] of sm.labelsById) {
		labels[id] = { label, timestamp: sm.labelTimestampsById.get(id) };
	}
	return labels;
}

/** leafIds are the entries no other entry names as its parent. */
function leafIds(entries) {
	const parents = new Set(entries.map((e) => e?.parentId));
	return entries.filter((e) => e && typeof e.id === "string" && !parents.has(e.id)).map((e) => e.id);
}

/** context FILE [LEAF]: buildSessionContext(entries, LEAF) after open. */
function context(args) {
	need(args, 1, "context FILE [LEAF]");
	return withCopy(args[0], ({ sm }) => contextAt(sm.getEntries(), leafArg(args[1])));
}

/**
 * contexts FILE [LEAF...]: one open, then the context at each LEAF (default:
 * every leaf entry). Answers {byLeaf: {id: context | {error}}}.
 * Paths with parent cycles answer {error, code: "cycle"} instead of hanging.
 */
function contexts(args) {
	need(args, 1, "contexts FILE [LEAF...]");
	return withCopy(args[0], ({ sm }) => {
		const entries = sm.getEntries();
		const ids = args.length > 1 ? args.slice(1) : leafIds(entries);
		const byLeaf = {};
		for (const id of ids) {
			try {
				byLeaf[id] = contextAt(entries, leafArg(id));
			} catch (err) {
				byLeaf[id] = { error: err.message, code: err.code };
			}
		}
		return { byLeaf };
	});
}

/** leaves FILE: ids of entries without children, in file order. */
function leaves(args) {
	need(args, 1, "leaves FILE");
	return withCopy(args[0], ({ sm }) => leafIds(sm.getEntries()));
}

/** safeTree is sm.getTree(), refusing node loops on which pi never returns. */
function safeTree(sm) {
	if (treeCycle(sm.getEntries())) {
		const err = new Error("duplicate ids link the tree into a loop: pi's getTree would never return");
		err.code = "cycle";
		throw err;
	}
	return sm.getTree();
}

/** tree FILE: SessionManager.getTree(), nested exactly as pi returns it. */
function tree(args) {
	need(args, 1, "tree FILE");
	return withCopy(args[0], ({ sm }) => safeTree(sm));
}

/** tree-flat FILE: getTree() as {roots, nodes} with index references. */
function treeFlat(args) {
	need(args, 1, "tree-flat FILE");
	return withCopy(args[0], ({ sm }) => flatTree(safeTree(sm)));
}

/** open FILE: everything pi holds after opening the file. */
function open(args) {
	need(args, 1, "open FILE");
	return withCopy(args[0], ({ sm, rewritten, after }) => {
		const entries = sm.getEntries();
		const cycle = parentCycle(entries, sm.getLeafId());
		return {
			header: sm.getHeader(),
			sessionId: sm.getSessionId(),
			cwd: sm.getCwd(),
			entries,
			leafId: sm.getLeafId(),
			name: sm.getSessionName(),
			labels: labelsOf(sm),
			tree: treeOrError(sm),
			context: cycle === undefined ? sm.buildSessionContext() : { error: `parentId cycle at ${cycle}`, code: "cycle" },
			rewritten,
			rewrittenText: rewritten ? after.toString("utf8") : undefined,
		};
	});
}

function treeOrError(sm) {
	try {
		return safeTree(sm);
	} catch (err) {
		return { error: err.message, code: err.code };
	}
}

/** withAgentDir runs fn with PI_CODING_AGENT_DIR set, then restores it. */
async function withAgentDir(dir, fn) {
	const old = process.env.PI_CODING_AGENT_DIR;
	process.env.PI_CODING_AGENT_DIR = dir;
	try {
		return await fn();
	} finally {
		if (old === undefined) delete process.env.PI_CODING_AGENT_DIR;
		else process.env.PI_CODING_AGENT_DIR = old;
	}
}

/** listall AGENTDIR: SessionManager.listAll() over AGENTDIR/sessions/*. */
function listall(args) {
	need(args, 1, "listall AGENTDIR");
	return withAgentDir(args[0], () => SessionManager.listAll());
}

/** list DIR: SessionManager.list(cwd, DIR), read-only. */
function list(args) {
	need(args, 1, "list DIR");
	return SessionManager.list(process.cwd(), args[0]);
}

function gen(args) {
	need(args, 2, "gen SEED OUTDIR [N]");
	return generate(Number(args[0]), args[1], args[2] === undefined ? 20 : Number(args[2]));
}

function genLarge(args) {
	need(args, 3, "gen-large SEED OUTDIR MB");
	return generateLarge(Number(args[0]), args[1], Number(args[2]));
}

/** gen-small SEED OUTDIR MB: gen-large's session with short tool results (entries of about 1 KB). */
function genSmall(args) {
	need(args, 3, "gen-small SEED OUTDIR MB");
	return generateSmall(Number(args[0]), args[1], Number(args[2]));
}

function genDamaged(args) {
	need(args, 2, "gen-damaged SEED OUTDIR");
	return generateDamaged(Number(args[0]), args[1]);
}

export const commands = {
	context,
	contexts,
	leaves,
	tree,
	"tree-flat": treeFlat,
	open,
	list,
	listall,
	gen,
	"gen-large": genLarge,
	"gen-small": genSmall,
	"gen-damaged": genDamaged,
	version: () => packageVersion(),
	"check-exports": () => checkExports(),
};
