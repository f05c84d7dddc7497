"""streamscope_record_start/stop from inside a running PyTorch process (no
CUDA_INJECTION64_PATH): CUDA is initialized and used first, then one section
of three matmuls is recorded into TRACE, then more work runs unrecorded, then
a second section (one matmul) is recorded into TRACE2.
Usage: python3 record_section.py LIBSTREAMSCOPE_COLLECTOR.so TRACE TRACE2
Prints "record_section: ok" when every call returned 0."""
import ctypes
import sys

import torch

lib = ctypes.CDLL(sys.argv[1])
lib.streamscope_record_start.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
lib.streamscope_record_start.restype = ctypes.c_int
lib.streamscope_record_stop.argtypes = []
lib.streamscope_record_stop.restype = ctypes.c_int

x = torch.ones(4096, device="cuda")
for _ in range(5):
    x.add_(1)                       # before: elementwise kernels, not recorded
a = torch.randn(1024, 1024, device="cuda")
b = torch.randn(1024, 1024, device="cuda")
c = a @ b                           # cuBLAS initialized before recording
torch.cuda.synchronize()

rc_start = lib.streamscope_record_start(sys.argv[2].encode(), None)
c = a @ b
c = c @ b
c = c @ b
torch.cuda.synchronize()
rc_stop = lib.streamscope_record_stop()

for _ in range(7):
    x.add_(1)                       # after: not recorded
torch.cuda.synchronize()
rc_again = lib.streamscope_record_stop()  # not recording: must fail, process goes on

rc_start2 = lib.streamscope_record_start(sys.argv[3].encode(), b"kinds=+memory")
c = a @ b
torch.cuda.synchronize()
rc_stop2 = lib.streamscope_record_stop()
print("record_section:", "ok" if (rc_start, rc_stop, rc_start2, rc_stop2) == (0, 0, 0, 0) and rc_again != 0
      else "FAILED", "rc", rc_start, rc_stop, rc_again, rc_start2, rc_stop2, float(c[0, 0]) == float(c[0, 0]))
