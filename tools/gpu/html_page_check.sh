#!/usr/bin/env bash
# The HTML page of a real jacobi-like trace: records the convergence_loop
# workload (graph launch, 8-byte D2H copy to pinned memory, stream sync and a
# host test per iteration; about 9 GPU ops per iteration, 1000 iterations)
# and exports its page; the page must be at most 3 MB. Where Chromium is
# installed it also checks the page's first screen at 1600x1000
# (tests/analyzer/export/check_first_screen.py); elsewhere run that check on
# the brought-back page on a machine with Chromium (command in summary.txt).
# Run from the repository root on a GPU machine with the CUDA build in
# build/ (bin/streamscope, bin/streamscope_workloads,
# lib/libstreamscope_collector.so); builds nothing. Writes $OUT/summary.txt,
# $OUT/convergence_loop.sqlite, $OUT/convergence_loop.html and the logs.
#   OUT=... tools/gpu/html_page_check.sh [BUILD_DIR]
# A correct result: summary.txt says "PASS page size" (and "PASS first
# screen" where Chromium ran); the export line names about 9000 ops.
set -u
: "${OUT:?set OUT to the output folder}"
BUILD=$(cd "${1:-build}" && pwd) || { echo "no build folder ${1:-build}"; exit 2; }
BIN=$BUILD/bin
ROOT=$PWD
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export STREAMSCOPE_COLLECTOR=$BUILD/lib/libstreamscope_collector.so
mkdir -p "$OUT"
SUMMARY=$OUT/summary.txt
: > "$SUMMARY"
say() { echo "$*" | tee -a "$SUMMARY"; }
rc=0
trace=$OUT/convergence_loop.sqlite
page=$OUT/convergence_loop.html
if ! timeout 300 "$BIN/streamscope" run --no-summary --force -o "$trace" -- \
    "$BIN/streamscope_workloads" --variant convergence_loop --iterations 1000 > "$OUT/run.log" 2>&1; then
  say "FAIL record: see run.log"
  exit 1
fi
"$BIN/streamscope" export "$trace" --html "$page" --force > "$OUT/export.log" 2>&1 || { say "FAIL export"; rc=1; }
say "$(head -1 "$OUT/export.log")"
bytes=$(stat -c %s "$page" 2>/dev/null || echo 0)
if [ "$bytes" -gt 0 ] && [ "$bytes" -le 3000000 ]; then
  say "PASS page size: $bytes bytes (at most 3000000)"
else
  say "FAIL page size: $bytes bytes (at most 3000000)"
  rc=1
fi
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -n "$browser" ]; then
  profile=$(mktemp -d)
  flags=(--headless --no-sandbox --disable-gpu --user-data-dir="$profile" --hide-scrollbars --window-size=1600,1000
         --virtual-time-budget=10000)
  timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$page" > "$OUT/first_screen.dom.html" 2> /dev/null
  timeout 120 "$browser" "${flags[@]}" --screenshot="$OUT/first_screen.png" "file://$page" > /dev/null 2>&1
  if python3 "$ROOT/tests/analyzer/export/check_first_screen.py" "$OUT/first_screen.dom.html" \
      "$OUT/first_screen.png" --mode density >> "$SUMMARY" 2>&1; then
    say "PASS first screen"
  else
    say "FAIL first screen (above)"
    rc=1
  fi
  rm -rf "$profile"
else
  say "first screen not checked here (no Chromium): on a machine with it, open $page at 1600x1000 or run"
  say "  the first_screen steps of tests/analyzer/export/html_browser_test.sh on it"
fi
exit $rc
