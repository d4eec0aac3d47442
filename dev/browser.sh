#!/usr/bin/env bash
# The page tests (tests/test_html_browser.py) drive Debian's Chromium and its driver; they fail,
# never skip, without them. `make test` and `.ci/run` both come here first: as root with apt the
# two packages are installed, otherwise one line says how and the tests do not start.
set -euo pipefail
CHROMIUM="${UOPC_CHROMIUM:-/usr/bin/chromium}"
CHROMEDRIVER="${UOPC_CHROMEDRIVER:-/usr/bin/chromedriver}"
[ -x "$CHROMIUM" ] && [ -x "$CHROMEDRIVER" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q chromium chromium-driver
  exit 0
fi
echo "make test needs Chromium for the page tests: run 'sudo apt-get install -y chromium chromium-driver' (or set UOPC_CHROMIUM and UOPC_CHROMEDRIVER)" >&2
exit 1
