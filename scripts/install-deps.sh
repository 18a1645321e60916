#!/usr/bin/env bash
# Installs the system packages thumbcache needs on a fresh Debian/Ubuntu machine (run as root or with sudo).
#   scripts/install-deps.sh           what building and running need (ImageDecode's C libraries): README command 1
#   scripts/install-deps.sh --tests   that, plus what only the tests use (a JDK and OkHttp for the conformance
#                                     runs, Chromium for the demo page, nginx): scripts/test.sh runs this itself
# Only what is missing is installed (no apt-get at all when nothing is), so running it again is cheap.
set -euo pipefail
packages=(
  libpng-dev libjpeg-dev pkg-config  # ImageDecode: libpng and libjpeg-turbo (found through pkg-config)
  liblcms2-dev                    # ImageDecode: LittleCMS, embedded ICC profiles to sRGB
  libwebp-dev libgif-dev libavif-dev  # ImageDecode: WebP (libwebp + demux), GIF (giflib), AVIF (libavif: dav1d, aom)
  libheif-dev libde265-dev libjxl-dev libtiff-dev librsvg2-dev  # ImageDecode: HEIC (libheif: libde265 in, its pictures zeroed by us; x265 out), JPEG XL, TIFF, SVG
)
# Debian 12's libheif 1.15 has its libde265 decoder and x265 encoder built in (libheif1 depends on both); from
# libheif 1.16 on (Debian 13, Ubuntu 24.04) they are plugin packages, without which HEIC is neither read nor written.
for plugin in libheif-plugin-libde265 libheif-plugin-x265; do
  apt-cache show "$plugin" >/dev/null 2>&1 && packages+=("$plugin")
done
test_packages=(
  default-jdk-headless            # Conformance: javac/java for the OkHttp driver
  libokhttp-java libokio-java     # Conformance: OkHttp 3.13's DiskLruCache, the reference implementation
  chromium chromium-driver        # serve: the demo page's browser test (selenium comes from PyPI, scripts/test-demo.sh)
  python3-venv                    # serve: the venv selenium is installed into
  nginx python3                   # deploy/test-nginx-conf.sh and the cluster tests: the balancer with the real nginx
)
case "${1:-}" in
  "") ;;
  --tests) packages+=("${test_packages[@]}") ;;
  *) echo "usage: $0 [--tests]" >&2; exit 64 ;;
esac
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# libwebp before 1.3.2 has the lossless Huffman-table overflow CVE-2023-4863 (exploited in the wild); Debian 12
# carries the fix from 1.2.4-0.2+deb12u1 on. Refuse to go on with an older package.
minimum_webp="1.2.4-0.2+deb12u1"
installed_webp=$(dpkg-query -W -f='${Version}' libwebp-dev 2>/dev/null || true)
if [ -n "$installed_webp" ] && ! dpkg --compare-versions "$installed_webp" ge "$minimum_webp"; then
  echo "libwebp-dev $installed_webp is older than $minimum_webp (CVE-2023-4863): upgrade it (apt-get install --only-upgrade libwebp-dev libwebp7)" >&2
  exit 1
fi
