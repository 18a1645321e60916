#!/usr/bin/env bash
# The project's test command (README and CI run exactly this):
#   1. every unit and integration test (swift test);
#   2. the DiskLruCache conformance vectors against DiskLru and OkHttp 3.13's Java DiskLruCache;
#   3. Swift<->Java cross runs on one cache directory.
# Without Java (outside CI) step 2 checks DiskLru alone and step 3 is skipped, saying which packages to install.
set -euo pipefail
cd "$(dirname "$0")/.."
swift test
swift run conformance
if [ -n "${CI:-}" ] || command -v javac >/dev/null 2>&1 && [ -f /usr/share/java/okhttp.jar ]; then
  swift run conformance --cross --seed 1 --seed 2 --seed 3 --seed 4 --ops 3000
else
  echo "skipping the Swift<->OkHttp cross run: apt-get install -y default-jdk-headless libokhttp-java libokio-java"
fi
