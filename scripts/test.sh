#!/usr/bin/env bash
# The project's test command (README, CI): every unit and integration test.
set -euo pipefail
cd "$(dirname "$0")/.."
swift test
