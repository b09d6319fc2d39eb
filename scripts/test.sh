#!/usr/bin/env bash
# Runs every piweb check on a fresh machine; CI (.ci/run) runs exactly this
# with CI=true, where anything missing fails instead of being skipped.
#
#   1. scripts/setup.sh   the pinned pis and Node (npm ci), chromium,
#      postgresql, staticcheck; all but staticcheck in the background,
#      beside steps 2 and 3 (npm waits on the network and the disk; the
#      checks want the CPU), its output shown when it ends
#   2. gofmt -l (every Go file formatted), go vet ./..., and the session
#      library's example module (examples/pisession-demo) vetted and tested
#   3. staticcheck ./...
#   4. go test -race -count=1 ./...   every test, the long ones included
#      (and started first)
#   5. fuzzing: FUZZPICK (default 3) of the fuzz targets, picked by the
#      commit so that each is fuzzed every few commits, FUZZTIME each
#      (default 15s); every target's seed corpus runs in step 4, and
#      scripts/fuzz.sh fuzzes them all (FUZZPICK=0 here does too)
#
# The quick local loop is `go test -short ./...`: long tests (browsers, many
# pi runs, big corpora) skip under -short. FUZZTIME=0 skips step 5.
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${FUZZTIME:-15s}
fuzzpick=${FUZZPICK:-3}
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

# The flags of step 4's go test; see there.
racegc='modernc.org/...=-d=checkptr=0'

# Step 4's race-instrumented packages (the standard library, SQLite: the
# translated C is one package that takes one core ~40 s to compile) are
# built in the background while steps 1-3 wait on npm's downloads or leave
# a core idle, so that on a cold build cache the test binaries need not
# wait for them. go test reports any build error itself.
go build -race -gcflags="$racegc" ./... >/dev/null 2>&1 &
warm=$!
# Likewise step 5's build (every package instrumented for fuzzing: on a
# cold cache ~100 s of CPU for SQLite alone), at a lower priority: it takes
# what the other steps leave idle.
fuzzwarm=""
if [ "$fuzztime" != 0 ]; then
	FUZZBUILD=1 FUZZPICK=$fuzzpick nice -n 10 scripts/fuzz.sh >/dev/null 2>&1 &
	fuzzwarm=$!
fi

# Step 1 but staticcheck runs in the background; on the way out (a failed
# check) it is waited for, so that no npm ci goes on writing after the
# script.
setup_log=$(mktemp)
(
	at=$SECONDS
	scripts/setup.sh pi chromium postgres
	echo "$((SECONDS - at))" >"$setup_log.time"
) >"$setup_log" 2>&1 &
setup=$!
trap 'kill "$warm" $fuzzwarm 2>/dev/null || true; [ -z "$setup" ] || wait "$setup" 2>/dev/null || true; rm -f "$setup_log" "$setup_log.time"' EXIT

step "setup: staticcheck (pi, chromium, postgresql in the background)"
scripts/setup.sh staticcheck

step "gofmt, go vet"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './tools/*'))
if [ -n "$unformatted" ]; then
	printf 'test.sh: not gofmt-formatted:\n%s\n' "$unformatted" >&2
	exit 1
fi
go vet ./...
# The session library's example module has its own go.mod (./... does not
# reach it): it imports piweb/pisession as any other program would. Built
# on what go vet just compiled, it takes about a second.
(cd examples/pisession-demo && go vet ./... && go test -count=1 ./...)

step staticcheck
if [ -x tools/bin/staticcheck ]; then
	tools/bin/staticcheck ./...
elif [ "${CI:-}" = true ]; then
	echo "test.sh: tools/bin/staticcheck missing" >&2
	exit 1
else
	echo "test.sh: warning: tools/bin/staticcheck missing; skipped"
fi

step "setup: waiting for pi, chromium, postgresql"
if ! wait "$setup"; then
	setup=""
	cat "$setup_log"
	echo "test.sh: scripts/setup.sh pi chromium postgres failed" >&2
	exit 1
fi
setup=""
cat "$setup_log"
times+=$(printf '%5ds  %s' "$(cat "$setup_log.time")" "setup: pi, chromium, postgresql (in the background from the start)")$'\n'

step "go test -race"
# The longest packages are named first so that they start first (go test
# starts packages in the order it lists them; alphabetically the longest
# came last and ran on alone at the end): by their time alone, web, index,
# agent, server, sessionstore, then pisession (short but most of a core),
# ops, export, pitest and cmd/piweb. Four test binaries at a time (-p 4;
# the default is one per core): most packages use half a core or less,
# waiting on node (pi, the oracle), Chromium, PostgreSQL and the disk, and
# with three the stage left about a fifth of the two cores idle
# (~800 s of CPU in a 513 s stage); with four it keeps both busy
# (docs/decisions/0035-ci-time-2.md).
# -d=checkptr=0 for modernc.org (SQLite translated from C, all unsafe
# pointer arithmetic) keeps the race detector everywhere and checkptr on
# piweb's own code: checkptr on SQLite took half of the index's test CPU
# (docs/decisions/0019-ci-time.md).
wait "$warm" || true # its errors are go test's to report
long="./internal/web ./internal/index ./internal/agent ./internal/server ./internal/sessionstore ./pisession ./internal/ops ./internal/export ./internal/pitest ./cmd/piweb"
# shellcheck disable=SC2086 # $long is a list of packages
go test -race -count=1 -p 4 -timeout 30m -gcflags="$racegc" $long ./...

if [ "$fuzztime" != 0 ]; then
	step "fuzz ($fuzztime each, FUZZPICK=$fuzzpick)"
	wait "$fuzzwarm" || true # fuzz.sh reports any build error itself
	FUZZTIME=$fuzztime FUZZPICK=$fuzzpick scripts/fuzz.sh
fi

step "all passed in $((SECONDS - start))s"
printf '%s' "$times"
