#!/usr/bin/env bash
# Compares piweb's cold listing with real pi's SessionManager.listAll() on
# the same corpus (target: at least 10x pi 1.6.0). One round is
#   piweb: `piweb ls --json` as a user runs it, on a fresh cache dir: the
#          whole process (start, every file read and validated for its
#          listing element, the listing snapshot written, JSON printed),
#          timed from outside. Without an index file ls builds none
#          (index.SkimListJSON); serve, search and `piweb index` do, and
#          BenchmarkColdListing times that listing pass;
#   pi:    listAll() in a node process (bench/pi/listall.mjs, on the pinned
#          Node 22.19) after WARMUP untimed calls, timed inside, so node's
#          start and the corpus walk are not counted against pi.
# The two alternate, ROUNDS times, and the best of each is kept, because the
# shared machine is noisy (pi's time varies most with load and memory).
# Prints every round with `uptime`, then the best of each and the ratios by
# wall time and by CPU time (user + system over every thread: piweb's whole
# process from /usr/bin/time, pi's listAll call from process.cpuUsage).
#
#   bench/listing-vs-pi.sh [CORPUS] [ROUNDS] [WARMUP]
#   PI=0.73 bench/listing-vs-pi.sh ...     # against pi 0.73.1 instead
#
# CORPUS is an agent dir; it is only read. The default, bench/out/corpus-pi16,
# is written once by pi 1.6.0 itself (the oracle's gen: 8 project folders of
# 250 sessions with every 1.x entry type, plus 3 large sessions of 30 MB from
# gen-large). bench/out/corpus (bench/index.sh's 2 GB corpus) works too.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
node=tools/pi/node_modules/.bin/node
export PIWEB_ORACLE_PI=${PI:-1.6}
default=bench/out/corpus-pi16
if [ -z "${1:-}" ] && [ ! -d "$default/sessions" ]; then
	echo "writing $default with pi 1.6.0 (once)"
	for i in $(seq 8); do
		PIWEB_ORACLE_PI=1.6 "$node" tools/pi/oracle.mjs gen "$i" "$default/sessions/--home-user-proj$i--" 250 >/dev/null
	done
	for i in 1 2 3; do
		PIWEB_ORACLE_PI=1.6 "$node" tools/pi/oracle.mjs gen-large "$i" "$default/sessions/--home-user-big--" 30 >/dev/null
	done
fi
corpus=$(cd "${1:-$default}" && pwd)
rounds=${2:-3}
warmup=${3:-1}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/piweb-listing.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/piweb" ./cmd/piweb
echo "corpus: $corpus ($(du -sh "$corpus/sessions" | cut -f1), $(find "$corpus/sessions" -name '*.jsonl' | wc -l) files)"
best_go= best_pi= best_gcpu= best_pcpu=
for r in $(seq "$rounds"); do
	rm -rf "$tmp/cache"
	PI_CODING_AGENT_DIR="$corpus" XDG_CACHE_HOME="$tmp/cache" /usr/bin/time -o "$tmp/time" \
		-f "%e %U %S %M" "$tmp/piweb" ls --json >"$tmp/ls.json"
	read -r g gu gs grss <"$tmp/time"
	gc=$(echo "$gu $gs" | awk '{printf "%.2f", $1+$2}')
	echo "round $r piweb: wall $g s (user $gu s, sys $gs s, max RSS $((grss / 1024)) MB); load: $(uptime | sed 's/.*average: //')"
	/usr/bin/time -o "$tmp/time" -f "%M" "$node" bench/pi/listall.mjs "$corpus" 1 "$warmup" >"$tmp/pi.json"
	p=$(sed 's/.*"bestMs":\([0-9.]*\).*/\1/' "$tmp/pi.json" | awk '{printf "%.3f", $1/1000}')
	pc=$(sed 's/.*"cpuBestMs":\([0-9.]*\).*/\1/' "$tmp/pi.json" | awk '{printf "%.2f", $1/1000}')
	echo "round $r pi:    listAll $p s (CPU $pc s, process max RSS $(($(cat "$tmp/time") / 1024)) MB); load: $(uptime | sed 's/.*average: //')"
	best_go=$(echo "$g ${best_go:-$g}" | awk '{print ($1<$2)?$1:$2}')
	best_pi=$(echo "$p ${best_pi:-$p}" | awk '{print ($1<$2)?$1:$2}')
	best_gcpu=$(echo "$gc ${best_gcpu:-$gc}" | awk '{print ($1<$2)?$1:$2}')
	best_pcpu=$(echo "$pc ${best_pcpu:-$pc}" | awk '{print ($1<$2)?$1:$2}')
done
listed=$(grep -o '"listed":[0-9]*' "$tmp/pi.json" | cut -d: -f2)
n=$("$node" -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).length)' "$tmp/ls.json")
echo "pi: $(grep -o '"pi":"[^"]*"' "$tmp/pi.json"), node $("$node" --version)"
echo "sessions listed: piweb $n, pi $listed"
echo "best wall: piweb $best_go s, pi $best_pi s, ratio $(echo "$best_pi $best_go" | awk '{printf "%.1f", $1/$2}')x"
echo "best CPU:  piweb $best_gcpu s, pi $best_pcpu s, ratio $(echo "$best_pcpu $best_gcpu" | awk '{printf "%.1f", $1/$2}')x"
