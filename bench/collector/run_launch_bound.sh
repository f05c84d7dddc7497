#!/usr/bin/env bash
# Launch-bound overhead, side by side in one run: untraced, under a no-op
# CUPTI consumer with the same record kinds, and under streamscope.
# Usage: bench/collector/run_launch_bound.sh BUILD_DIR [REPS=3] [KERNELS=200000] [COPIES=50000]
# Prints one line per run: "<config> rep=<r> seconds=<timed loop> wall=<whole process>".
# CONFIGS (space list) selects configurations (default: all below);
# ARGS=1 launches kernels with two pointer arguments (the memory-tracking
# worst case) instead of empty argument lists.
set -uo pipefail
BUILD=${1:?build dir}; REPS=${2:-3}; K=${3:-200000}; C=${4:-50000}
BIN=$BUILD/bin/collector_launch_bound
LIB=$BUILD/lib/libstreamscope_collector.so
NOOP=$BUILD/lib/libstreamscope_noop_consumer.so
TMP=$(mktemp -d /tmp/streamscope-bench-XXXXXX)
one() {  # one CONFIG ENV...
  local cfg=$1; shift
  local t0=$(date +%s.%N)
  local line
  case " ${CONFIGS:-$ALL} " in *" $cfg "*) ;; *) return ;; esac
  line=$(env -u CUDA_INJECTION64_PATH -u NVTX_INJECTION64_PATH "$@" "$BIN" "$K" "$C" ${ARGS:+args} 2>"$TMP/err")
  local t1=$(date +%s.%N)
  local secs=$(echo "$line" | sed -n 's/.*seconds=\([0-9.]*\).*/\1/p')
  echo "$cfg rep=$rep seconds=$secs wall=$(awk "BEGIN{printf \"%.3f\", $t1 - $t0}") $(head -c 300 "$TMP/err" | tr '\n' ' ')"
}
ALL="untraced noop_default streamscope_no_submit streamscope_default noop_kernel streamscope_kernel noop_runtime_driver
streamscope_runtime_driver noop_no_api streamscope_no_api noop_default_memory streamscope_no_memory
noop_kernel_runtime noop_kernel_launch_cb"
ALL=$(echo $ALL)
NOOP_DEFAULT=kernel,memcpy,memset,sync,runtime,nvtx,stream,context,overhead
for rep in $(seq "$REPS"); do
  one untraced
  one noop_default CUDA_INJECTION64_PATH=$NOOP
  # Default kinds before record kind `submit` (driver calls that submit work).
  one streamscope_no_submit CUDA_INJECTION64_PATH=$LIB STREAMSCOPE_OUTPUT=$TMP/ns$rep.sqlite STREAMSCOPE_KINDS=-submit
  one streamscope_default CUDA_INJECTION64_PATH=$LIB STREAMSCOPE_OUTPUT=$TMP/d$rep.sqlite
  one noop_kernel CUDA_INJECTION64_PATH=$NOOP NOOP_KINDS=kernel
  one streamscope_kernel CUDA_INJECTION64_PATH=$LIB STREAMSCOPE_OUTPUT=$TMP/k$rep.sqlite STREAMSCOPE_KINDS=kernel
  one noop_runtime_driver CUDA_INJECTION64_PATH=$NOOP NOOP_KINDS=kernel,memcpy,memset,sync,runtime,driver,nvtx,stream,context,overhead
  one streamscope_runtime_driver CUDA_INJECTION64_PATH=$LIB STREAMSCOPE_OUTPUT=$TMP/rd$rep.sqlite STREAMSCOPE_KINDS=+driver
  one noop_no_api CUDA_INJECTION64_PATH=$NOOP NOOP_KINDS=kernel,memcpy,memset,sync,nvtx,stream,context,overhead
  one streamscope_no_api CUDA_INJECTION64_PATH=$LIB STREAMSCOPE_OUTPUT=$TMP/na$rep.sqlite STREAMSCOPE_KINDS=-runtime
  # Record kind `memory` (callback API): CUPTI's own cost of the same
  # callbacks (empty callback), and streamscope without it.
  one noop_default_memory CUDA_INJECTION64_PATH=$NOOP NOOP_KINDS=$NOOP_DEFAULT,memory
  one streamscope_no_memory CUDA_INJECTION64_PATH=$LIB STREAMSCOPE_OUTPUT=$TMP/nm$rep.sqlite STREAMSCOPE_KINDS=-memory
  # A launch's submitting call from runtime-API records, or from callbacks
  # on the launch and async-copy calls only (noop_consumer.cc: launch_cb).
  one noop_kernel_runtime CUDA_INJECTION64_PATH=$NOOP NOOP_KINDS=kernel,runtime
  one noop_kernel_launch_cb CUDA_INJECTION64_PATH=$NOOP NOOP_KINDS=kernel,launch_cb
done
for f in "$TMP"/d1.sqlite "$TMP"/nm1.sqlite "$TMP"/rd1.sqlite; do
  [ -f "$f" ] && python3 "$(dirname "$0")/trace_counts.py" "$f"
done
rm -rf "$TMP"
