#!/usr/bin/env bash
# Runs every piweb check on a fresh machine; CI (.ci/run) runs exactly this
# with CI=true, where anything missing fails instead of being skipped.
#
#   1. scripts/setup.sh   the pinned pis and Node (npm ci), chromium, staticcheck
#   2. go vet ./...
#   3. staticcheck ./...
#   4. go test -race -count=1 ./...   every test, the long ones included
#   5. every fuzz target, FUZZTIME each (default 15s), found by scanning the
#      test files for `func FuzzX(`
#
# The quick local loop is `go test -short ./...`: long tests (browsers, many
# pi runs, big corpora) skip under -short. FUZZTIME=0 skips step 5.
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${FUZZTIME:-15s}
start=$SECONDS

step() { printf '\n== test.sh: %s (at %ds)\n' "$*" "$((SECONDS - start))"; }

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
# about 14 min under -race on 2 cores at load 16 (Dec 3).
go test -race -count=1 -timeout 30m ./...

# fuzz_targets prints "import/path FuzzName" for every fuzz target.
fuzz_targets() {
	go list -f '{{.ImportPath}} {{.Dir}}' ./... | while read -r pkg dir; do
		# A package without test files has no match: grep's exit 2 must not
		# end the run under `set -e -o pipefail`.
		{ grep -ho '^func Fuzz[A-Za-z0-9_]*(' "$dir"/*_test.go 2>/dev/null || true; } |
			sed 's/^func //; s/($//' | while read -r name; do echo "$pkg $name"; done
	done
}

# fuzz_one fuzzes one target. A find (a failing input written to testdata)
# fails at once; an engine hiccup without a failing input (a worker that
# missed its deadline on a loaded machine) returns 1 so the caller retries.
fuzz_one() {
	if go test -run '^$' -fuzz "^$2\$" -fuzztime "$fuzztime" "$1" >"$3" 2>&1; then
		return 0
	fi
	if grep -q 'Failing input written to' "$3"; then
		cat "$3"
		echo "test.sh: fuzzing $1 $2 found a failing input (under that package's testdata/fuzz/$2)" >&2
		exit 1
	fi
	return 1
}

if [ "$fuzztime" != 0 ]; then
	step "fuzz, $fuzztime per target"
	log=$(mktemp)
	trap 'rm -f "$log"' EXIT
	fuzz_targets | while read -r pkg name; do
		echo "fuzz: $pkg $name"
		fuzz_one "$pkg" "$name" "$log" || fuzz_one "$pkg" "$name" "$log" || {
			cat "$log"
			echo "test.sh: fuzzing $pkg $name failed (the failing input is under that package's testdata/fuzz/$name)" >&2
			exit 1
		}
		tail -1 "$log"
	done
fi

step "all passed in $((SECONDS - start))s"
