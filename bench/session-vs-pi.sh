#!/usr/bin/env bash
# Compares piweb's session parser with pi's own code on the same file:
# pi's SessionManager.open + buildSessionContext (bench/pi/open-context.mjs,
# on the pinned Node 22.19) against BenchmarkOpenContext (read, parse, build
# the context) on one core. The two run in alternation, several rounds, and
# the best of each is kept, because the shared machines are noisy. Each
# side's figure for a round is its mean over the round's opens (the Go
# benchmark's ns/op; pi's mbPerSecMean), so like is compared with like; the
# round line also shows pi's single fastest open. Prints both and the ratio
# (target: piweb at least 5x pi 1.6.0).
#
#   bench/session-vs-pi.sh [FILE] [ROUNDS]
#   PI=0.73 bench/session-vs-pi.sh [FILE]    # against pi 0.73.1 instead
#
# Without FILE it compares two shapes side by side, both written by pi
# itself (the oracle's SessionManager appending, made once under
# $TMPDIR/piweb-bench-pi<version>-<shape>-<MB>mb):
#   large: gen-large, every 1.x entry type with tool results as large as
#          file reads, MB megabytes (default 30);
#   small: gen-small, a long chat of short entries (prompts, answers with
#          thinking and tool calls, short tool results; about 830 bytes an
#          entry), SMALL_MB megabytes (default 60): the per-entry cost;
#   mid:   one session of piweb's generated corpus (gencorpus, about 2 KB an
#          entry), MID_MB megabytes (default 2): issue 24's mid-sized row.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
node=tools/pi/node_modules/.bin/node
export PIWEB_ORACLE_PI=${PI:-1.6}
rounds=${2:-3}

# pifile SHAPE MB: the path of a session pi wrote with gen-SHAPE.
pifile() {
	local dir=${TMPDIR:-/tmp}/piweb-bench-pi$PIWEB_ORACLE_PI-$1-$2mb
	if ! ls "$dir"/*.jsonl >/dev/null 2>&1; then
		echo "writing a $2 MB $1 session with pi $PIWEB_ORACLE_PI under $dir" >&2
		"$node" tools/pi/oracle.mjs "gen-$1" 1 "$dir" "$2" >/dev/null
	fi
	ls "$dir"/*.jsonl | head -1
}

# midfile MB: the path of one generated session of MB megabytes.
midfile() {
	local dir=${TMPDIR:-/tmp}/piweb-bench-gen-mid-$1mb
	if ! find "$dir" -name '*.jsonl' 2>/dev/null | grep -q .; then
		go run ./internal/corpus/cmd/gencorpus -out "$dir" -files 1 -bytes "$1MB" -big 0 -seed 1 >&2
	fi
	find "$dir" -name '*.jsonl' | head -1
}

if [ -n "${1:-}" ]; then
	names=(file) files=("$1")
else
	names=(large small mid)
	files=("$(pifile large "${MB:-30}")" "$(pifile small "${SMALL_MB:-60}")" "$(midfile "${MID_MB:-2}")")
fi
go test -c -o /tmp/piweb-session.test ./pisession >/dev/null
declare -A best_go best_pi
for r in $(seq "$rounds"); do
	for i in "${!files[@]}"; do
		f=${files[$i]} n=${names[$i]}
		# Both sides run about 120 MB each round, so a small file is timed
		# warm (JIT and caches) rather than by its first few opens.
		k=$(( 120000000 / $(stat -c %s "$f") ))
		g=$(cd pisession && PIWEB_BENCH_FILE="$f" /tmp/piweb-session.test -test.run '^$' \
			-test.bench 'BenchmarkOpenContext$' -test.benchtime "$(( k < 5 ? 5 : k ))x" -test.cpu 1 |
			awk '/MB\/s/ {for (i=1;i<=NF;i++) if ($(i+1)=="MB/s") print $i; exit}')
		out=$("$node" bench/pi/open-context.mjs "$f" "$(( k < 3 ? 3 : k ))")
		p=$(echo "$out" | sed 's/.*"mbPerSecMean":\([0-9.]*\).*/\1/')
		pb=$(echo "$out" | sed 's/.*"mbPerSecBest":\([0-9.]*\).*/\1/')
		echo "round $r $n: piweb $g MB/s, pi $p MB/s (its fastest open $pb); load: $(uptime | sed 's/.*average: //')"
		best_go[$n]=$(echo "$g ${best_go[$n]:-0}" | awk '{print ($1>$2)?$1:$2}')
		best_pi[$n]=$(echo "$p ${best_pi[$n]:-0}" | awk '{print ($1>$2)?$1:$2}')
	done
done
echo "pi: $(echo "$out" | grep -o '"pi":"[^"]*"'), node $("$node" --version)"
printf '%-6s %12s %9s %10s %8s %7s\n' shape bytes entries "piweb MB/s" "pi MB/s" ratio
for i in "${!files[@]}"; do
	f=${files[$i]} n=${names[$i]}
	printf '%-6s %12s %9s %10s %8s %6sx\n' "$n" "$(stat -c %s "$f")" "$(wc -l <"$f")" "${best_go[$n]}" "${best_pi[$n]}" \
		"$(echo "${best_go[$n]} ${best_pi[$n]}" | awk '{printf "%.1f", $1/$2}')"
done
for i in "${!files[@]}"; do echo "${names[$i]}: ${files[$i]}"; done
