#!/bin/sh
# Conformance part of CI (called by .ci/run after scripts/install-deps.sh has installed Java and OkHttp):
# replays every vector against DiskLru and OkHttp 3.13, then cross-runs Swift and Java on one directory.
set -eu
cd "$(dirname "$0")/.."
export CI=true  # missing Java is an error here, not a skipped column
swift run conformance
swift run conformance --cross --seed 1 --seed 2 --seed 3 --seed 4 --ops 3000
