#!/usr/bin/env bash
# Runs a GPU test command only where a CUDA GPU is usable; elsewhere prints a
# visible SKIPPED line and exits 77, which CTest reports as "Skipped".
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  echo "SKIPPED: no CUDA GPU on this machine (nvidia-smi lists none); test '$*' not run"
  exit 77
fi
exec "$@"
