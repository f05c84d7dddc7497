#!/usr/bin/env bash
# The HTML page of a jacobi-like trace (make_jacobi_like_spec.py: 8,869 ops
# and 5,913 API calls, one CUDA graph launch, a tiny D2H copy and a sync per
# iteration) stays at most 3 MB, analyses included.
#
#   html_page_size_test.sh STREAMSCOPE WORK_DIR
set -euo pipefail
streamscope=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
max_bytes=3000000
rm -rf "$work"
mkdir -p "$work"
python3 "$here/make_jacobi_like_spec.py" "$work/jacobi_like.json"
"$streamscope" synth "$work/jacobi_like.json" -o "$work/jacobi_like.sqlite"
"$streamscope" export "$work/jacobi_like.sqlite" --html "$work/jacobi_like.html"
bytes=$(stat -c %s "$work/jacobi_like.html")
if [ "$bytes" -gt "$max_bytes" ]; then
  echo "FAIL: the page of the jacobi-like trace is $bytes bytes, more than $max_bytes"
  exit 1
fi
echo "html_page_size_test: the page of the jacobi-like trace is $bytes bytes (at most $max_bytes)"
