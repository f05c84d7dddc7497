#!/usr/bin/env bash
# CI step after tools/test.sh: the CPU test suite under
# AddressSanitizer + UndefinedBehaviorSanitizer (fuzz corpus replay
# included: label `fuzz`), then the collector's CPU tests, threaded writer
# included, under ThreadSanitizer (with ANALYZER_TSAN=1 also the analyzer's
# threaded report). Each in its own build folder, built with clang 14,
# building only the targets those tests run. Any sanitizer report fails the
# step.
#
#   bash tools/ci_sanitizers.sh      # ASAN_BUILD_DIR / TSAN_BUILD_DIR override the folders
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
ASAN_DIR=${ASAN_BUILD_DIR:-build-asan}
TSAN_DIR=${TSAN_BUILD_DIR:-build-tsan}
JOBS=$(nproc)
# Tests that need a GPU or a browser, the package build (it needs every
# installed target, this step builds only what its tests run) and the checks
# of the source tree (label `source`: they run no built code) are not part of
# this step.
EXCLUDE_LABELS='gpu|browser|packaging|source'
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1

# clang builds both: the tests' -O0 objects with ASan compile in about half
# the time GCC takes (a batch of analyzer tests: 13 s against 24 s; the ASan
# step 693 s against 933 s), and a second compiler finds what GCC lets
# through (tools/test.sh builds with GCC).
tools/install_deps.sh clang-14 libclang-rt-14-dev

configure() {  # dir sanitizers
  # -O1 with line tables only: the usual sanitizer trade-off, and it builds
  # much faster than -O2 -g on a 2-core machine.
  cmake -S . -B "$1" -G Ninja -DSTREAMSCOPE_SANITIZE="$2" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    -DCMAKE_CUDA_ARCHITECTURES=90 >"$1.configure.log" 2>&1 || { cat "$1.configure.log"; exit 1; }
}

# GoogleTest binaries the selected tests need (CTest names them X_NOT_BUILT
# until they exist), plus the binaries plain add_test() commands run.
needed_targets() {  # dir ctest-args...
  local dir=$1; shift
  (cd "$dir" && ctest -N "$@" 2>/dev/null | grep -o '[A-Za-z0-9_]*_NOT_BUILT' | sed 's/_NOT_BUILT$//' | sort -u) || true
}

step_start=$SECONDS
echo "== ASan+UBSan: CPU test suite ($ASAN_DIR)"
configure "$ASAN_DIR" address,undefined
targets=$(needed_targets "$ASAN_DIR" -LE "$EXCLUDE_LABELS")
# Only a fresh folder names what to build (CI's is): one whose test binaries
# exist already would run them stale.
if [ -z "$targets" ]; then
  echo "ci_sanitizers: $ASAN_DIR holds test binaries from an earlier run; remove it (and $TSAN_DIR) to run this step" >&2
  exit 1
fi
extra="streamscope trace_loader_replay cli_args_replay"
if cmake --build "$ASAN_DIR" --target help | grep -q '^streamscope_collector:'; then
  extra="$extra streamscope_collector"
fi
# shellcheck disable=SC2086
cmake --build "$ASAN_DIR" -j"$JOBS" --target $targets $extra
if [ -n "$(needed_targets "$ASAN_DIR" -LE "$EXCLUDE_LABELS")" ]; then
  echo "ci_sanitizers: test binaries still missing in $ASAN_DIR" >&2; exit 1
fi
# LD_PRELOAD of the ASan-built collector into uninstrumented programs cannot
# work (ASan must be the first library loaded): those tests run in the plain
# suite only.
(cd "$ASAN_DIR" && ctest --output-on-failure -j"$JOBS" --timeout 900 -LE "$EXCLUDE_LABELS" \
  -E '^collector_(preload_into_non_cuda_process_is_silent|run_)')
echo "== ASan+UBSan step: $((SECONDS - step_start)) s"

step_start=$SECONDS
echo "== TSan: collector CPU tests ($TSAN_DIR)"
configure "$TSAN_DIR" thread
targets=$(needed_targets "$TSAN_DIR" -LE "$EXCLUDE_LABELS" | grep '^collector_' || true)
if [ -z "$targets" ]; then
  echo "ci_sanitizers: no collector tests configured (no CUDA toolkit?): TSan step skipped"
else
  # shellcheck disable=SC2086
  cmake --build "$TSAN_DIR" -j"$JOBS" --target $targets
  for t in $targets; do
    echo "-- $t"
    # High ASLR entropy breaks TSan's memory layout on some kernels; run
    # without randomization where setarch allows it.
    if setarch "$(uname -m)" -R true 2>/dev/null; then
      setarch "$(uname -m)" -R "$TSAN_DIR/bin/$t" --gtest_brief=1
    else
      "$TSAN_DIR/bin/$t" --gtest_brief=1
    fi
  done
fi
# The analyzer's threads: report runs its analyses on three threads that
# share the per-trace facts cache (TraceModel::Derived), loading finalizes
# ops and API calls on two, and a large torch.profiler trace is parsed in
# pieces on up to eight (torch_pieces_test forces them on small files). Building the analyzer under TSan adds
# about 8 minutes on 2 cores, which would take CI past 30 minutes: run it
# with ANALYZER_TSAN=1 before changing the analyzer's threads.
if [ "${ANALYZER_TSAN:-0}" = 1 ]; then
echo "-- analyzer_test (threaded report, facts cache)"
cmake --build "$TSAN_DIR" -j"$JOBS" --target analyzer_test
tsan_filter='Report.*:TraceFacts.*:DiagnoseSupport.*:WorkloadTraces*:StreamscopeTraceImporter*'
cmake --build "$TSAN_DIR" -j"$JOBS" --target torch_trace_test
# The protobuf export writes its parts on threads while the analyses run on
# another (perfetto_proto_writer.cc): every PerfettoProto test does.
proto_test=""
if cmake --build "$TSAN_DIR" -j"$JOBS" --target perfetto_proto_test 2>/dev/null; then
  proto_test="$TSAN_DIR/bin/perfetto_proto_test"
fi
run_tsan() {
  if setarch "$(uname -m)" -R true 2>/dev/null; then setarch "$(uname -m)" -R "$@"; else "$@"; fi
}
run_tsan "$TSAN_DIR/bin/analyzer_test" --gtest_brief=1 --gtest_filter="$tsan_filter"
run_tsan "$TSAN_DIR/bin/torch_trace_test" --gtest_brief=1 --gtest_filter='TorchPieces.*'
if [ -n "$proto_test" ]; then
  run_tsan "$proto_test" --gtest_brief=1
else
  echo "-- perfetto_proto_test not built (no protobuf): the protobuf writer's threads are not checked" >&2
fi
fi
echo "== TSan step: $((SECONDS - step_start)) s"
