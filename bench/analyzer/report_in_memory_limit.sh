#!/usr/bin/env bash
# Runs `streamscope report` inside a memory cgroup of LIMIT_MIB, as on a
# machine or in a container with that much memory, and prints the wall,
# user and system time, the cgroup's peak (the limit, when the page cache
# of the trace and of spill files filled it), the process's peak RSS and
# whether the kernel killed anything for memory. Needs root and a writable
# cgroup v2 (memory.max) or v1 memory hierarchy.
#
#   bench/analyzer/report_in_memory_limit.sh LIMIT_MIB BUILD_DIR TRACE [report options...] >report.txt
#
# The report goes to stdout, the figures to stderr.
set -euo pipefail
LIMIT_MIB=${1:?limit in MiB}
BUILD_DIR=${2:?build folder}
TRACE=${3:?trace}
shift 3
name=streamscope-bench-$$
if [ -w /sys/fs/cgroup/cgroup.subtree_control ] && grep -qw memory /sys/fs/cgroup/cgroup.subtree_control; then
  cg=/sys/fs/cgroup/$name
  mkdir "$cg"
  echo $((LIMIT_MIB << 20)) >"$cg/memory.max"
  echo 0 >"$cg/memory.swap.max" 2>/dev/null || true
  peak_file=$cg/memory.peak
  oom() { awk '/^oom_kill /{print $2}' "$cg/memory.events"; }
elif [ -w /sys/fs/cgroup/memory ]; then
  cg=/sys/fs/cgroup/memory/$name
  mkdir "$cg"
  echo $((LIMIT_MIB << 20)) >"$cg/memory.limit_in_bytes"
  echo $((LIMIT_MIB << 20)) >"$cg/memory.memsw.limit_in_bytes" 2>/dev/null || true
  peak_file=$cg/memory.max_usage_in_bytes
  oom() { awk '/^oom_kill /{print $2}' "$cg/memory.oom_control"; }
else
  echo "report_in_memory_limit.sh: no writable memory cgroup (run as root on cgroup v2 or v1)" >&2
  exit 2
fi
trap 'rmdir "$cg" 2>/dev/null || true' EXIT
log=$(mktemp)
rc=0
# The shell moves itself into the cgroup, then becomes the report.
sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' _ "$cg" \
  /usr/bin/time -f "%e %U %S %M" -o "$log" "$BUILD_DIR/bin/streamscope" report "$TRACE" "$@" || rc=$?
# The figures are the last line ("Command terminated by signal 9" may come first).
read -r wall user sys rss_kb < <(tail -n 1 "$log") || true
rm -f "$log"
echo "limit ${LIMIT_MIB} MiB: exit ${rc}, ${wall:-?} s wall, ${user:-?} s user, ${sys:-?} s sys," \
  "cgroup peak $(($(cat "$peak_file") >> 20)) MiB, process peak RSS $((${rss_kb:-0} >> 10)) MiB," \
  "OOM kills $(oom)" >&2
exit "$rc"
