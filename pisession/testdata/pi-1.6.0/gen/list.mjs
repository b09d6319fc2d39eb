// list.mjs records pi 1.6.0's listAll() of testdata/pi-1.6.0/list as
// list/listAll.json: the files are copied to a temp agent dir, given the
// mtimes of list/mtimes.json, and listed; paths are made relative to the
// sessions dir and allMessagesText is left out (piweb does not print it).
//
//   node list.mjs PATH/TO/dist/core/session-manager.js
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const src = join(here, "..", "list");
const agent = mkdtempSync(join(tmpdir(), "pi16list-"));
process.env.PI_CODING_AGENT_DIR = agent;
const { SessionManager } = await import(pathToFileURL(process.argv[2]).href);
try {
	cpSync(join(src, "sessions"), join(agent, "sessions"), { recursive: true });
	const mtimes = JSON.parse(readFileSync(join(src, "mtimes.json"), "utf8"));
	for (const d of readdirSync(join(agent, "sessions"))) {
		for (const f of readdirSync(join(agent, "sessions", d))) {
			const t = new Date(mtimes[`${d}/${f}`] ?? mtimes.default);
			utimesSync(join(agent, "sessions", d, f), t, t);
		}
	}
	const list = await SessionManager.listAll();
	const out = list.map(({ allMessagesText, ...s }) => ({ ...s, path: relative(join(agent, "sessions"), s.path) }));
	writeFileSync(join(src, "listAll.json"), JSON.stringify(out, null, 1) + "\n");
} finally {
	rmSync(agent, { recursive: true, force: true });
}
