#!/usr/bin/env bash
# Debian packages the test suite uses: openssl (signature checks), softhsm2 + opensc (PKCS#11),
# chromium (browser tests), zenity + xvfb + xdotool + xclip (native picker tests), postgresql (store
# tests), xdg-utils (the svc-agent:// link handler), curl (the docs' examples), nginx (the token service's
# scale-out behind a reverse proxy), unzip; wine64 + gcc-mingw-w64-x86-64 (the win-x64 package run
# under Wine, tests/windows/, and svc-filing.exe), wixl + msitools (the per-user MSI),
# osslsigncode (Authenticode signing) and imagemagick (`import`: the tray's screenshot) — installed
# apart: where they cannot be, the Wine and package tests fail under CI=true and say why.
# Idempotent; installs only what is missing. Needs root (CI runs as root).
set -euo pipefail
pkgs=(openssl softhsm2 opensc chromium zenity xvfb xdotool xclip postgresql wrk xdg-utils curl nginx unzip)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  updated=1
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
wine=()
for p in wine64 gcc-mingw-w64-x86-64 wixl msitools osslsigncode imagemagick; do dpkg -s "$p" >/dev/null 2>&1 || wine+=("$p"); done
if [ "${#wine[@]}" -gt 0 ]; then
  echo "installing: ${wine[*]}"
  [ -n "${updated:-}" ] || apt-get update -qq || true
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${wine[@]}" >/dev/null; then
    echo "WARNING: ${wine[*]} cannot be installed here; the Windows tests under Wine (tests/windows/) will fail under CI=true"
  fi
fi
echo "system packages ready"
