#!/bin/sh
# Builds the mutation fuzzer with AddressSanitizer and runs it over the test fixtures
# (and the shared corpus when present). Usage: Fuzz/run.sh [SECONDS] [SEED] [FORMATS, e.g. webp or gif,avif]
set -eu
cd "$(dirname "$0")/.."
seconds=${1:-600}
seed=${2:-1}
only=${3:-jpeg,png,webp,gif,avif,heic,jxl,tiff,bmp,ico}
swift build -c release --sanitize=address --scratch-path .build-fuzz --product thumbcache-fuzz
corpus=${THUMBCACHE_CORPUS:-../shared/corpus}
dirs=Tests/ImageDecodeTests/Fixtures
[ -d "$corpus" ] && dirs="$dirs $corpus"
exec .build-fuzz/release/thumbcache-fuzz --seed "$seed" --seconds "$seconds" --only "$only" $dirs
