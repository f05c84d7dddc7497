#!/usr/bin/env bash
# GPU test of one reference workload variant, at fixture sizes.
#   run_workload_test.sh plain VARIANT    runs streamscope_workloads alone
#   run_workload_test.sh traced VARIANT   runs it under `streamscope run`, then
#                                         checks the trace with
#                                         check_workload_trace.py (launch_graph
#                                         also records launch_individual to
#                                         compare inter-kernel gaps)
# Needs STREAMSCOPE_BUILD_DIR (set by CTest). Traces stay in
# $STREAMSCOPE_BUILD_DIR/workload-traces/ for inspection.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/fixture_args.sh"
mode=${1:?mode plain|traced}
variant=${2:?variant}
build=${STREAMSCOPE_BUILD_DIR:?STREAMSCOPE_BUILD_DIR is not set}
bin=$build/bin
workloads=$bin/streamscope_workloads
[ -x "$workloads" ] || { echo "FAIL: $workloads not built"; exit 1; }

run_plain() {
  # shellcheck disable=SC2046
  "$workloads" --variant "$1" $(fixture_args "$1")
  local rc=$?
  fixture_ok_exit "$1" "$rc" || { echo "FAIL: $1 exited $rc"; return 1; }
}

record() {  # record VARIANT TRACE
  [ -x "$bin/streamscope" ] || { echo "FAIL: $bin/streamscope not built"; return 1; }
  # shellcheck disable=SC2046
  "$bin/streamscope" run --force --no-summary --kinds +memory -o "$2" -- "$workloads" --variant "$1" $(fixture_args "$1")
  local rc=$?
  fixture_ok_exit "$1" "$rc" || { echo "FAIL: $1 under streamscope run exited $rc"; return 1; }
  [ -f "$2" ] || { echo "FAIL: no trace written at $2"; return 1; }
}

case "$mode" in
  plain)
    run_plain "$variant" ;;
  traced)
    out=$build/workload-traces
    mkdir -p "$out" || exit 1
    trace=$out/$variant.sqlite
    record "$variant" "$trace" || exit 1
    related=()
    if [ "$variant" = launch_graph ]; then
      record launch_individual "$out/launch_individual.for_graph.sqlite" || exit 1
      related=(--related "launch_individual=$out/launch_individual.for_graph.sqlite")
    fi
    python3 "$here/check_workload_trace.py" "$variant" "$trace" "${related[@]}" ;;
  *)
    echo "usage: $0 plain|traced VARIANT"; exit 2 ;;
esac
