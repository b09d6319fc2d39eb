#!/usr/bin/env node
// oracle.mjs asks real pi (1.6.0, or 0.73.1 with PIWEB_ORACLE_PI=0.73) about session files, for piweb's tests.
//
//   node tools/pi/oracle.mjs COMMAND ARGS...   one answer as JSON on stdout
//   node tools/pi/oracle.mjs batch             one JSON array [COMMAND, ARGS...]
//                                              per stdin line; one line
//                                              {"ok": ANSWER} or
//                                              {"error": MSG, "code": CODE}
//                                              per request, in order
//
// Commands (see lib/commands.mjs): context FILE [LEAF], contexts FILE [LEAF...],
// leaves FILE, tree FILE, tree-flat FILE, open FILE, list DIR, listall AGENTDIR,
// gen SEED OUTDIR [N], gen-large|gen-small SEED OUTDIR MB, gen-damaged SEED OUTDIR,
// version, check-exports.
// LEAF "null" means an explicit null leaf. Files are opened as copies; the
// given files are never modified.

import { createInterface } from "node:readline";
import { commands } from "./lib/commands.mjs";
import { encode } from "./lib/tree.mjs";

async function run(argv) {
	const [name, ...args] = argv;
	const cmd = commands[name];
	if (!cmd) throw new Error(`unknown command ${JSON.stringify(name)}; have: batch, ${Object.keys(commands).join(", ")}`);
	return cmd(args);
}

async function batch() {
	const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
	for await (const line of rl) {
		if (!line.trim()) continue;
		let reply;
		try {
			const argv = JSON.parse(line);
			if (!Array.isArray(argv) || !argv.every((a) => typeof a === "string")) {
				throw new Error("request must be a JSON array of strings");
			}
			reply = `{"ok":${encode(await run(argv))}}`;
		} catch (err) {
			reply = JSON.stringify({ error: String(err?.message ?? err), code: err?.code });
		}
		process.stdout.write(reply + "\n");
	}
}

async function main() {
	const argv = process.argv.slice(2);
	if (argv[0] === "batch") return batch();
	try {
		process.stdout.write(encode(await run(argv)) + "\n");
	} catch (err) {
		process.stderr.write(`oracle: ${err?.code ? err.message : (err?.stack ?? err)}\n`);
		process.exitCode = err?.code === "cycle" ? 3 : 1;
	}
}

await main();
