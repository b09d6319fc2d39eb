#!/usr/bin/env bash
# Runs every piweb check on a fresh machine; CI (.ci/run) runs exactly this
# with CI=true, where anything missing fails instead of being skipped.
#
#   1. scripts/setup.sh   the pinned pis and Node (npm ci), chromium, staticcheck
#   2. go vet ./...
#   3. staticcheck ./...
#   4. go test -race -count=1 ./...   every test, the long ones included
#   5. fuzzing: FUZZPICK (default 4) of the fuzz targets, picked by the
#      commit so that each is fuzzed every few commits, FUZZTIME each
#      (default 15s); every target's seed corpus runs in step 4, and
#      scripts/fuzz.sh fuzzes them all (FUZZPICK=0 here does too)
#
# The quick local loop is `go test -short ./...`: long tests (browsers, many
# pi runs, big corpora) skip under -short. FUZZTIME=0 skips step 5.
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${FUZZTIME:-15s}
fuzzpick=${FUZZPICK:-4}
start=$SECONDS
times="" # one line per finished stage: its seconds and name
stage="" stage_at=0

# step ends the stage running (noting its time) and starts the next.
step() {
	if [ -n "$stage" ]; then
		times+=$(printf '%5ds  %s' "$((SECONDS - stage_at))" "$stage")$'\n'
	fi
	stage=$* stage_at=$SECONDS
	printf '\n== test.sh: %s (at %ds)\n' "$*" "$((SECONDS - start))"
}

step setup
scripts/setup.sh

step "go vet"
go vet ./...

step staticcheck
if [ -x tools/bin/staticcheck ]; then
	tools/bin/staticcheck ./...
elif [ "${CI:-}" = true ]; then
	echo "test.sh: tools/bin/staticcheck missing" >&2
	exit 1
else
	echo "test.sh: warning: tools/bin/staticcheck missing; skipped"
fi

step "go test -race"
# internal/web (Chromium against a real server) is the longest package:
# about 14 min under -race on 2 cores at load 16 (Dec 3), before its browser
# tests shared one Chromium and ran in parallel.
go test -race -count=1 -timeout 30m ./...

if [ "$fuzztime" != 0 ]; then
	step "fuzz ($fuzztime each, FUZZPICK=$fuzzpick)"
	FUZZTIME=$fuzztime FUZZPICK=$fuzzpick scripts/fuzz.sh
fi

step "all passed in $((SECONDS - start))s"
printf '%s' "$times"
