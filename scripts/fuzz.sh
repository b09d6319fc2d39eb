#!/usr/bin/env bash
# Fuzzes piweb's fuzz targets (every `func FuzzX(` in the test files) for
# FUZZTIME each (default 60s). Every target's seed corpus already runs in
# `go test`; this adds new inputs.
#
#   scripts/fuzz.sh                  every target, FUZZTIME each
#   FUZZPICK=3 scripts/fuzz.sh       a share of about 3 targets, as CI does
#   scripts/fuzz.sh FuzzListChunk    the targets whose name matches the regexp
#   FUZZBUILD=1 scripts/fuzz.sh      only build the chosen targets' packages
#                                    for fuzzing (into the build cache)
#
# With FUZZPICK=k the targets (sorted) are cut into ceil(n/k) groups,
# target i in group i mod groups, and the group is picked by the commit
# (FUZZSEED, default `git rev-parse HEAD`), so every target is fuzzed
# about once in `groups` commits. A find (a failing input written to the
# package's testdata/fuzz/FuzzX) fails at once; an engine hiccup without a
# failing input (a worker that missed its deadline on a loaded machine) is
# retried once.
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${FUZZTIME:-60s}
pick=${FUZZPICK:-0}
match=${1:-.}

# fuzz_targets prints "import/path FuzzName" for every fuzz target, sorted.
fuzz_targets() {
	go list -f '{{.ImportPath}} {{.Dir}}' ./... | while read -r pkg dir; do
		# A package without test files has no match: grep's exit 2 must not
		# end the run under `set -e -o pipefail`.
		{ grep -ho '^func Fuzz[A-Za-z0-9_]*(' "$dir"/*_test.go 2>/dev/null || true; } |
			sed 's/^func //; s/($//' | while read -r name; do echo "$pkg $name"; done
	done | LC_ALL=C sort
}

# group_of prints the group FUZZPICK fuzzes this run: the commit's hash
# (its first 7 hex digits) modulo the number of groups.
group_of() {
	local seed=${FUZZSEED:-$(git rev-parse HEAD 2>/dev/null || echo 0)}
	echo $((16#$(printf '%s' "$seed" | sha256sum | cut -c1-7) % $1))
}

# fuzz_one fuzzes one target; it returns 1 for a failure without a find,
# so that the caller retries.
fuzz_one() {
	if go test -run '^$' -fuzz "^$2\$" -fuzztime "$fuzztime" "$1" >"$3" 2>&1; then
		return 0
	fi
	if grep -q 'Failing input written to' "$3"; then
		cat "$3"
		echo "fuzz.sh: fuzzing $1 $2 found a failing input (under that package's testdata/fuzz/$2)" >&2
		exit 1
	fi
	return 1
}

mapfile -t targets < <(fuzz_targets | awk -v m="$match" '$2 ~ m')
n=${#targets[@]}
if [ "$n" = 0 ]; then
	echo "fuzz.sh: no fuzz target matches $match" >&2
	exit 1
fi
groups=1 group=0
if [ "$pick" -gt 0 ] && [ "$pick" -lt "$n" ]; then
	groups=$(((n + pick - 1) / pick))
	group=$(group_of "$groups")
	echo "fuzz.sh: group $((group + 1)) of $groups of the $n targets (FUZZSEED=${FUZZSEED:-HEAD}); scripts/fuzz.sh runs all"
fi

log=$(mktemp)
trap 'rm -f "$log" "$log.test"' EXIT
built=" "
for i in "${!targets[@]}"; do
	[ $((i % groups)) = "$group" ] || continue
	read -r pkg name <<<"${targets[$i]}"
	if [ -n "${FUZZBUILD:-}" ]; then
		# The fuzzing build instruments every package for coverage (SQLite's
		# too: ~100 s of CPU on a cold cache), once per package.
		[[ $built == *" $pkg "* ]] || go test -c -fuzz "^$name\$" -o "$log.test" "$pkg"
		built+="$pkg "
		continue
	fi
	echo "fuzz: $pkg $name ($fuzztime)"
	fuzz_one "$pkg" "$name" "$log" || fuzz_one "$pkg" "$name" "$log" || {
		cat "$log"
		echo "fuzz.sh: fuzzing $pkg $name failed (the failing input is under that package's testdata/fuzz/$name)" >&2
		exit 1
	}
	tail -1 "$log"
done
