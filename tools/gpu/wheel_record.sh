#!/usr/bin/env bash
# GPU check of the wheel: streamscope.record() and the analysis run from the
# package installed from the wheel alone, in a new venv, with no
# STREAMSCOPE_BIN / STREAMSCOPE_COLLECTOR / PYTHONPATH and no CUDA library
# path set, so the collector and the CLI are the wheel's own. The wheel comes
# from .whl/ (made on the build machine: tools/build_wheel.sh --from build
# -o .whl); the GPU machine cannot reach PyPI, so the venv also sees the
# machine's own Python packages (PyTorch; pandas where installed).
# Writes $OUT/wheel_record/{check.log,*.sqlite}. Must end with
# "python_record: PASS" and exit 0 (tools/gpu/python_record_check.py says
# what it checks); the lines before it say which CLI and collector ran.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
W=$OUT/wheel_record
mkdir -p "$W"
WHEEL=$(ls "$ROOT"/.whl/streamscope-*.whl 2>/dev/null | head -1)
if [ -z "$WHEEL" ]; then
  echo "wheel_record: no wheel in .whl/ (tools/build_wheel.sh --from build -o .whl)" | tee "$W/check.log"
  exit 2
fi
python3 -m venv --system-site-packages "$W/venv"
"$W/venv/bin/python" -m pip install -q --no-deps --no-index "$WHEEL" || exit 1
# The machine's PyTorch may come through PYTHONPATH or the user site, which the
# clean environment below drops: name its folder in a .pth file, so the venv
# sees torch while streamscope can only come from the wheel.
torch_dir=$(python3 -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))' 2>/dev/null)
site=$("$W/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
if [ -n "$torch_dir" ] && [ ! -e "$torch_dir/streamscope" ]; then echo "$torch_dir" >"$site/machine_torch.pth"; fi
clean=(env -u STREAMSCOPE_BIN -u STREAMSCOPE_COLLECTOR -u PYTHONPATH -u LD_LIBRARY_PATH -u STREAMSCOPE_CUPTI_LIB)
cd "$W" || exit 1
{
  echo "wheel: $(basename "$WHEEL")"
  echo "streamscope on PATH: $(command -v streamscope || echo none)"
  "${clean[@]}" "$W/venv/bin/python" -c \
    "import streamscope; print('cli:', streamscope.find_cli()); print('collector:', streamscope.find_collector())"
  echo "console script: $("${clean[@]}" "$W/venv/bin/streamscope" --version)"
  timeout 300 "${clean[@]}" "$W/venv/bin/python" "$ROOT/tools/gpu/python_record_check.py" "$W"
} 2>&1 | tee "$W/check.log"
exit "${PIPESTATUS[0]}"
