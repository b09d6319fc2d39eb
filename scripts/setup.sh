#!/usr/bin/env bash
# Installs the external parts the tests use. Safe to run repeatedly.
set -euo pipefail
cd "$(dirname "$0")/.."
