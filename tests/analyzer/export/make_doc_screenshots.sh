#!/usr/bin/env bash
# Screenshots of the HTML report for docs/: the overlapped and the
# sequential workload. Uses the recorded traces tests/data/overlapped.sqlite
# and tests/data/sequential.sqlite when present, else synthetic stand-ins
# from make_export_trace (and says so).
#
#   tests/analyzer/export/make_doc_screenshots.sh BUILD_DIR
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-build}" && pwd)
ss="$build/bin/streamscope"
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$repo/docs"
for variant in overlapped sequential; do
  trace="$repo/tests/data/$variant.sqlite"
  extra=()
  if [ ! -f "$trace" ]; then
    trace="$work/synthetic_$variant.sqlite"
    flags=(12 --no-jitter)
    [ "$variant" = sequential ] && flags+=(--sequential)
    "$build/bin/make_export_trace" "$trace" "${flags[@]}"
    extra=(--title "streamscope report: synthetic $variant trace (stand-in until a recorded one is committed)")
    echo "$variant: synthetic trace (tests/data/$variant.sqlite is not present)"
  fi
  # The measured region when the workload marks one, else the whole trace.
  window=()
  if "$ss" export "$trace" --nvtx measured --html "$work/probe.html" > /dev/null 2>&1; then
    window=(--nvtx measured)
  fi
  rm -f "$work/probe.html"
  # Synthetic traces are exported from their folder so the report shows a short path.
  (cd "$(dirname "$trace")" && "$ss" export "$(basename "$trace")" "${window[@]}" --html "$work/$variant.html" "${extra[@]}")
  "$browser" --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
    --user-data-dir="$work/profile" --window-size=1500,1420 --virtual-time-budget=10000 \
    --screenshot="$repo/docs/html_report_$variant.png" "file://$work/$variant.html" 2> /dev/null
  echo "wrote docs/html_report_$variant.png"
done
