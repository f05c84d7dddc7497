#!/usr/bin/env bash
# Regenerates the HTML-report screenshots in docs/ with headless Chromium:
# README.md shows docs/html_report_overlapped.png, analyzer/EXPORT.md all
# three. Each is the page `streamscope export tests/data/<variant>.sqlite
# --html ...` writes (the report's default window) as it opens, 1400 pixels
# wide, from the top (summary and diagnosis) down to the end of the timeline
# (its critical-path track): a measuring copy of the page reports where the
# timeline ends, and the window is that tall.
#
#   tools/dev/readme_screenshot.sh [STREAMSCOPE_BIN]   (default: build/bin/streamscope)
#   WIDTH=1600 tools/dev/readme_screenshot.sh          (width in pixels; default 1400)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(realpath "${1:-$repo/build/bin/streamscope}")
width=${WIDTH:-1400}
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ]; then
  echo "readme_screenshot.sh: headless Chromium is not installed (Debian package 'chromium')" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chrome() {
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --no-default-browser-check \
    --disable-extensions --hide-scrollbars --force-device-scale-factor=1 --user-data-dir="$work/profile" \
    --virtual-time-budget=10000 "$@" 2> /dev/null
}
cd "$repo"  # the page shows the trace path as given: keep it short
for variant in overlapped sequential legacy_default; do
  page=$work/$variant.html
  "$bin" export "tests/data/$variant.sqlite" --html "$page" > /dev/null 2> "$work/export.log" || { cat "$work/export.log" >&2; exit 1; }
  # Where the timeline ends, at this width: the measuring copy writes it into its title.
  { cat "$page"; echo "<script>document.title = 'bottom=' + Math.ceil(window.scrollY +"
    echo "  document.getElementById('timeline').getBoundingClientRect().bottom);</script>"; } > "$work/measure.html"
  bottom=$(chrome --window-size="$width,900" --dump-dom "file://$work/measure.html" |
           sed -n 's/.*<title>bottom=\([0-9]*\)<\/title>.*/\1/p' | head -1)
  [ -n "$bottom" ] || { echo "readme_screenshot.sh: $variant: no timeline on the page" >&2; exit 1; }
  height=$((bottom + 16))
  chrome --window-size="$width,$height" --screenshot="$repo/docs/html_report_$variant.png" "file://$page" > /dev/null
  [ -s "docs/html_report_$variant.png" ] || { echo "readme_screenshot.sh: no screenshot for $variant" >&2; exit 1; }
  echo "wrote docs/html_report_$variant.png (${width}x$height)"
done
