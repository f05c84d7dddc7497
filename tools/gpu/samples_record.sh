#!/usr/bin/env bash
# NVIDIA's CUDA samples, programs nobody here wrote, built and recorded under
# streamscope to judge its conclusions (workloads/README.md, "Programs nobody
# here wrote"). The sources are not part of this repository: clone
# github.com/NVIDIA/cuda-samples (any recent revision with the
# Samples/<N>_<Category>/ layout) on a machine with network access, build
# there or on the GPU machine, then record on the GPU machine.
#
#   tools/gpu/samples_record.sh build CUDA_SAMPLES_DIR BIN_DIR   # nvcc for sm_90 (CUDA 13)
#   tools/gpu/samples_record.sh run BIN_DIR OUT_DIR [BUILD_DIR=build]
#
# `run` writes, for each variant NAME, OUT_DIR/NAME.sqlite, .log (the
# program's output, its own timings included), .summary.txt
# (`report --summary`) and .diagnose.json, and prints each summary's head.
# jacobiCudaGraphs runs twice: with its graph (default) and without
# (-gpumethod=2), the pair `compare` is judged on; simpleHyperQ twice: with
# the driver's 8 hardware queues and with 32 (CUDA_DEVICE_MAX_CONNECTIONS).
set -u
mode=${1:?build or run}

build() {
  local src=$1 bin=$2
  export PATH=/usr/local/cuda/bin:$PATH
  mkdir -p "$bin"
  local tmp
  tmp=$(mktemp -d)
  local nvcc=(nvcc -O2 -std=c++17 -gencode "arch=compute_90,code=sm_90" -I"$src/Common")
  one() {  # one NAME SOURCES... [-l...]
    local name=$1
    shift
    echo "building $name"
    "${nvcc[@]}" -o "$bin/$name" "$@" || echo "FAILED: $name"
  }
  local s=$src/Samples
  one jacobiCudaGraphs "$s/3_CUDA_Features/jacobiCudaGraphs/main.cpp" "$s/3_CUDA_Features/jacobiCudaGraphs/jacobi.cu"
  one simpleHyperQ "$s/0_Introduction/simpleHyperQ/simpleHyperQ.cu"
  one StreamPriorities "$s/3_CUDA_Features/StreamPriorities/StreamPriorities.cu"
  one simpleCudaGraphs "$s/3_CUDA_Features/simpleCudaGraphs/simpleCudaGraphs.cu"
  one streamOrderedAllocation "$s/2_Concepts_and_Techniques/streamOrderedAllocation/streamOrderedAllocation.cu"
  one matrixMul "$s/0_Introduction/matrixMul/matrixMul.cu"
  one simpleStreams "$s/0_Introduction/simpleStreams/simpleStreams.cu"
  one simpleMultiCopy "$s/0_Introduction/simpleMultiCopy/simpleMultiCopy.cu"
  one asyncAPI "$s/0_Introduction/asyncAPI/asyncAPI.cu"
  one vectorAdd "$s/0_Introduction/vectorAdd/vectorAdd.cu"
  one simpleCallback "$s/0_Introduction/simpleCallback/simpleCallback.cu" \
    "$s/0_Introduction/simpleCallback/multithreading.cpp"
  one conjugateGradientCudaGraphs "$s/4_CUDA_Libraries/conjugateGradientCudaGraphs/conjugateGradientCudaGraphs.cu" \
    -lcublas -lcusparse -Xlinker -rpath=/usr/local/cuda/lib64
  # CUDA 13 removed cudaDeviceProp::computeMode: bandwidthTest reads the
  # same value as a device attribute (a copy is patched, the clone is not).
  sed 's/deviceProp\.computeMode == cudaComputeModeProhibited/ComputeModeOf(currentDevice) == cudaComputeModeProhibited/' \
    "$s/1_Utilities/bandwidthTest/bandwidthTest.cu" > "$tmp/bandwidthTest.cu"
  printf '%s\n' '#include <cuda_runtime.h>' \
    'static int ComputeModeOf(int d) { int m = -1; cudaDeviceGetAttribute(&m, cudaDevAttrComputeMode, d); return m; }' \
    > "$tmp/compute_mode.h"
  one bandwidthTest -include "$tmp/compute_mode.h" "$tmp/bandwidthTest.cu"
  rm -rf "$tmp"
}

run() {
  local bin=$1 out=$2 build_dir=${3:-build}
  local ss=$build_dir/bin/streamscope
  export STREAMSCOPE_COLLECTOR=$build_dir/lib/libstreamscope_collector.so
  export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  mkdir -p "$out"
  one() {  # one NAME SAMPLE [ARGS...]
    local name=$1 sample=$2
    shift 2
    echo "### $name"
    [ -x "$bin/$sample" ] || { echo "skipped: no $bin/$sample"; return; }
    timeout 60 "$ss" run --force -o "$out/$name.sqlite" -- "$bin/$sample" "$@" > "$out/$name.log" 2>&1
    echo "rc=$?"
    "$ss" report --summary "$out/$name.sqlite" > "$out/$name.summary.txt" 2>&1
    "$ss" diagnose --format json "$out/$name.sqlite" > "$out/$name.diagnose.json" 2>&1
    head -n 25 "$out/$name.summary.txt"
  }
  one jacobiCudaGraphs jacobiCudaGraphs
  one jacobiCudaGraphs_nograph jacobiCudaGraphs -gpumethod=2
  one simpleHyperQ simpleHyperQ
  # The same with a hardware queue per stream: what the hardware_queue
  # finding's estimate predicts (about 20 ms instead of 60).
  (export CUDA_DEVICE_MAX_CONNECTIONS=32; one simpleHyperQ_conn32 simpleHyperQ)
  one StreamPriorities StreamPriorities
  one simpleCudaGraphs simpleCudaGraphs
  one streamOrderedAllocation streamOrderedAllocation
  one matrixMul matrixMul
  one simpleStreams simpleStreams
  one simpleMultiCopy simpleMultiCopy
  one asyncAPI asyncAPI
  one bandwidthTest_pageable bandwidthTest --memory=pageable --htod
  one bandwidthTest_pinned bandwidthTest --memory=pinned --htod
  one vectorAdd vectorAdd
  one simpleCallback simpleCallback
  one conjugateGradientCudaGraphs conjugateGradientCudaGraphs
  echo "### compare jacobiCudaGraphs_nograph -- jacobiCudaGraphs"
  "$ss" compare --goal speedup "$out/jacobiCudaGraphs_nograph.sqlite" -- "$out/jacobiCudaGraphs.sqlite" 2>&1 |
    tee "$out/jacobi_compare.txt" | grep -E "Verdict|Verified|fell|rose"
  echo "### compare simpleHyperQ -- simpleHyperQ_conn32"
  "$ss" compare --goal speedup "$out/simpleHyperQ.sqlite" -- "$out/simpleHyperQ_conn32.sqlite" 2>&1 |
    tee "$out/hyperq_compare.txt" | grep -E "Verdict|Verified|fell|rose"
}

case "$mode" in
  build) build "${2:?CUDA_SAMPLES_DIR}" "${3:?BIN_DIR}" ;;
  run) run "${2:?BIN_DIR}" "${3:?OUT_DIR}" "${4:-build}" ;;
  *) echo "usage: $0 build CUDA_SAMPLES_DIR BIN_DIR | run BIN_DIR OUT_DIR [BUILD_DIR]" >&2; exit 2 ;;
esac
