#!/usr/bin/env bash
# Installs what Linkwell needs on Debian, only what is missing. Used by `make run` and `make test`.
#   scripts/install-deps.sh build   — the C libraries the build links (libmicrohttpd, libqrencode, libsqlite3, libpq,
#                                     librsvg + cairo for preview cards) and the cards' fonts
#   scripts/install-deps.sh test    — plus curl, nginx, caddy, chromium, a JRE, kotlinc, valgrind, strace, the web-platform-tests
#                                     URL corpus (shipped by librust-url-dev) and a Python venv
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-build}"

# Preview cards: librsvg draws them; DejaVu and Noto (with CJK, Arabic and Hebrew) cover any title.
pkgs=(libmicrohttpd-dev libqrencode-dev libsqlite3-dev libpq-dev pkg-config librsvg2-dev libcairo2-dev fonts-dejavu-core fonts-noto-core fonts-noto-cjk)
if [ "$mode" = "test" ]; then
  pkgs+=(curl nginx-light caddy chromium chromium-driver default-jre-headless python3-venv wrk
         podman runc crun debootstrap lld iproute2 systemd kotlin valgrind strace zsh fish postgresql
         librust-url-dev zbar-tools)
fi

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "==> installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v swift >/dev/null 2>&1; then
  echo "Error: the Swift toolchain (6.x) is not on PATH. Install it from swift.org, then run this again." >&2
  exit 1
fi

if [ "$mode" = "test" ]; then
  if [ ! -x .venv/bin/python ]; then
    echo "==> creating the Python test venv (.venv)"
    python3 -m venv .venv
  fi
  if ! .venv/bin/python -c "import pytest, selenium" >/dev/null 2>&1 || \
     ! cmp -s tests/requirements.txt .venv/.requirements 2>/dev/null; then
    echo "==> installing Python test tools into .venv"
    .venv/bin/pip install -q --disable-pip-version-check -r tests/requirements.txt
    cp tests/requirements.txt .venv/.requirements
  fi
fi
