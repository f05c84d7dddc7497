#!/usr/bin/env bash
# One GPU session that records everything the analyzer's conclusions are
# judged on, in two parts of under 10 minutes each, run from the
# repository root with the staged binaries in out/gpu (collector_stage.sh)
# and NVIDIA's samples built by `tools/gpu/samples_record.sh build` into
# $SAMPLES_BIN (default .ext/samples/bin; not part of the repository):
#   OUT=... tools/gpu/conclusions_record.sh part1   # fixtures, torch fixtures, python record, samples
#   OUT=... tools/gpu/conclusions_record.sh part2   # submitters + overhead, public models
#   OUT=... tools/gpu/conclusions_record.sh loops   # everyday PyTorch loops, their summaries and compares
# Traces come back as tarballs (the transfer takes at most 8 files).
set -u
: "${OUT:?set OUT to the output folder}"
part=${1:?part1, part2 or loops}
ROOT=$PWD
SS=$ROOT/out/gpu/bin/streamscope
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export STREAMSCOPE_COLLECTOR=$ROOT/out/gpu/lib/libstreamscope_collector.so
W=$(mktemp -d)
T0=$SECONDS
stamp() { echo "=== [$((SECONDS - T0)) s] $*"; }

if [ "$part" = part1 ]; then
  stamp "fixtures"
  mkdir -p "$W/fixtures"
  BIN_DIR=out/gpu/bin OUT_DIR="$W/fixtures" timeout 240 tools/record_fixtures.sh > "$W/fixtures/record.log" 2>&1
  echo "record_fixtures rc=$?"; tail -25 "$W/fixtures/record.log"
  stamp "torch fixtures"
  OUT="$W/torch" BUILD_DIR=out/gpu timeout 150 tools/gpu/record_torch_fixtures.sh > /dev/null 2>&1
  echo "torch rc=$?"; tail -15 "$W/torch/torch_fixtures.log"
  stamp "python record"
  OUT="$W" timeout 100 tools/gpu/python_record.sh 2>&1 | tail -8
  stamp "samples"
  timeout 170 tools/gpu/samples_record.sh run "${SAMPLES_BIN:-.ext/samples/bin}" "$W/samples" out/gpu > "$W/samples.log" 2>&1
  grep -E "^###|!!!|primary|rc=" "$W/samples.log" | head -40
  stamp "pack"
  (cd "$W" && tar czf "$OUT/fixtures.tgz" fixtures && tar czf "$OUT/torch.tgz" torch python_record \
     && tar czf "$OUT/samples.tgz" samples samples.log)
elif [ "$part" = loops ]; then
  # tools/gpu/everyday_loops.py as a user runs it, each recorded, summarized
  # and diagnosed (NVTX 'step' instances; gpt2_generate: 'generate'), and the
  # two fixes compared against their controls.
  mkdir -p "$W/loops"
  loop() {  # loop NAME ARGS...
    local name=$1; shift
    [ $((SECONDS - T0)) -gt 480 ] && { echo "skip $name (time)"; return; }
    stamp "loop $name"
    timeout 150 "$SS" run --force -o "$W/loops/$name.sqlite" -- python3 tools/gpu/everyday_loops.py "$@" \
      > "$W/loops/$name.log" 2>&1
    echo "$name rc=$?"; grep "everyday_loops:" "$W/loops/$name.log" | tail -1
    "$SS" report --summary "$W/loops/$name.sqlite" > "$W/loops/$name.summary.txt" 2>&1
    "$SS" diagnose --format json "$W/loops/$name.sqlite" > "$W/loops/$name.diagnose.json" 2>&1
    head -30 "$W/loops/$name.summary.txt"
  }
  loop mlp_item mlp_item
  loop mlp_item50 mlp_item --item-every 50
  loop loader_pinned loader_pinned
  loop loader_slow loader_pinned --item-ms 3
  if python3 -c "import transformers" 2>/dev/null; then loop gpt2_generate gpt2_generate; fi
  for pair in "mlp_item mlp_item50" "loader_slow loader_pinned"; do
    set -- $pair
    [ -f "$W/loops/$1.sqlite" ] && [ -f "$W/loops/$2.sqlite" ] || continue
    stamp "compare $1 -- $2"
    "$SS" compare --goal speedup "$W/loops/$1.sqlite" -- "$W/loops/$2.sqlite" 2>&1 | tee "$W/loops/$1.vs.$2.txt" | tail -15
  done
  stamp "pack"
  (cd "$W" && tar czf "$OUT/loops.tgz" loops)
else
  stamp "submitters"
  timeout 330 tools/gpu/op_submitters_check.sh out/gpu > "$W/submitter.log" 2>&1
  echo "submitter rc=$?"; cp "$OUT/summary.txt" "$W/" 2>/dev/null; cat "$OUT/summary.txt" 2>/dev/null | tail -40
  stamp "public models"
  mkdir -p "$W/models"
  python3 -c "import torchvision" 2>&1 | tail -1
  python3 -c "import transformers; print('transformers', transformers.__version__)" 2>&1 | tail -1
  python3 -c "import timm; print('timm', timm.__version__)" 2>&1 | tail -1
  for m in resnet18 resnet18_loader vit_timm gpt2_compile; do
    [ $((SECONDS - T0)) -gt 480 ] && { echo "skip $m (time)"; continue; }
    stamp "model $m"
    timeout 120 "$SS" run -o "$W/models/$m.sqlite" -- python3 tools/gpu/public_models.py "$m" --steps 12 \
      > "$W/models/$m.log" 2>&1
    echo "$m rc=$?"; tail -3 "$W/models/$m.log"
  done
  stamp "pack"
  rm -f "$OUT"/traces/*.sqlite-* 2>/dev/null
  (cd "$W" && tar czf "$OUT/models.tgz" models && tar czf "$OUT/submitter.tgz" submitter.log summary.txt)
  (cd "$OUT" && [ -d traces ] && tar czf submitter_traces.tgz traces && rm -rf traces)
fi
ls -la "$OUT"
stamp "done"
