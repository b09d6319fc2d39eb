#!/usr/bin/env bash
# Installs the external parts the tests use. Safe to run repeatedly, and
# quick (well under a second) when everything is already in place:
#   - the pinned real pi (tools/pi, via `npm ci` from the committed lockfile),
#     which the tests use as their oracle and as the live agent;
#   - Debian's chromium, for the browser tests.
# With CI=true every missing piece is an error, because tests that skip on a
# developer's machine must run in CI.
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

# setup_pi runs npm ci when node_modules is missing or was installed from a
# different lockfile. The stamp records the lockfile's hash after a
# successful install, so an interrupted install is redone.
setup_pi() {
	local dir=tools/pi stamp=tools/pi/node_modules/.piweb-lock.sha256 want
	need_cmd node || return 0
	need_cmd npm || return 0
	want="$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)"
	if [ -x "$dir/node_modules/.bin/pi" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
		say "pi: up to date"
		return 0
	fi
	say "pi: npm ci in $dir"
	rm -f "$stamp"
	(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) || die "npm ci failed in $dir"
	echo "$want" >"$stamp"
	# pi prints its version on stderr.
	say "pi: installed $("$dir/node_modules/.bin/pi" --version 2>&1)"
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

setup_pi
setup_chromium
