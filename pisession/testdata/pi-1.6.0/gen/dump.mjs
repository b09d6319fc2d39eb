// dump.mjs records pi 1.6.0's answers about session files as goldens: for
// each FILE, FILE.pi.json holds buildSessionContext at the default leaf and
// at every entry, and getTree() flattened (tools/pi/lib/tree.mjs's flatTree).
// Files are opened as copies.
//
//   node dump.mjs PATH/TO/dist/core/session-manager.js FILE...
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";
import { flatTree } from "../../../../../tools/pi/lib/tree.mjs";

const [corePath, ...files] = process.argv.slice(2);
const { SessionManager, buildSessionContext } = await import(pathToFileURL(corePath).href);
for (const file of files) {
	const dir = mkdtempSync(join(tmpdir(), "pi16dump-"));
	try {
		const copy = join(dir, basename(file));
		copyFileSync(file, copy);
		const sm = SessionManager.open(copy);
		const entries = sm.getEntries();
		const byLeaf = { "": buildSessionContext(entries) };
		for (const e of entries) if (typeof e.id === "string") byLeaf[e.id] = buildSessionContext(entries, e.id);
		const out = { name: sm.getSessionName() ?? null, byLeaf, tree: flatTree(sm.getTree()) };
		writeFileSync(file.replace(/\.jsonl$/, ".pi.json"), JSON.stringify(out) + "\n");
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}
