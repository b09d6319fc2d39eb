#!/bin/bash
# build it
set -euo pipefail
for f in *.go; do
  echo "file: $f ${HOME}/x" 'single $x' >> "$OUT" # trailing
done
if [ -n "$1" ]; then go test -run TestX ./... --count=1; fi
echo $# ${#arr[@]}
