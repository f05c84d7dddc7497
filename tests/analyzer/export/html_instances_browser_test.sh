#!/usr/bin/env bash
# The HTML page's per-instance chart in headless Chromium: on the planted
# loop (tests/data/synth/slow_step.json: ten 'step' instances, the sixth
# slow) the chart has ten bars, the sixth alone marked slow, and the page
# opened on #instance-6 shows that instance on the timeline (562 us from
# +810 us, with 5% on each side). Keeps the page, its DOM and a screenshot
# in ARTIFACT_DIR. Exits 77 ("SKIPPED: ...") without Chromium.
#
#   html_instances_browser_test.sh STREAMSCOPE ARTIFACT_DIR
set -euo pipefail
streamscope=$1
art=$2
repo=$(cd "$(dirname "$0")/../../.." && pwd)

browser=""
for b in chromium chromium-browser google-chrome; do
  if command -v "$b" >/dev/null 2>&1; then browser=$(command -v "$b"); break; fi
done
if [ -z "$browser" ]; then
  echo "SKIPPED: headless Chromium is not installed (Debian package 'chromium'; tools/install_deps.sh)"
  exit 77
fi
rm -rf "$art"
mkdir -p "$art"
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
flags=(--headless --no-sandbox --disable-gpu --no-first-run --no-default-browser-check --disable-extensions
       --disable-background-networking --user-data-dir="$profile" --virtual-time-budget=10000)

"$streamscope" synth "$repo/tests/data/synth/slow_step.json" -o "$art/slow_step.sqlite" > /dev/null
"$streamscope" export "$art/slow_step.sqlite" --html "$art/slow_step.html" > /dev/null 2> "$art/export.log"
timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$art/slow_step.html#instance-6" > "$art/slow_step.dom.html" \
  2> "$art/console.log" || true
timeout 120 "$browser" "${flags[@]}" --hide-scrollbars --window-size=1600,1000 --screenshot="$art/slow_step.png" \
  "file://$art/slow_step.html#instance-6" > /dev/null 2>> "$art/console.log" || true

python3 - "$art/slow_step.dom.html" <<'PY'
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
failures = []
if 'data-render-ok="1"' not in dom:
    failures.append("the page script did not run to the end (data-render-ok)")
bars = re.findall(r'<g class="instance-bar( slow)?" data-instance="(\d+)"', dom)
if len(bars) != 10:
    failures.append(f"{len(bars)} instance bars, want 10")
slow = [k for s, k in bars if s]
if slow != ["6"]:
    failures.append(f"slow bars {slow}, want ['6']")
view = re.search(r'<svg id="tl-svg"[^>]* viewBox="([-\d.]+) 0 ([\d.]+) ', dom)
# #instance-6: 562 us from +810 us, 5% on each side.
if not view or abs(float(view.group(1)) - 781.9) > 0.01 or abs(float(view.group(2)) - 618.2) > 0.01:
    failures.append(f"timeline view {view.groups() if view else None}, want (781.9, 618.2) us")
for f in failures:
    print("FAIL:", f)
if not failures:
    print("ok: 10 instance bars, #6 alone slow, #instance-6 zooms the timeline to it")
sys.exit(1 if failures else 0)
PY
