#!/bin/sh
# bench/index.sh: the session index benchmarks of issue 3, side by side
# with real pi on the same generated corpus. Writes the corpus (about 2 GB,
# gitignored) under bench/out/corpus unless CORPUS names one, and a fresh
# index under bench/out/cache. Needs tools/pi/node_modules (scripts/setup.sh).
#
#   sh bench/index.sh            # everything
#   SKIP_PI=1 sh bench/index.sh  # without pi's listAll
set -eu
cd "$(dirname "$0")/.."
out=bench/out
corpus=${CORPUS:-$out/corpus}
mkdir -p "$out"
if [ ! -d "$corpus/sessions" ]; then
	df -h "$out"
	go run ./internal/corpus/cmd/gencorpus -out "$corpus" -files 5000 -bytes 2GB -big 3 -bigsize 150MB -seed 1
fi
corpus=$(cd "$corpus" && pwd)
go build -o "$out/piweb" ./cmd/piweb
export PI_CODING_AGENT_DIR="$corpus" XDG_CACHE_HOME="$PWD/$out/cache"
rm -rf "$out/cache"
echo "== load: $(uptime)"
echo "== cold index (listing and text in one read of each file): piweb index"
/usr/bin/time -f "wall %e s, user %U s, sys %S s, max RSS %M KB" "$out/piweb" index
"$out/piweb" ls --json >"$out/ls-index.json"
"$out/piweb" ls --json --scan >"$out/ls-scan.json"
cmp "$out/ls-index.json" "$out/ls-scan.json" && echo "ls --json from the index is byte-identical to the direct scan"
echo "== cold listing only (no index file: ls builds none): piweb ls --json"
rm -rf "$out/cache2"
XDG_CACHE_HOME="$PWD/$out/cache2" /usr/bin/time -f "wall %e s, user %U s, sys %S s, max RSS %M KB" "$out/piweb" ls --json >/dev/null
echo "== warm ls --json, nothing changed: bench/warm-ls.sh"
bash bench/warm-ls.sh "$corpus" 200
if [ -z "${SKIP_PI:-}" ]; then
	echo "== cold listing against pi SessionManager.listAll(), alternating: bench/listing-vs-pi.sh"
	bash bench/listing-vs-pi.sh "$corpus" 3
fi
echo "== search latency, live append, listing benchmarks"
index=$(ls "$PWD/$out"/cache/piweb/index-*.db | grep -v tools | head -1)
PIWEB_BENCH_CORPUS="$corpus" PIWEB_BENCH_INDEX="$index" go test ./internal/index -run XXX \
	-bench 'Search|LiveAppend|WarmList|WarmLs' -benchtime 200x -timeout 30m
