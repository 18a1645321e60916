#!/usr/bin/env bash
# Installs the system packages thumbcache needs on a fresh Debian/Ubuntu machine (run as root or with sudo).
# Only what is missing is installed, so running it again is cheap.
set -euo pipefail
packages=(
  libpng-dev libjpeg-dev pkg-config  # ImageDecode: libpng and libjpeg-turbo (found through pkg-config)
  liblcms2-dev                    # ImageDecode: LittleCMS, embedded ICC profiles to sRGB
  default-jdk-headless            # Conformance: javac/java for the OkHttp driver
  libokhttp-java libokio-java     # Conformance: OkHttp 3.13's DiskLruCache, the reference implementation
  chromium chromium-driver        # serve: the demo page's browser test (selenium comes from PyPI, scripts/test-demo.sh)
  python3-venv                    # serve: the venv selenium is installed into
  nginx python3                   # deploy/test-nginx-conf.sh: the balancer config tried with the real nginx
)
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
