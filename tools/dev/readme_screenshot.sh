#!/usr/bin/env bash
# Regenerates the HTML-report screenshots in docs/ with headless Chromium:
# README.md shows docs/html_report_overlapped.png, analyzer/EXPORT.md all
# three. Each is the page `streamscope export tests/data/<variant>.sqlite
# --html ...` writes (the report's default window), as it opens.
#
#   tools/dev/readme_screenshot.sh [STREAMSCOPE_BIN]   (default: build/bin/streamscope)
#   SIZE=1600,1000 tools/dev/readme_screenshot.sh      (window size; default 1400,900)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(realpath "${1:-$repo/build/bin/streamscope}")
size=${SIZE:-1400,900}
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ]; then
  echo "readme_screenshot.sh: headless Chromium is not installed (Debian package 'chromium')" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$repo"  # the page shows the trace path as given: keep it short
for variant in overlapped sequential legacy_default; do
  "$bin" export "tests/data/$variant.sqlite" --html "$work/$variant.html" > /dev/null
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --no-default-browser-check \
    --disable-extensions --hide-scrollbars --force-device-scale-factor=1 --user-data-dir="$work/profile" \
    --window-size="$size" --virtual-time-budget=10000 \
    --screenshot="$repo/docs/html_report_$variant.png" "file://$work/$variant.html" > /dev/null 2>&1
  [ -s "docs/html_report_$variant.png" ] || { echo "readme_screenshot.sh: no screenshot for $variant" >&2; exit 1; }
  echo "wrote docs/html_report_$variant.png ($size)"
done
