#!/usr/bin/env bash
# Warm `piweb ls --json` with nothing changed (issue 3: at most 50 ms on the
# 5,000 session corpus): the real binary run RUNS times as a user types it,
# after one run that builds the index and one that writes nothing new. Each
# run is timed from outside (fork to exit); prints p50, p90, p99 and the
# best, the time of one more run with its CPU time and memory, `uptime` before and after, and checks that
# the output is byte-identical to `ls --json --scan`.
#
#   bench/warm-ls.sh [CORPUS] [RUNS]
#
# CORPUS is an agent dir (default bench/out/corpus); it is only read. The
# index goes to a temporary cache dir.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=$(cd "${1:-bench/out/corpus}" && pwd)
runs=${2:-200}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/piweb-warm-ls.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/piweb" ./cmd/piweb
export PI_CODING_AGENT_DIR="$corpus" XDG_CACHE_HOME="$tmp/cache"
"$tmp/piweb" ls --json >"$tmp/cold.json"
"$tmp/piweb" ls --json >"$tmp/warm.json"
"$tmp/piweb" ls --json --scan >"$tmp/scan.json"
cmp -s "$tmp/warm.json" "$tmp/scan.json" || { echo "ls --json differs from ls --json --scan" >&2; exit 1; }
cmp -s "$tmp/cold.json" "$tmp/scan.json" || { echo "cold ls --json differs from ls --json --scan" >&2; exit 1; }
echo "ls --json (cold and warm) is byte-identical to ls --json --scan ($(wc -c <"$tmp/warm.json") bytes)"
echo "load before: $(uptime)"
# One process times them all, so that the shell's own work is not counted.
node -e '
const { spawnSync } = require("child_process");
const [bin, runs] = [process.argv[1], Number(process.argv[2])];
const wall = [];
for (let i = 0; i < runs; i++) {
	const t0 = process.hrtime.bigint();
	const r = spawnSync(bin, ["ls", "--json"], { stdio: ["ignore", "ignore", "inherit"] });
	wall.push(Number(process.hrtime.bigint() - t0) / 1e6);
	if (r.status !== 0) throw new Error("exit " + r.status);
}
wall.sort((a, b) => a - b);
const q = (p) => wall[Math.min(wall.length - 1, Math.floor(wall.length * p))].toFixed(1);
console.log(`${runs} runs of piweb ls --json: best ${wall[0].toFixed(1)} ms, p50 ${q(0.5)} ms, p90 ${q(0.9)} ms, p99 ${q(0.99)} ms`);
' "$tmp/piweb" "$runs"
/usr/bin/time -f "one more run: wall %e s, user %U s, sys %S s, max RSS %M KB" "$tmp/piweb" ls --json >/dev/null
echo "load after: $(uptime)"
