#!/usr/bin/env bash
# Writes what the analyzer prints for every bundled trace (text, JSON and CSV
# reports, diagnose, compare of each control/variant pair, export) into a
# folder, one file per command, with each command's exit code. Run it with
# the binary before and after a change and diff the two folders: a change
# that should not alter behaviour must leave every file byte-identical.
#   tools/dev/snapshot_outputs.sh BUILD/bin/streamscope OUT_DIR
set -uo pipefail
bin=$(realpath "$1"); out=$2
cd "$(dirname "$0")/../.."
mkdir -p "$out"
traces=(tests/data/*.sqlite tests/data/nsys/*.sqlite tests/data/samples/*.sqlite)
run() {  # run NAME ARGS...: stdout to NAME, exit code to NAME.rc
  local name=$1; shift
  "$bin" "$@" >"$out/$name" 2>"$out/$name.stderr"; echo $? >"$out/$name.rc"
  # Output may name the snapshot folder and wall times: strip both, so two
  # snapshots differ only where behaviour does.
  sed -i -E "s|$out|OUT|g; s/[0-9]+\.[0-9]+ s\b/N s/g" "$out/$name" "$out/$name.stderr"
}
for t in "${traces[@]}"; do
  n=$(basename "$t" .sqlite)
  run "$n.report.txt" report "$t"
  run "$n.report.json" report "$t" --format json
  run "$n.report.csv" report "$t" --format csv
  run "$n.diagnose.txt" diagnose "$t"
  run "$n.diagnose.json" diagnose "$t" --format json
  run "$n.export.json" export "$t" --perfetto "$out/$n.perfetto.json" --html "$out/$n.html" --force
done
run compare_seq_ovl.txt compare tests/data/sequential.sqlite -- tests/data/overlapped.sqlite
run compare_seq_ovl.json compare tests/data/sequential.sqlite -- tests/data/overlapped.sqlite --format json
run compare_seq_pageable.txt compare tests/data/sequential.sqlite -- tests/data/pageable.sqlite
run compare_graph.txt compare tests/data/launch_individual.sqlite -- tests/data/launch_graph.sqlite
echo "snapshot of ${#traces[@]} traces in $out"
