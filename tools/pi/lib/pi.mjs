// Loads real pi's session code and opens session files the way pi does,
// but always on a private copy so the user's (or a fixture's) file is never
// touched: SessionManager.open rewrites files it migrates or finds corrupt.
//
// Which pi: PIWEB_ORACLE_PI names it. Unset or "1.6" is pi 1.6.0
// (@earendil-works/pi-coding-agent in tools/pi/node_modules), "0.73" is pi
// 0.73.1 (@mariozechner/pi-coding-agent in tools/pi-0.73/node_modules), and
// anything else is the path of a pi-coding-agent package directory.
//
// The package index pulls in every LLM provider and takes about a second to
// load; its session exports are re-exports of dist/core/session-manager.js
// (in both versions), which loads in well under that. We import that module
// directly and `checkExports` proves it is the same code.

import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const TOOLS = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** PIS maps the short names PIWEB_ORACLE_PI accepts to package directories. */
export const PIS = {
	"1.6": join(TOOLS, "pi", "node_modules", "@earendil-works", "pi-coding-agent"),
	"0.73": join(TOOLS, "pi-0.73", "node_modules", "@mariozechner", "pi-coding-agent"),
};

/** packageDir is the pi-coding-agent package the oracle loads. */
export const packageDir = PIS[process.env.PIWEB_ORACLE_PI || "1.6"] ?? resolve(process.env.PIWEB_ORACLE_PI);

const pkg = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
const indexPath = join(packageDir, pkg.main ?? "dist/index.js");
const corePath = join(packageDir, "dist", "core", "session-manager.js");

export const core = await import(pathToFileURL(corePath).href);
export const { SessionManager, buildSessionContext } = core;

/** packageName is the installed pi's npm name (it moved at 1.0). */
export const packageName = pkg.name;

/** packageVersion is the installed pi version, from its package.json. */
export function packageVersion() {
	return pkg.version;
}

/** major is the installed pi's major version: 0 for 0.73.1, 1 for 1.6.0. */
export const major = Number(pkg.version.split(".")[0]);

/**
 * checkExports imports the public package index and reports whether its
 * session exports are the very functions this oracle uses.
 */
export async function checkExports() {
	const index = await import(pathToFileURL(indexPath).href);
	const names = ["SessionManager", "buildSessionContext", "parseSessionEntries", "migrateSessionEntries", "CURRENT_SESSION_VERSION"];
	const same = Object.fromEntries(names.map((n) => [n, index[n] === core[n]]));
	return { version: packageVersion(), name: packageName, same, ok: Object.values(same).every(Boolean) };
}

let scratch;
let copies = 0;

/** scratchDir is this process's private temp dir, removed at exit. */
function scratchDir() {
	if (!scratch) {
		scratch = mkdtempSync(join(tmpdir(), "pi-oracle-"));
		process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));
	}
	return scratch;
}

/**
 * openCopy copies file into a fresh temp dir, opens the copy with
 * SessionManager.open (which migrates v1/v2 and replaces header-less files,
 * rewriting the copy), and reports whether the copy's bytes changed.
 * The caller must call done() to remove the copy.
 */
export function openCopy(file) {
	const dir = join(scratchDir(), String(++copies));
	mkdirSync(dir);
	const copy = join(dir, basename(file));
	copyFileSync(file, copy);
	const done = () => rmSync(dir, { recursive: true, force: true });
	try {
		const before = readFileSync(copy);
		const sm = SessionManager.open(copy);
		const after = readFileSync(copy);
		return { sm, copy, rewritten: !before.equals(after), after, done };
	} catch (err) {
		done();
		throw err;
	}
}

/** withCopy runs fn on an opened copy of file and always removes the copy. */
export function withCopy(file, fn) {
	const opened = openCopy(file);
	try {
		return fn(opened);
	} finally {
		opened.done();
	}
}

/**
 * parentCycle returns the id at which walking parentIds from leafId (or from
 * the last entry, as pi does when leafId is undefined or unknown) revisits an
 * entry, or undefined. pi's own walks (buildSessionContext, getBranch) loop
 * forever on such a path, so the oracle refuses instead of hanging.
 */
export function parentCycle(entries, leafId) {
	const byId = new Map();
	for (const e of entries) byId.set(e?.id, e);
	if (leafId === null) return undefined;
	let cur = (leafId && byId.get(leafId)) || entries[entries.length - 1];
	const seen = new Set();
	while (cur) {
		if (seen.has(cur)) return cur.id ?? "(no id)";
		seen.add(cur);
		cur = cur.parentId ? byId.get(cur.parentId) : undefined;
	}
	return undefined;
}

/** CycleError marks a request pi itself would never answer. */
export class CycleError extends Error {
	constructor(at) {
		super(`parentId cycle at ${JSON.stringify(at)}: pi would loop forever`);
		this.code = "cycle";
	}
}

/** contextAt is buildSessionContext at leafId, refusing paths with cycles. */
export function contextAt(entries, leafId) {
	const at = parentCycle(entries, leafId);
	if (at !== undefined) throw new CycleError(at);
	return buildSessionContext(entries, leafId);
}
