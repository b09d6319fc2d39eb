#!/usr/bin/env bash
# Load test (issue 17): a client process sends 10,000 mixed requests and
# then holds 1,000 event streams open at once against a server on
# loopback; prints the server's threads, fds, RSS and heap before (warm),
# at the peak and after, and fails unless they return to the baseline.
# Sizes: $1 requests (default 10000), $2 streams (default 1000).
set -euo pipefail
cd "$(dirname "$0")/.."
PIWEB_LOAD=1 PIWEB_LOAD_REQUESTS="${1:-10000}" PIWEB_LOAD_STREAMS="${2:-1000}" \
	go test -count=1 -timeout 10m -run '^TestLoadBaseline$' -v ./internal/server
