#!/usr/bin/env bash
# kill -9 and fault injection (issue 17): random SIGKILLs during every
# mutating operation (append via rename and label, fork, migrate, repair,
# delete and restore through a running server), a full tmpfs, a read-only
# folder, two writers on one file. Prints files intact, torn lines, lost,
# duplicated and orphaned sessions, ghosts and leftovers per scenario.
# Needs root (tmpfs mounts). N kills per operation: $1 (default 50).
# delete, restore, fork and rename in random orders over a 3-level family
# of forks, killed mid-way, with each fork's lineage checked after every
# start. STRICT=1 fails on any damage; ONLY=lineage runs that scenario alone.
set -euo pipefail
cd "$(dirname "$0")/.."
PIWEB_FAULTS=1 PIWEB_FAULTS_ONLY="${ONLY:-}" PIWEB_FAULTS_N="${1:-50}" PIWEB_FAULTS_STRICT="${STRICT:-}" \
	go test -count=1 -timeout 60m -run '^TestFaults$' -v ./bench/faults
