#!/usr/bin/env bash
# One batch on the GPU machine, run from the repository root there with
# out/gpu staged (tools/gpu/collector_stage.sh BUILD; tests/workloads/stage_for_gpu.sh BUILD):
# the collector's known_ops tests, every workload variant plain and traced
# and checked, the fixtures, the reports, compare/diagnose on the fixtures,
# a repeated compare run, and HTML/Perfetto exports. Everything lands in
# $OUT/all.tgz plus a few logs (the device tool returns at most 8 files).
set -uo pipefail
: "${OUT:?}"
root=$PWD
export STREAMSCOPE_BUILD_DIR=$root/out/gpu
bin=$STREAMSCOPE_BUILD_DIR/bin
W=/tmp/session; rm -rf $W; mkdir -p $W
export STREAMSCOPE_TEST_OUT=$W/t; mkdir -p $W/t
{
  for t in "known_ops injection" "known_ops static" "known_ops preload" "known_ops run"; do
    echo "=== $t"; timeout 120 tools/gpu/collector_gpu_test.sh $t 2>&1
  done
} > $W/collector.log 2>&1
OUT=$W/w timeout 420 tests/workloads/workloads_gpu_check.sh > $W/workloads.log 2>&1
F=$W/w/fixtures
{
  for v in overlapped sequential; do
    echo "################ report $v"; $bin/streamscope report --nvtx measured $F/$v.sqlite; echo "rc=$?"
  done
  echo "################ compare sequential -- overlapped"
  $bin/streamscope compare $F/sequential.sqlite -- $F/overlapped.sqlite; echo "rc=$?"
  echo "################ compare sequential -- pageable"
  $bin/streamscope compare $F/sequential.sqlite -- $F/pageable.sqlite; echo "rc=$?"
  echo "################ compare launch_individual -- launch_graph"
  $bin/streamscope compare $F/launch_individual.sqlite -- $F/launch_graph.sqlite; echo "rc=$?"
  for v in pageable legacy_default implicit_sync cpu_starved; do
    echo "################ diagnose $v"; $bin/streamscope diagnose --nvtx measured $F/$v.sqlite; echo "rc=$?"
  done
  echo "################ compare --run repeated"
  timeout 240 $bin/streamscope compare --run "$bin/streamscope_workloads --variant sequential" \
    --run "$bin/streamscope_workloads --variant overlapped" --repeat 3 --output-dir $W/cmp; echo "rc=$?"
  for v in overlapped sequential; do
    $bin/streamscope export $F/$v.sqlite --html $W/$v.html --perfetto $W/$v.json; echo "export $v rc=$?"
  done
} > $W/analysis.log 2>&1
{
  echo "################ report peer_overlap (one GPU here: D2D fallback)"
  $bin/streamscope report --nvtx measured $F/peer_overlap.sqlite; echo "rc=$?"
  echo "################ ddp_train under torchrun, trace-%q{RANK}.sqlite"
  timeout 300 workloads/torch/run_ddp.sh $bin $W/ddp 1 --steps 200; echo "rc=$?"
  ls -la $W/ddp
  echo "################ report --nvtx step: every one of the 200 training steps as a window"
  /usr/bin/time -f "report --nvtx step: %e s wall, %M KB peak" $bin/streamscope report --nvtx step $W/ddp/trace-0.sqlite
  echo "rc=$?"
  $bin/streamscope report --format json --nvtx step $W/ddp/trace-0.sqlite > $W/ddp/steps.json; echo "json rc=$?"
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('json windows:', len(d['traces'][0]['windows']))" $W/ddp/steps.json
  echo "################ report --nvtx host_prepare cpu_starved (8 instances, each in full)"
  $bin/streamscope report --nvtx host_prepare $F/cpu_starved.sqlite | grep -E "^Window|idled|Instances"; echo "rc=$?"
  for v in racy misleading_timing overlapped event_pipeline; do
    echo "################ report $v (hazards, timing audit)"
    $bin/streamscope report --nvtx measured $F/$v.sqlite; echo "rc=$?"
  done
  echo "################ compare event_pipeline -- racy (refuses a hazardous variant)"
  $bin/streamscope compare $F/event_pipeline.sqlite -- $F/racy.sqlite; echo "rc=$?"
} > $W/issues_8_10.log 2>&1
cp $W/collector.log $W/workloads.log $W/analysis.log $W/issues_8_10.log $W/w/summary.txt "$OUT/" 2>/dev/null
cd $W && tar czf "$OUT/all.tgz" --exclude='*.sqlite-wal' --exclude='*.sqlite-shm' . 2>/dev/null
ls -la "$OUT"; tail -5 $W/collector.log; cat $W/w/summary.txt | tail -40; grep -E "rc=|Verdict|verdict|VERIFIED|NOT" $W/analysis.log | head -40
