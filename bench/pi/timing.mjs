// Shared timing helpers for the pi benchmarks: warm up, then measure.

/** measure runs fn `warmup` times, then `iter` timed times; returns ms stats. */
export async function measure(fn, iter, warmup = 3) {
	for (let i = 0; i < warmup; i++) await fn();
	const times = [];
	for (let i = 0; i < iter; i++) {
		const t = await fn();
		times.push(t);
	}
	const meanMs = round(times.reduce((a, b) => a + b, 0) / times.length);
	times.sort((a, b) => a - b);
	return { iterations: iter, bestMs: round(times[0]), medianMs: round(times[Math.floor(times.length / 2)]), meanMs };
}

/** mbps is throughput in MB/s (10^6 bytes) for bytes processed in ms. */
export const mbps = (bytes, ms) => round(bytes / 1e6 / (ms / 1000));

export const round = (x) => Math.round(x * 1000) / 1000;

/** positiveInt parses an optional count argument. */
export function positiveInt(s, dflt) {
	if (s === undefined) return dflt;
	const n = Number(s);
	if (!Number.isInteger(n) || n < 1) throw new Error(`not a positive integer: ${s}`);
	return n;
}
