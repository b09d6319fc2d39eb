#!/usr/bin/env bash
# Compares piweb's session parser with pi's own code on the same file:
# pi's SessionManager.open + buildSessionContext (bench/pi/open-context.mjs)
# against BenchmarkOpenContext (read, parse, build the context) on one core.
# The two run in alternation, several rounds, and the best of each is kept,
# because the shared machines are noisy. Prints both and the ratio.
#
#   bench/session-vs-pi.sh [FILE] [ROUNDS]
#
# Without FILE it uses the 100 MB session BenchmarkOpenContext generates
# (deterministic, seed 1) under $TMPDIR.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
file=${1:-}
rounds=${2:-3}
go test -c -o /tmp/piweb-session.test ./internal/session >/dev/null
if [ -z "$file" ]; then
	(cd internal/session && /tmp/piweb-session.test -test.run '^$' -test.bench BenchmarkOpenContext -test.benchtime 1x >/dev/null)
	file=$(ls "${TMPDIR:-/tmp}"/piweb-bench-session-100mb/sessions/*/*.jsonl | head -1)
fi
best_go=0 best_pi=0
for _ in $(seq "$rounds"); do
	g=$(cd internal/session && PIWEB_BENCH_FILE="$file" /tmp/piweb-session.test -test.run '^$' \
		-test.bench 'BenchmarkOpenContext$' -test.benchtime 5x -test.cpu 1 | awk '/MB\/s/ {for (i=1;i<=NF;i++) if ($(i+1)=="MB/s") print $i; exit}')
	p=$(node bench/pi/open-context.mjs "$file" 3 | sed 's/.*"mbPerSecBest":\([0-9.]*\).*/\1/')
	echo "round: piweb $g MB/s, pi $p MB/s"
	best_go=$(echo "$g $best_go" | awk '{print ($1>$2)?$1:$2}')
	best_pi=$(echo "$p $best_pi" | awk '{print ($1>$2)?$1:$2}')
done
echo "file: $file ($(stat -c %s "$file") bytes)"
echo "best: piweb $best_go MB/s, pi $best_pi MB/s, ratio $(echo "$best_go $best_pi" | awk '{printf "%.1f", $1/$2}')x"
