#!/usr/bin/env bash
# The browser the workbook's browser tests drive: Debian's Chromium (tests/browser), and the fonts its pages
# need to draw Chinese, Japanese, Korean and emoji (without them those characters are empty boxes in the
# screenshots). Never a download of Playwright's own browser. Installed with apt-get where we run as root;
# elsewhere say how, and the browser tests skip with that reason (under CI they fail instead).
set -euo pipefail
CHROMIUM="${GGUFTOK_CHROMIUM:-/usr/bin/chromium}"
FONTS="fonts-noto-cjk fonts-noto-color-emoji"
missing_fonts() {
    command -v dpkg-query >/dev/null || return 0  # not Debian: the fonts are the system's business
    for font in $FONTS; do
        dpkg-query -W -f='${Status}' "$font" 2>/dev/null | grep -q "ok installed" || echo "$font"
    done
}
MISSING_FONTS="$(missing_fonts)"
if [ -x "$CHROMIUM" ] && [ -z "$MISSING_FONTS" ]; then
    exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing Debian's chromium and its CJK and emoji fonts for the browser tests (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq chromium $FONTS >/dev/null
    "$CHROMIUM" --version
else
    if [ ! -x "$CHROMIUM" ]; then
        echo "no Chromium at $CHROMIUM: the browser tests will be skipped." \
             "Install it with 'sudo apt-get install chromium' (or set GGUFTOK_CHROMIUM to a Chromium binary)." >&2
    fi
    if [ -n "$MISSING_FONTS" ]; then
        echo "fonts missing for CJK and emoji in the browser tests' screenshots:" $MISSING_FONTS \
             "(install them with 'sudo apt-get install $FONTS')." >&2
    fi
fi
