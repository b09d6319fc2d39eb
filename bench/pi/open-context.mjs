#!/usr/bin/env node
// open-context.mjs FILE [ITER]: how fast real pi loads a session, for
// comparison with piweb's Go benchmarks. Each iteration copies FILE (not
// timed; pi's open may rewrite the copy) and times SessionManager.open(copy)
// plus buildSessionContext at the loaded leaf. Prints one JSON line.

import { copyFileSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { SessionManager, packageVersion } from "../../tools/pi/lib/pi.mjs";
import { mbps, measure, positiveInt } from "./timing.mjs";

const [file, iterArg] = process.argv.slice(2);
if (!file) {
	console.error("usage: open-context.mjs FILE [ITER]");
	process.exit(2);
}
const iter = positiveInt(iterArg, 20);
const bytes = statSync(file).size;
const dir = mkdtempSync(join(tmpdir(), "pi-bench-"));
const copy = join(dir, basename(file));
let last;

try {
	const stats = await measure(() => {
		copyFileSync(file, copy);
		const t0 = performance.now();
		const sm = SessionManager.open(copy);
		const ctx = sm.buildSessionContext();
		const ms = performance.now() - t0;
		last = { entries: sm.getEntries().length, messages: ctx.messages.length };
		return ms;
	}, iter);
	const out = { bench: "pi-open-context", pi: packageVersion(), node: process.version, file, bytes, ...last, ...stats };
	out.mbPerSecBest = mbps(bytes, stats.bestMs);
	out.mbPerSecMedian = mbps(bytes, stats.medianMs);
	out.mbPerSecMean = mbps(bytes, stats.meanMs);
	console.log(JSON.stringify(out));
} finally {
	rmSync(dir, { recursive: true, force: true });
}
