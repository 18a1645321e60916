#!/usr/bin/env bash
# The project's test command (README and CI run exactly this):
#   1. every unit and integration test (swift test: Swift Testing);
#   2. the DiskLruCache conformance vectors against DiskLru and OkHttp 3.13's Java DiskLruCache;
#   3. Swift<->Java cross runs on one cache directory;
#   4. deploy/'s nginx configuration against real nginx (deploy/test-nginx-conf.sh), then three serve nodes
#      behind it (scripts/cluster-test.sh, 100 sources), and the cluster simulator's node model against
#      three nodes whose disks evict (scripts/cluster-evict-check.sh, 300 requests);
#   5. the demo page of `thumbcache serve --demo` in headless Chromium (scripts/test-demo.sh);
#   6. imgproxy's processing URLs built by two of PyPI's imgproxy URL builders (imgproxy, pyimgproxy) against a
#      real serve (scripts/imgproxy-compat.py);
#   7. imgproxy's own test tables against a real serve (Conformance/imgproxy/run.py: pass, FAIL, or a skip naming
#      the option or setting serve lacks).
# It first installs what is missing of the test packages (scripts/install-deps.sh --tests). Where they cannot be
# installed (no root, no sudo) it goes on: without Java (outside CI) step 2 checks DiskLru alone and step 3 is
# skipped, saying which packages to install.
# Ends with one plain line: "tests: N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
# What only the tests use (JDK, OkHttp, Chromium, nginx) is installed here, not by README command 1; only
# what is missing, so a second run costs a few dpkg-query calls.
if [ -n "${CI:-}" ]; then
  bash scripts/install-deps.sh --tests
else
  bash scripts/install-deps.sh --tests || echo "could not install the test packages: going on with what is installed"
fi
log=$(mktemp); trap 'rm -f "$log"' EXIT
swift test 2>&1 | tee "$log"
tests=$(sed -n 's/.*Test run with \([0-9]*\) tests.* passed after.*/\1/p' "$log" | tail -1)
bash scripts/test-demo.sh 2>&1 | tee "$log"
demo=$(sed -n 's/^demo browser test: \([0-9]*\) passed.*/\1/p' "$log" | tail -1)
# imgproxy's processing URLs, built by PyPI's imgproxy and pyimgproxy builders, against a real serve and a loopback origin.
python3 scripts/imgproxy-compat.py .build/debug/thumbcache 2>&1 | tee "$log"
compat=$(sed -n 's/^imgproxy compat: \([0-9]*\) passed.*/\1/p' "$log" | tail -1)
# imgproxy's own test tables (Conformance/imgproxy/cases) against a real serve; skips name what serve lacks.
python3 Conformance/imgproxy/run.py .build/debug/thumbcache 2>&1 | tee "$log"
imgproxy_cases=$(sed -n 's/^imgproxy conformance: \([0-9]*\) passed.*/\1/p' "$log" | tail -1)
imgproxy_skipped=$(sed -n 's/^imgproxy conformance: .* \([0-9]*\) skipped$/\1/p' "$log" | tail -1)
swift run conformance 2>&1 | tee "$log"
vectors=$(sed -n 's/^\([0-9]*\) vectors$/\1/p' "$log" | tail -1)
cross=0
if [ -n "${CI:-}" ] || { command -v javac >/dev/null 2>&1 && [ -f /usr/share/java/okhttp.jar ]; }; then
  swift run conformance --cross --seed 1 --seed 2 --seed 3 --seed 4 --ops 3000 2>&1 | tee "$log"
  cross=$(grep -c ': pass (' "$log" || true)
else
  echo "skipping the Swift<->OkHttp cross run: apt-get install -y default-jdk-headless libokhttp-java libokio-java"
fi
# The nginx balancer configuration of deploy/ against real nginx and three loopback upstreams.
if [ -n "${CI:-}" ] || command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; then
  bash deploy/test-nginx-conf.sh 2>&1 | tee "$log"
  nginx_checks=$(sed -n 's/^nginx-conf tests: \([0-9]*\) passed.*/\1/p' "$log" | tail -1)
  # Three serve nodes behind that configuration (100 sources here; scripts/cluster-test.sh alone runs 500).
  CLUSTER_SOURCES=100 bash scripts/cluster-test.sh 2>&1 | tee "$log"
  cluster_checks=$(sed -n 's/^cluster tests: \([0-9]*\) passed.*/\1/p' "$log" | tail -1)
  # The simulator's node model against three real nodes whose disks evict (300 requests here).
  EVICT_SOURCES=100 EVICT_REQUESTS=300 bash scripts/cluster-evict-check.sh 2>&1 | tee "$log"
  evict_checks=$(sed -n 's/^evict check: \([0-9]*\) passed.*/\1/p' "$log" | tail -1)
else
  echo "skipping the nginx configuration and cluster tests: apt-get install -y nginx"
fi
# Every step above exits non-zero on any failure (set -e, pipefail), so reaching here means none failed.
echo "swift test: ${tests:-0} tests, demo browser checks: ${demo:-0}, imgproxy compat: ${compat:-0} checks, imgproxy conformance: ${imgproxy_cases:-0} cases (${imgproxy_skipped:-0} skipped), conformance: ${vectors:-0} vectors, cross runs: $cross seeds, nginx config: ${nginx_checks:-0} checks, cluster: ${cluster_checks:-0} checks, evict check: ${evict_checks:-0} checks"
echo "tests: $(( ${tests:-0} + ${demo:-0} + ${compat:-0} + ${imgproxy_cases:-0} + ${vectors:-0} + cross + ${nginx_checks:-0} + ${cluster_checks:-0} + ${evict_checks:-0} )) passed, 0 failed"
