# Sourced by tests/workloads/run_workload_test.sh and tools/record_fixtures.sh:
# the small sizes every variant runs at in GPU tests and committed fixtures
# (each run well under a second on an H200, each trace well under 1 MB).
# Variants not listed run with their "--size small" defaults.
fixture_args() {
  case "$1" in
    cpu_starved)
      # 12 chunks: 12 instances of the NVTX range host_prepare, more than a
      # text report shows one by one (tests/analyzer: many-instance summary
      # on real CUPTI output).
      echo "--size small --chunks 12 --chunk-mib 4" ;;
    sequential|overlapped|pageable|legacy_default|implicit_sync|event_pipeline|racy|misleading_timing)
      # 8 chunks on 4 streams: chunks 4-7 wait for their stream, so their
      # H2D copies overlap earlier D2H copies even when the GPU runs the
      # first H2D copies side by side on several copy engines.
      echo "--size small --chunks 8 --chunk-mib 4" ;;
    launch_individual|launch_graph)
      echo "--size small --kernels 500" ;;
    persistent_kernel)
      echo "--size small --items 64" ;;
    *)
      echo "--size small" ;;
  esac
}

# Exit codes a variant's run may have: racy may fail validation (3) by design.
fixture_ok_exit() {
  local variant=$1 rc=$2
  [ "$rc" -eq 0 ] || { [ "$variant" = racy ] && [ "$rc" -eq 3 ]; }
}

FIXTURE_VARIANTS="sequential overlapped pageable legacy_default implicit_sync cpu_starved \
launch_individual launch_graph event_pipeline concurrent_kernels persistent_kernel racy \
misleading_timing peer_overlap library_gemm long_startup tiny_sync slow_first_launch"
