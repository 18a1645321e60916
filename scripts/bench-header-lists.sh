#!/usr/bin/env bash
# Event-loop CPU of reading a long Accept header: this tree's AcceptNegotiation (bounded by HeaderList) against
# another revision's (default: the parent of the commit that bounded it). Both are compiled with -O from the
# real sources beside a stub of ImageFormat, so nothing else is built. Usage: scripts/bench-header-lists.sh [REV]
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:-$(git log --format=%H -n 1 -- Sources/ThumbcacheServer/HeaderList.swift)^}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
stub='public enum ImageFormat { case avif, webp
  var mimeType: String { self == .avif ? "image/avif" : "image/webp" } }'
main='import Foundation
@main struct Bench { static func main() {
  let header = String(repeating: "text/x-filler;q=0.5, ", count: 3_700) + "image/avif"  // 79 KB
  var picked = 0
  let start = ContinuousClock.now
  for _ in 0..<200 { if AcceptNegotiation(header).format != nil { picked += 1 } }
  let each = (ContinuousClock.now - start) / 200
  print("\(header.utf8.count) bytes: \(each) per Accept read, picked \(picked)/200")
} }'
for side in before after; do
  mkdir -p "$work/$side"
  if [ "$side" = before ]; then
    git show "$rev:Sources/ThumbcacheServer/AcceptNegotiation.swift" > "$work/$side/AcceptNegotiation.swift"
  else
    cp Sources/ThumbcacheServer/AcceptNegotiation.swift Sources/ThumbcacheServer/HeaderList.swift "$work/$side/"
  fi
  sed -i '/^import ImageDecode/d' "$work/$side/AcceptNegotiation.swift"
  echo "$stub" > "$work/$side/Stub.swift"
  echo "$main" > "$work/$side/Main.swift"
  swiftc -O -parse-as-library "$work/$side"/*.swift -o "$work/$side/bench"
  if [ "$side" = before ]; then echo "before ($rev):"; else echo "after (this tree):"; fi
  "$work/$side/bench"
done
