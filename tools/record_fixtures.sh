#!/usr/bin/env bash
# Re-records the committed fixture traces tests/data/<variant>.sqlite: every
# reference workload variant at small sizes (tests/workloads/fixture_args.sh)
# under `streamscope run`, then compacted (journal_mode=DELETE, VACUUM: one
# self-contained file each, well under 1 MB) and checked with
# tests/workloads/check_workload_trace.py. Needs a CUDA GPU.
#
#   tools/record_fixtures.sh [BIN_DIR [OUT_DIR]]
#   BIN_DIR=... OUT_DIR=... VARIANTS="overlapped sequential" tools/record_fixtures.sh
#
# BIN_DIR holds streamscope and streamscope_workloads (default build/bin; the
# collector is found by `streamscope run` at BIN_DIR/../lib or through
# STREAMSCOPE_COLLECTOR). OUT_DIR defaults to tests/data. Relative paths are
# taken from the repository root, so the script also runs from a carried copy
# of the working tree. Only python3 (with its sqlite3 module) is needed
# besides the binaries. Exit status: 0 all recorded and checked, 1 otherwise.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
. tests/workloads/fixture_args.sh

bin_dir=${1:-${BIN_DIR:-build/bin}}
out_dir=${2:-${OUT_DIR:-tests/data}}
variants=${VARIANTS:-$FIXTURE_VARIANTS}
streamscope=$bin_dir/streamscope
workloads=$bin_dir/streamscope_workloads

for program in "$streamscope" "$workloads"; do
  [ -x "$program" ] || { echo "record_fixtures: $program not found or not executable (BIN_DIR=$bin_dir)" >&2; exit 1; }
done
command -v python3 >/dev/null || { echo "record_fixtures: python3 is needed" >&2; exit 1; }
"$workloads" --check-device || { echo "record_fixtures: no usable CUDA GPU; nothing recorded" >&2; exit 1; }
mkdir -p "$out_dir" || exit 1

compact() {  # compact TRACE: fold the WAL in, drop free pages
  python3 - "$1" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("PRAGMA journal_mode=DELETE")
db.execute("VACUUM")
db.close()
PY
}

failed=()
for variant in $variants; do
  echo "=== $variant"
  final=$out_dir/$variant.sqlite
  tmp=$out_dir/.$variant.recording.sqlite
  rm -f "$tmp" "$tmp-wal" "$tmp-shm"
  # shellcheck disable=SC2046
  "$streamscope" run --force --no-summary --kinds +memory -o "$tmp" -- "$workloads" --variant "$variant" $(fixture_args "$variant")
  rc=$?
  if ! fixture_ok_exit "$variant" "$rc" || [ ! -f "$tmp" ]; then
    echo "record_fixtures: $variant failed (exit $rc); $final left unchanged" >&2
    rm -f "$tmp" "$tmp-wal" "$tmp-shm"
    failed+=("$variant")
    continue
  fi
  if ! compact "$tmp"; then
    echo "record_fixtures: cannot compact $tmp" >&2
    failed+=("$variant")
    continue
  fi
  rm -f "$tmp-wal" "$tmp-shm"
  mv -f "$tmp" "$final" || { failed+=("$variant"); continue; }
  size=$(stat -c %s "$final")
  echo "record_fixtures: $final: $size bytes"
  [ "$size" -lt 1048576 ] || echo "record_fixtures: warning: $final is over 1 MB" >&2
  python3 tests/workloads/check_workload_trace.py --fixture-dir "$out_dir" "$variant" || failed+=("$variant")
done

echo
if [ ${#failed[@]} -eq 0 ]; then
  echo "record_fixtures: all recorded and checked in $out_dir: $variants"
  exit 0
fi
echo "record_fixtures: FAILED: ${failed[*]}" >&2
exit 1
