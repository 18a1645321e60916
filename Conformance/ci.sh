#!/bin/sh
# Conformance part of CI: installs Java and OkHttp when missing, replays every vector against DiskLru and
# OkHttp 3.13, then cross-runs Swift and Java on one directory for several seeds. Run from the package root.
set -eu
if ! command -v javac >/dev/null 2>&1 || [ ! -f /usr/share/java/okhttp.jar ] || [ ! -f /usr/share/java/okio.jar ]; then
    apt-get update -qq
    apt-get install -y -qq default-jdk-headless libokhttp-java libokio-java
fi
export CI=true  # missing Java is an error, not a skipped column
swift build --product conformance
swift run conformance
swift run conformance --cross --seed 1 --seed 2 --seed 3 --seed 4 --ops 3000
