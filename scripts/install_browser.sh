#!/usr/bin/env bash
# The browser the workbook's browser tests drive: Debian's Chromium (tests/browser). Never a download of
# Playwright's own browser. Installed with apt-get where we run as root; elsewhere say how, and the browser
# tests skip with that reason (under CI they fail instead).
set -euo pipefail
CHROMIUM="${GGUFTOK_CHROMIUM:-/usr/bin/chromium}"
if [ -x "$CHROMIUM" ]; then
    exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing Debian's chromium for the browser tests (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq chromium >/dev/null
    "$CHROMIUM" --version
else
    echo "no Chromium at $CHROMIUM: the browser tests will be skipped." \
         "Install it with 'sudo apt-get install chromium' (or set GGUFTOK_CHROMIUM to a Chromium binary)." >&2
fi
