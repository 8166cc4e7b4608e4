#!/usr/bin/env bash
# Installs the system tools the signing tests need (Debian/Ubuntu): SoftHSM2 (PKCS#11 test token),
# OpenSC (pkcs11-tool, to write certificates onto the token) and OpenSSL (PKCS#12 export and
# `openssl cms -verify`). Idempotent: installs only what is missing; safe to call on every CI run.
#
#   bash scripts/softhsm_setup.sh          # install if missing, then print versions
#
# Needs root (or sudo) for apt-get. Tokens are NOT created here: each test initialises its own
# token in a temporary directory through SOFTHSM2_CONF, so nothing is left in /var/lib/softhsm.
set -euo pipefail

need=()
command -v softhsm2-util >/dev/null 2>&1 || need+=(softhsm2)
command -v pkcs11-tool >/dev/null 2>&1 || need+=(opensc)
command -v openssl >/dev/null 2>&1 || need+=(openssl)

if ((${#need[@]} > 0)); then
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

module=""
for m in /usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so /usr/lib/aarch64-linux-gnu/softhsm/libsofthsm2.so \
  /usr/lib/softhsm/libsofthsm2.so; do
  if [[ -f $m ]]; then module=$m; break; fi
done
if [[ -z $module ]]; then
  echo "softhsm_setup: libsofthsm2.so not found after install" >&2
  exit 1
fi
echo "softhsm_setup: softhsm2 $(softhsm2-util --version), $(openssl version | cut -d' ' -f1-2), module $module"
