#!/usr/bin/env bash
# DataCache hits, release build, one run side by side (Sources/datacache-bench): memory hits of `fetchData` on
# 1,000 JSON owners against a [String: Profile] behind a lock, and disk hits (a memory tier of one entry, so each
# call reads the disk tier and runs processData) against FileManager reads + JSONDecoder of the same JSON files.
# The origin is a loopback server inside the bench, used only to fill the caches. Prints rates and ratios.
# Usage: scripts/bench-datacache.sh [ROUNDS]   (memory rounds, default 200; disk rounds are a tenth)
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product datacache-bench >/dev/null
.build/release/datacache-bench "${1:-200}"
