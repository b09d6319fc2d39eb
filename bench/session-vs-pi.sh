#!/usr/bin/env bash
# Compares piweb's session parser with pi's own code on the same file:
# pi's SessionManager.open + buildSessionContext (bench/pi/open-context.mjs,
# on the pinned Node 22.19) against BenchmarkOpenContext (read, parse, build
# the context) on one core. The two run in alternation, several rounds, and
# the best of each is kept, because the shared machines are noisy. Prints
# both and the ratio (target: piweb at least 5x pi 1.6.0).
#
#   bench/session-vs-pi.sh [FILE] [ROUNDS]
#   PI=0.73 bench/session-vs-pi.sh [FILE]    # against pi 0.73.1 instead
#
# Without FILE it uses a large session written by pi itself (the oracle's
# gen-large: pi's SessionManager appending every 1.x entry type, with tool
# results as large as file reads), MB megabytes (default 30), made once under
# $TMPDIR/piweb-bench-pi<version>-<MB>mb.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
node=tools/pi/node_modules/.bin/node
export PIWEB_ORACLE_PI=${PI:-1.6}
file=${1:-}
rounds=${2:-3}
mb=${MB:-30}
if [ -z "$file" ]; then
	dir=${TMPDIR:-/tmp}/piweb-bench-pi$PIWEB_ORACLE_PI-${mb}mb
	if ! ls "$dir"/*.jsonl >/dev/null 2>&1; then
		echo "writing a ${mb} MB session with pi $PIWEB_ORACLE_PI under $dir"
		"$node" tools/pi/oracle.mjs gen-large 1 "$dir" "$mb" >/dev/null
	fi
	file=$(ls "$dir"/*.jsonl | head -1)
fi
go test -c -o /tmp/piweb-session.test ./internal/session >/dev/null
best_go=0 best_pi=0
for _ in $(seq "$rounds"); do
	g=$(cd internal/session && PIWEB_BENCH_FILE="$file" /tmp/piweb-session.test -test.run '^$' \
		-test.bench 'BenchmarkOpenContext$' -test.benchtime 5x -test.cpu 1 | awk '/MB\/s/ {for (i=1;i<=NF;i++) if ($(i+1)=="MB/s") print $i; exit}')
	out=$("$node" bench/pi/open-context.mjs "$file" 3)
	p=$(echo "$out" | sed 's/.*"mbPerSecBest":\([0-9.]*\).*/\1/')
	echo "round: piweb $g MB/s, pi $p MB/s; load: $(uptime | sed 's/.*average: //')"
	best_go=$(echo "$g $best_go" | awk '{print ($1>$2)?$1:$2}')
	best_pi=$(echo "$p $best_pi" | awk '{print ($1>$2)?$1:$2}')
done
echo "pi: $(echo "$out" | grep -o '"pi":"[^"]*"'), node $("$node" --version)"
echo "file: $file ($(stat -c %s "$file") bytes)"
echo "best: piweb $best_go MB/s, pi $best_pi MB/s, ratio $(echo "$best_go $best_pi" | awk '{printf "%.1f", $1/$2}')x"
