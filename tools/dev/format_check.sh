#!/usr/bin/env bash
# Fails when a tracked C++/CUDA source differs from what clang-format makes of
# it with the repository's .clang-format, and names the files. Version 14 is
# Debian 12's; another version may format a few constructs differently, so
# the check uses clang-format-14 where it is installed.
#   tools/dev/format_check.sh [REPO]   (fix: the same files with clang-format -i)
set -euo pipefail
cd "${1:-$(dirname "$0")/../..}"
cf=$(command -v clang-format-14 || command -v clang-format || true)
if [ -z "$cf" ]; then
  echo "streamscope: clang-format is not installed (tools/install_deps.sh installs it)" >&2
  exit 1
fi
mapfile -t files < <(git ls-files '*.cc' '*.h' '*.cu' '*.cuh' '*.cpp')
bad=()
for f in "${files[@]}"; do
  "$cf" --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "not formatted (${#bad[@]} of ${#files[@]}): ${bad[*]}" >&2
  echo "fix: $cf -i ${bad[*]}" >&2
  exit 1
fi
echo "all ${#files[@]} sources formatted ($cf)"
