#!/usr/bin/env bash
# Runs every piweb test on a fresh machine: installs what the tests need
# (the pinned pi via npm ci, Debian chromium), then runs the Go suites.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
go vet ./...
go test -count=1 ./...
