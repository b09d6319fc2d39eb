#!/usr/bin/env node
// listall.mjs AGENTDIR [ITER] [WARMUP]: how fast real pi lists every
// session (SessionManager.listAll, as pi's /resume does) under
// AGENTDIR/sessions, for comparison with piweb (bench/listing-vs-pi.sh).
// WARMUP untimed runs (default 1) come first. Read-only. Prints one JSON
// line: wall times, and the process's CPU time (user + system, all of
// node's threads: the reads run on libuv's pool) of the fastest call by CPU.

import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { SessionManager, packageVersion } from "../../tools/pi/lib/pi.mjs";
import { mbps, measure, positiveInt } from "./timing.mjs";

const [agentDir, iterArg, warmupArg] = process.argv.slice(2);
if (!agentDir) {
	console.error("usage: listall.mjs AGENTDIR [ITER] [WARMUP]");
	process.exit(2);
}
const iter = positiveInt(iterArg, 5);
const warmup = warmupArg === "0" ? 0 : positiveInt(warmupArg, 1);
process.env.PI_CODING_AGENT_DIR = agentDir;

/** corpus counts the .jsonl files listAll reads (one level of project dirs). */
function corpus(sessions) {
	let files = 0;
	let bytes = 0;
	for (const d of readdirSync(sessions, { withFileTypes: true })) {
		if (!d.isDirectory()) continue;
		for (const f of readdirSync(join(sessions, d.name))) {
			if (!f.endsWith(".jsonl")) continue;
			files++;
			bytes += statSync(join(sessions, d.name, f)).size;
		}
	}
	return { files, bytes };
}

const { files, bytes } = corpus(join(agentDir, "sessions"));
let listed = 0;
let cpuBestMs = Infinity;
const stats = await measure(async () => {
	const c0 = process.cpuUsage();
	const t0 = performance.now();
	const list = await SessionManager.listAll();
	const ms = performance.now() - t0;
	const c = process.cpuUsage(c0);
	cpuBestMs = Math.min(cpuBestMs, (c.user + c.system) / 1000);
	listed = list.length;
	return ms;
}, iter, warmup);
const out = { bench: "pi-listall", pi: packageVersion(), node: process.version, agentDir, files, bytes, listed, ...stats, cpuBestMs: Math.round(cpuBestMs) };
out.mbPerSecBest = mbps(bytes, stats.bestMs);
out.mbPerSecMedian = mbps(bytes, stats.medianMs);
console.log(JSON.stringify(out));
