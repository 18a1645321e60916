#!/bin/sh
# Conformance part of CI: replays every vector against DiskLru and OkHttp 3.13, then cross-runs Swift and Java
# on one directory for several seeds. Installs Java and OkHttp first when they are missing.
set -eu
cd "$(dirname "$0")/.."
if ! command -v javac >/dev/null 2>&1 || [ ! -f /usr/share/java/okhttp.jar ] || [ ! -f /usr/share/java/okio.jar ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq default-jdk-headless libokhttp-java libokio-java >/dev/null
fi
export CI=true  # missing Java is an error here, not a skipped column
swift run conformance
swift run conformance --cross --seed 1 --seed 2 --seed 3 --seed 4 --ops 3000
