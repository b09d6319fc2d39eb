// Writes damaged copies of generated sessions (torn writes, foreign edits,
// encoding accidents) plus a manifest that records, per file, what pi's open
// did to a copy and whether any parent walk would loop forever in pi.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { generate } from "./gen.mjs";
import { openCopy, parentCycle } from "./pi.mjs";
import { Rng } from "./rand.mjs";
import { treeCycle } from "./tree.mjs";

/** Lines is a file split on "\n" without the final empty piece. */
function lines(text) {
	const ls = text.split("\n");
	if (ls[ls.length - 1] === "") ls.pop();
	return ls;
}

const join1 = (ls) => `${ls.join("\n")}\n`;

/** mid is an index in [1, n-1), so the header and last line stay put. */
const mid = (rng, n) => 1 + rng.int(Math.max(1, n - 2));

/** editEntry re-encodes line i after fn changed its parsed object. */
function editEntry(ls, i, fn) {
	const e = JSON.parse(ls[i]);
	fn(e);
	ls[i] = JSON.stringify(e);
	return ls;
}

/** insert puts extra lines at random middle positions. */
function insert(rng, ls, extra) {
	for (const x of extra) ls.splice(mid(rng, ls.length), 0, x);
	return ls;
}

/** DAMAGES maps a name to [what it models, fn(rng, text) → string | Buffer]. */
export const DAMAGES = {
	"truncated-final-line": ["a write torn mid-line", (r, t) => t.slice(0, t.length - 1 - Math.floor(lines(t).at(-1).length / 2))],
	"garbage-middle": ["an unparsable line between entries", (r, t) => join1(insert(r, lines(t), ['{"type":"message","id":', "not json at all"]))],
	"trailing-junk": ["valid JSON followed by junk on one line", (r, t) => join1(((ls, i) => ((ls[i] += " x"), ls))(lines(t), mid(r, lines(t).length)))],
	bom: ["a UTF-8 byte order mark before the header", (r, t) => `\ufeff${t}`],
	crlf: ["CRLF line endings", (r, t) => t.replaceAll("\n", "\r\n")],
	"cr-only": ["CR line endings (one giant line to pi)", (r, t) => t.replaceAll("\n", "\r")],
	"blank-lines": ["empty and whitespace-only lines", (r, t) => `\n${join1(insert(r, lines(t), ["", "   ", "\t", "\r"]))}\n\n`],
	"scalar-lines": ["lines holding a number, string, array, boolean", (r, t) => join1(insert(r, lines(t), ["42", '"a string"', "[1,2,3]", "true", "{}"]))],
	"null-line": ["a line holding null", (r, t) => join1(insert(r, lines(t), ["null"]))],
	"scalar-first": ["a number before the header", (r, t) => `42\n${t}`],
	"duplicate-header": ["the header repeated mid-file", (r, t) => join1(insert(r, lines(t), [lines(t)[0]]))],
	"second-header": ["another session's header on line 2", (r, t) => join1(insert(r, lines(t), [JSON.stringify({ type: "session", version: 3, id: "other-id", timestamp: "2020-01-01T00:00:00.000Z", cwd: "/other" })]))],
	"missing-header": ["the header line removed", (r, t) => join1(lines(t).slice(1))],
	"header-not-first": ["header and first entry swapped", (r, t) => join1(((ls) => ([ls[0], ls[1]] = [ls[1], ls[0]], ls))(lines(t)))],
	"header-id-number": ["a numeric session id", (r, t) => join1(editEntry(lines(t), 0, (h) => (h.id = 12345)))],
	"no-version": ["header without version (pi treats it as v1)", (r, t) => join1(editEntry(lines(t), 0, (h) => delete h.version))],
	"version-2": ["a v2 header with a hookMessage", (r, t) => join1(hookMessage(editEntry(lines(t), 0, (h) => (h.version = 2))))],
	"header-only": ["only the header", (r, t) => join1(lines(t).slice(0, 1))],
	empty: ["an empty file", () => ""],
	"whitespace-only": ["only whitespace", () => "  \n\n\t\n"],
	"orphan-parent": ["a parentId naming no entry", (r, t) => join1(editEntry(lines(t), mid(r, lines(t).length), (e) => (e.parentId = "deadbeef")))],
	"no-parent-field": ["an entry without parentId", (r, t) => join1(editEntry(lines(t), mid(r, lines(t).length), (e) => delete e.parentId))],
	"bad-timestamp": ["unparsable entry timestamps", (r, t) => join1(lines(t).map((l, i) => (i > 0 && r.chance(0.3) ? l.replace(/"timestamp":"[^"]*"/, '"timestamp":"not a date"') : l)))],
	"duplicate-line": ["an entry line written twice", (r, t) => join1(((ls) => (ls.push(ls[mid(r, ls.length)]), ls))(lines(t)))],
	"duplicate-id-loop": ["a later entry reusing an ancestor's id", (r, t) => join1(dupIdLoop(lines(t)))],
	"two-cycle": ["two entries naming each other as parent", (r, t) => join1(twoCycle(r, lines(t)))],
	"self-parent": ["an entry naming itself as parent", (r, t) => join1(editEntry(lines(t), mid(r, lines(t).length), (e) => (e.parentId = e.id)))],
	"raw-control-char": ["an unescaped control character inside a string", (r, t) => join1(((ls, i) => ((ls[i] = ls[i].replace('"id":"', '"id":"\u0001')), ls))(lines(t), mid(r, lines(t).length)))],
	"invalid-utf8": ["invalid and truncated UTF-8 bytes inside strings", (r, t) => invalidUtf8(r, t)],
	"deep-nesting": ["a custom entry nested 5000 arrays deep", (r, t) => join1(insert(r, lines(t), [deepEntry(lines(t))]))],
	"falsy-lines": ["lines holding false, 0 and \"\" (pi 1.x skips falsy values)", (r, t) => join1(insert(r, lines(t), ["false", "0", '""', "-0"]))],
};

/** hookMessage turns the first user message into a v2 hookMessage. */
function hookMessage(ls) {
	const i = ls.findIndex((l) => l.includes('"role":"user"'));
	return i > 0 ? editEntry(ls, i, (e) => (e.message.role = "hookMessage")) : ls;
}

/** twoCycle makes an entry and its child each other's parent. */
function twoCycle(rng, ls) {
	const entries = ls.map((l) => JSON.parse(l));
	const pairs = [];
	entries.forEach((e, i) => i > 0 && e.parentId && pairs.push(i));
	const ci = pairs.length ? rng.pick(pairs) : 1;
	const pi = entries.findIndex((e) => e.id === entries[ci].parentId);
	if (pi > 0) editEntry(ls, pi, (e) => (e.parentId = entries[ci].id));
	return ls;
}

/** dupIdLoop appends an entry that reuses the id of the root above the last entry, with the last entry as its parent. */
function dupIdLoop(ls) {
	const byId = new Map(ls.slice(1).map((l) => JSON.parse(l)).map((e) => [e.id, e]));
	const last = JSON.parse(ls.at(-1));
	let root = last;
	for (let i = 0; i < ls.length && root.parentId && byId.has(root.parentId); i++) root = byId.get(root.parentId);
	ls.push(JSON.stringify({ type: "custom", customType: "dup", data: null, id: root.id, parentId: last.id, timestamp: last.timestamp }));
	return ls;
}

function deepEntry(ls) {
	const last = JSON.parse(ls.at(-1));
	const data = `${"[".repeat(5000)}0${"]".repeat(5000)}`;
	return `{"type":"custom","customType":"deep","data":${data},"id":"deep0001","parentId":${JSON.stringify(last.id)},"timestamp":${JSON.stringify(last.timestamp)}}`;
}

/** invalidUtf8 puts a lone 0xFF and a truncated 3-byte sequence into one string. */
function invalidUtf8(rng, t) {
	const ls = lines(t);
	const i = mid(rng, ls.length);
	const at = ls[i].indexOf('"timestamp":"') + 13;
	const buf = Buffer.from(ls[i], "utf8");
	const cut = Buffer.byteLength(ls[i].slice(0, at), "utf8");
	ls[i] = null;
	const before = Buffer.from(join1(ls.slice(0, i)), "utf8");
	const after = Buffer.from(ls.slice(i + 1).length ? join1(ls.slice(i + 1)) : "", "utf8");
	const line = Buffer.concat([buf.subarray(0, cut), Buffer.from([0xff, 0x41, 0xe2, 0x82, 0x41]), buf.subarray(cut), Buffer.from("\n")]);
	return Buffer.concat([before, line, after]);
}

/** probe opens a copy with pi and records what happened, never walking parents. */
function probe(file) {
	try {
		const { sm, rewritten, done } = openCopy(file);
		const entries = sm.getEntries();
		done();
		const leafLoops = parentCycle(entries, sm.getLeafId()) !== undefined;
		return { openError: null, rewritten, entries: entries.length, treeLoop: treeCycle(entries), leafLoops, anyLoops: anyParentCycle(entries) };
	} catch (err) {
		return { openError: String(err.message), rewritten: null, entries: null, treeLoop: false, leafLoops: false, anyLoops: false };
	}
}

/** anyParentCycle reports whether walking parents from any entry loops. */
function anyParentCycle(entries) {
	const byId = new Map();
	for (const e of entries) byId.set(e?.id, e);
	const done = new Set();
	for (const start of entries) {
		const seen = new Set();
		for (let cur = start; cur && !done.has(cur); cur = cur.parentId ? byId.get(cur.parentId) : undefined) {
			if (seen.has(cur)) return true;
			seen.add(cur);
		}
		for (const e of seen) done.add(e);
	}
	return false;
}

/**
 * generateDamaged writes every damage applied to sessions generated for seed
 * (plus the undamaged bases) into outDir, and returns the manifest. Per
 * file: openError (pi's open threw), rewritten (open rewrote the copy),
 * entries, treeLoop (getTree never returns), leafLoops (the parent walk from
 * the loaded leaf never ends), anyLoops (from some entry it never ends), and
 * "safe": the oracle commands pi itself would answer ("context" at the
 * default leaf, "contexts" at every entry). The oracle refuses the others
 * with code "cycle" instead of hanging.
 */
export function generateDamaged(seed, outDir) {
	const dir = resolve(outDir);
	mkdirSync(dir, { recursive: true });
	const tmp = mkdtempSync(join(tmpdir(), "pi-damage-"));
	try {
		const bases = generate(seed, tmp, 4);
		const rng = new Rng(seed ^ 0x5eed);
		const files = bases.map((b, i) => write(dir, `base-${i}.jsonl`, readFileSync(b), "none", `base-${i}`, "undamaged"));
		Object.entries(DAMAGES).forEach(([name, [note, fn]], k) => {
			const base = k % bases.length;
			const out = fn(rng, readFileSync(bases[base], "utf8"));
			files.push(write(dir, `${String(k).padStart(2, "0")}-${name}.jsonl`, out, name, `base-${base}`, note));
		});
		return { seed, dir, files };
	} finally {
		rmSync(tmp, { recursive: true, force: true });
	}
}

function write(dir, name, content, damage, base, note) {
	const file = join(dir, name);
	writeFileSync(file, content);
	const p = probe(file);
	const safe = ["list", "listall"];
	if (!p.openError) {
		safe.push("open", "leaves");
		if (!p.treeLoop) safe.push("tree", "tree-flat");
		if (!p.leafLoops) safe.push("context");
		if (!p.anyLoops) safe.push("contexts");
	}
	return { file, damage, base, note, ...p, safe };
}
