#!/usr/bin/env python3
"""Writes a synthetic torch.profiler trace (Kineto's Chrome trace JSON) with N GPU ops.

    gen_kineto_trace.py OUT.json NUM_GPU_OPS [--steps K] [--seed S]

The layout follows what torch.profiler's export_chrome_trace (Kineto) writes
for a single-process CUDA run, so the same file loads in Holistic Trace
Analysis (HTA) and in `streamscope report`:

- top level, in Kineto's order: schemaVersion, deviceProperties (one H200),
  distributedInfo (HTA finds a file's rank with the regex '"rank":\\s+(\\d+)'
  line by line, so the space after the colon matters), cupti/cuda versions, trace_id,
  displayTimeUnit, baseTimeNanoseconds (ts are microseconds after it, three
  decimals, as Kineto writes them), traceName;
- ph "M" process_name/process_labels/process_sort_index/thread_name metadata
  for the CPU process and for GPU 0 and its streams;
- on the host thread: ProfilerStep#k user_annotations (HTA's iterations; every
  CPU event lies inside one, else HTA drops its GPU ops), "## forward ##" /
  "## backward ##" / "## optimizer ##" record_function annotations inside
  them, cpu_op operators (aten::...) each launching 1-3 GPU ops through
  cuda_runtime calls (cudaLaunchKernel, cudaMemcpyAsync, cudaMemsetAsync with
  args correlation, cbid, External id), one cudaStreamSynchronize per step;
- on the GPU (pid = device 0, tid = stream): kernel / gpu_memcpy / gpu_memset
  events with args device, context, stream, correlation, External id, and
  grid/block/registers/shared memory (kernels) or bytes/bandwidth (copies);
- ac2g flow pairs (ph s at the call, ph f with bp e at the GPU op);
- Kineto's "Trace" span (pid "Spans"), its "Iteration Start" marker and the
  "Record Window End" instant (string pids, as Kineto writes them).
Field names, order and number formats follow Kineto's ChromeTraceLogger
(libkineto/src/output_json.cpp); events are one per line instead of Kineto's
pretty-printed blocks (the same JSON).

Workload model (deterministic for a seed): 4 streams — 7 (compute, also the
small D2H/D2D copies and memsets), 13 (a second compute stream), 20 (H2D
copies), 24 (NCCL collectives, kernels named ncclDevKernel_..., which HTA
classifies as communication). Kernel durations are long-tailed (most 2-20 us,
a few GEMMs and attention kernels of 50-160 us); the host issues a call about
every 8-12 us, so streams alternate between queued work and idle gaps; a call
blocks while its stream has more than 1.5 ms of work queued (a full launch
queue); each step starts with a 1-3 ms data-loading pause and
has a few 50-300 us Python pauses, then ends with a stream sync that drains
every stream.
"""
import argparse
import random
import sys

PID = 48213
TID = 48213
GPU_PID = 0
BASE_NS = 1_764_700_000_000_000_000

COMPUTE_KERNELS = [
    # (name, operator, weight, (min_us, max_us))
    ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
     "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
     "aten::add", 20, (1.5, 8.0)),
    ("void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::"
     "launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)"
     "::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, "
     "at::detail::Array<char*, 2> >(int, float, at::detail::Array<char*, 2>)",
     "aten::relu", 12, (1.5, 6.0)),
    ("sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
     "aten::mm", 4, (8.0, 160.0)),
    ("ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn", "aten::addmm", 4, (5.0, 60.0)),
    ("void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
     "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
     "aten::_softmax", 6, (4.0, 30.0)),
    ("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, "
     "float const*, float const*, float const*, float*, float*, float*)",
     "aten::native_layer_norm", 6, (3.0, 20.0)),
    ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, "
     "float, float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, "
     "float, float>, unsigned int, float, 4>)",
     "aten::mean", 4, (3.0, 25.0)),
    ("void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)"
     "::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, "
     "at::detail::Array<char*, 2>, TrivialOffsetCalculator<1, unsigned int>, char*, "
     "at::native::memory::LoadWithoutCast, at::detail::Array<char*, 2>::StoreWithoutCast>(int, float, "
     "at::detail::Array<char*, 2>)",
     "aten::copy_", 6, (1.5, 10.0)),
    ("triton_poi_fused_add_mul_0", "triton_poi_fused_add_mul_0", 5, (1.5, 6.0)),
    ("void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::half_t> >(Flash_fwd_params)",
     "aten::_scaled_dot_product_flash_attention", 2, (20.0, 150.0)),
]
NCCL_KERNELS = [
    ("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "nccl:all_reduce"),
    ("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "nccl:_all_gather_base"),
    ("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "nccl:_reduce_scatter_base"),
]
STREAM_COMPUTE = 7
STREAM_COMPUTE2 = 13
STREAM_H2D = 20
STREAM_COMM = 24
STREAMS = [STREAM_COMPUTE, STREAM_COMPUTE2, STREAM_H2D, STREAM_COMM]
MAX_AHEAD_US = 1500.0

CBID_LAUNCH = 211       # cudaLaunchKernel_v7000
CBID_MEMCPY_ASYNC = 41  # cudaMemcpyAsync_v3020
CBID_MEMSET_ASYNC = 51  # cudaMemsetAsync_v3020
CBID_STREAM_SYNC = 131  # cudaStreamSynchronize_v3020


def us(t):
    """Microseconds with three decimals, as Kineto writes them."""
    return f"{t:.3f}"


class Writer:
    """Streams events as one JSON object per line inside "traceEvents"."""

    def __init__(self, fh):
        self.fh = fh
        self.first = True
        self.buf = []

    def event(self, text):
        if self.first:
            self.buf.append("  " + text)
            self.first = False
        else:
            self.buf.append(",\n  " + text)
        if len(self.buf) >= 4096:
            self.flush()

    def flush(self):
        self.fh.write("".join(self.buf))
        self.buf = []


def header(fh):
    fh.write(
        '{\n'
        '  "schemaVersion": 1,\n'
        '  "deviceProperties": [\n'
        '    {\n'
        '      "id": 0, "name": "NVIDIA H200", "totalGlobalMem": 150121988096,\n'
        '      "computeMajor": 9, "computeMinor": 0,\n'
        '      "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,\n'
        '      "regsPerBlock": 65536, "warpSize": 32,\n'
        '      "sharedMemPerBlock": 49152, "numSms": 132,\n'
        '      "regsPerMultiprocessor": 65536, "sharedMemPerBlockOptin": 232448\n'
        '    }\n'
        '  ],\n'
        '  "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1, "pg_count": 1, "pg_config": '
        '[{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl", "pg_size": 1, "ranks": [0]}], '
        '"nccl_version": "2.26.2"},\n'
        '  "cupti_version": 26,\n'
        '  "cuda_runtime_version": 12080,\n'
        '  "cuda_driver_version": 13000,\n'
        '  "trace_id": "9E2F6A1C0B3D4E57",\n'
        '  "displayTimeUnit": "ms",\n'
        f'  "baseTimeNanoseconds": {BASE_NS},\n'
        '  "traceEvents": [\n')


def metadata(w):
    w.event(f'{{"name": "process_name", "ph": "M", "ts": 0.000, "pid": {PID}, "tid": 0, "args": {{"name": "python"}}}}')
    w.event(f'{{"name": "process_labels", "ph": "M", "ts": 0.000, "pid": {PID}, "tid": 0, "args": {{"labels": "CPU"}}}}')
    w.event(f'{{"name": "process_sort_index", "ph": "M", "ts": 0.000, "pid": {PID}, "tid": 0, "args": {{"sort_index": 0}}}}')
    w.event(f'{{"name": "thread_name", "ph": "M", "ts": 0.000, "pid": {PID}, "tid": {TID}, '
            f'"args": {{"name": "thread {TID} (python)"}}}}')
    w.event(f'{{"name": "thread_sort_index", "ph": "M", "ts": 0.000, "pid": {PID}, "tid": {TID}, '
            f'"args": {{"sort_index": {TID}}}}}')
    w.event(f'{{"name": "process_name", "ph": "M", "ts": 0.000, "pid": {GPU_PID}, "tid": 0, "args": {{"name": "python"}}}}')
    w.event(f'{{"name": "process_labels", "ph": "M", "ts": 0.000, "pid": {GPU_PID}, "tid": 0, "args": {{"labels": "GPU 0"}}}}')
    w.event(f'{{"name": "process_sort_index", "ph": "M", "ts": 0.000, "pid": {GPU_PID}, "tid": 0, '
            f'"args": {{"sort_index": 16777216}}}}')
    for s in STREAMS:
        w.event(f'{{"name": "thread_name", "ph": "M", "ts": 0.000, "pid": {GPU_PID}, "tid": {s}, '
                f'"args": {{"name": "stream {s} "}}}}')
        w.event(f'{{"name": "thread_sort_index", "ph": "M", "ts": 0.000, "pid": {GPU_PID}, "tid": {s}, '
                f'"args": {{"sort_index": {s}}}}}')


class Generator:
    def __init__(self, w, num_ops, steps, seed):
        self.w = w
        self.num_ops = num_ops
        self.steps = steps
        self.rng = random.Random(seed)
        self.t = 50.0                      # host clock, us after baseTimeNanoseconds
        self.stream_end = {s: 0.0 for s in STREAMS}
        self.correlation = 1
        self.external_id = 1
        self.ev_idx = 0
        self.counts = {"kernel": 0, "nccl": 0, "gpu_memcpy": 0, "gpu_memset": 0,
                       "cpu_op": 0, "cuda_runtime": 0, "user_annotation": 0}
        weights = [k[2] for k in COMPUTE_KERNELS]
        total = float(sum(weights))
        self.kernel_cdf = []
        acc = 0.0
        for k in COMPUTE_KERNELS:
            acc += k[2] / total
            self.kernel_cdf.append(acc)

    def pick_kernel(self):
        r = self.rng.random()
        for i, c in enumerate(self.kernel_cdf):
            if r <= c:
                return COMPUTE_KERNELS[i]
        return COMPUTE_KERNELS[-1]

    def annotation(self, name, ts, dur):
        self.counts["user_annotation"] += 1
        ext = self.external_id
        self.external_id += 1
        self.w.event(f'{{"ph": "X", "cat": "user_annotation", "name": "{name}", "pid": {PID}, "tid": {TID}, '
                     f'"ts": {us(ts)}, "dur": {us(dur)}, "args": {{"External id": {ext}, '
                     f'"Record function id": 0, "Ev Idx": {self.next_ev()}}}}}')

    def next_ev(self):
        self.ev_idx += 1
        return self.ev_idx - 1

    def gpu_op(self, kind):
        """One GPU op of the given kind: (cat, name, stream, dur_us, call, cbid, args_text)."""
        rng = self.rng
        if kind == "kernel":
            name, op, _, (lo, hi) = self.pick_kernel()
            # Long tail: mostly near the low end of the kernel's range.
            dur = lo + (hi - lo) * rng.random() ** 3
            stream = STREAM_COMPUTE2 if rng.random() < 0.15 else STREAM_COMPUTE
            grid = rng.choice((66, 132, 264, 528, 1056, 4096))
            block = rng.choice((128, 256, 512))
            regs = rng.choice((32, 40, 64, 128, 168))
            smem = rng.choice((0, 0, 16384, 49152, 98304))
            args = (f'"queued": 0, "device": 0, "context": 1, "stream": {stream}, "correlation": {{corr}}, '
                    f'"registers per thread": {regs}, "shared memory": {smem}, "blocks per SM": {grid / 132:.6f}, '
                    f'"warps per SM": {grid * block / 32 / 132:.6f}, "grid": [{grid}, 1, 1], '
                    f'"block": [{block}, 1, 1], "est. achieved occupancy %": {rng.randint(6, 100)}')
            return "kernel", name, op, stream, dur, "cudaLaunchKernel", CBID_LAUNCH, args
        if kind == "nccl":
            name, op = NCCL_KERNELS[rng.randrange(len(NCCL_KERNELS))]
            dur = 30.0 + 400.0 * rng.random() ** 2
            args = (f'"queued": 0, "device": 0, "context": 1, "stream": {STREAM_COMM}, "correlation": {{corr}}, '
                    f'"registers per thread": 96, "shared memory": 0, "blocks per SM": 0.181818, '
                    f'"warps per SM": 11.636364, "grid": [24, 1, 1], "block": [512, 1, 1], '
                    f'"est. achieved occupancy %": 0')
            return "kernel", name, op, STREAM_COMM, dur, "cudaLaunchKernel", CBID_LAUNCH, args
        if kind == "h2d":
            size = rng.choice((4096, 65536, 1 << 20, 4 << 20, 16 << 20))
            dur = 1.2 + size / 50_000.0       # ~50 GB/s pinned
            name = "Memcpy HtoD (Pinned -> Device)"
            args = (f'"device": 0, "context": 1, "stream": {STREAM_H2D}, "correlation": {{corr}}, '
                    f'"bytes": {size}, "memory bandwidth (GB/s)": {size / (dur * 1000.0):.6f}')
            return "gpu_memcpy", name, "aten::copy_", STREAM_H2D, dur, "cudaMemcpyAsync", CBID_MEMCPY_ASYNC, args
        if kind == "d2h":
            size = rng.choice((4, 8, 4096, 65536))
            dur = 1.5 + size / 20_000.0
            name = "Memcpy DtoH (Device -> Pageable)" if rng.random() < 0.3 else "Memcpy DtoH (Device -> Pinned)"
            args = (f'"device": 0, "context": 1, "stream": {STREAM_COMPUTE}, "correlation": {{corr}}, '
                    f'"bytes": {size}, "memory bandwidth (GB/s)": {size / (dur * 1000.0):.6f}')
            return ("gpu_memcpy", name, "aten::_local_scalar_dense", STREAM_COMPUTE, dur, "cudaMemcpyAsync",
                    CBID_MEMCPY_ASYNC, args)
        if kind == "d2d":
            size = rng.choice((65536, 1 << 20, 8 << 20))
            dur = 1.0 + size / 1_500_000.0
            name = "Memcpy DtoD (Device -> Device)"
            args = (f'"device": 0, "context": 1, "stream": {STREAM_COMPUTE}, "correlation": {{corr}}, '
                    f'"bytes": {size}, "memory bandwidth (GB/s)": {size / (dur * 1000.0):.6f}')
            return "gpu_memcpy", name, "aten::copy_", STREAM_COMPUTE, dur, "cudaMemcpyAsync", CBID_MEMCPY_ASYNC, args
        # memset
        size = rng.choice((512, 4096, 1 << 20))
        dur = 1.0 + size / 2_000_000.0
        args = (f'"device": 0, "context": 1, "stream": {STREAM_COMPUTE}, "correlation": {{corr}}, '
                f'"bytes": {size}, "memory bandwidth (GB/s)": {size / (dur * 1000.0):.6f}')
        return "gpu_memset", "Memset (Device)", "aten::zero_", STREAM_COMPUTE, dur, "cudaMemsetAsync", CBID_MEMSET_ASYNC, args

    def pick_kind(self):
        r = self.rng.random()
        if r < 0.74:
            return "kernel"
        if r < 0.80:
            return "nccl"
        if r < 0.88:
            return "h2d"
        if r < 0.92:
            return "d2h"
        if r < 0.96:
            return "d2d"
        return "memset"

    def launch(self, op_tuple, call_ts):
        """The runtime call at call_ts and its GPU op; returns the call's end."""
        cat, name, _, stream, dur, call, cbid, args = op_tuple
        rng = self.rng
        corr = self.correlation
        self.correlation += 1
        ext = self.cur_ext
        call_dur = (3.0 if cat == "kernel" else 5.0) + 3.0 * rng.random()
        # A full launch queue blocks the call until the stream has drained to
        # MAX_AHEAD_US of queued work (the host cannot run ahead without bound).
        ahead = self.stream_end[stream] - call_ts
        if ahead > MAX_AHEAD_US:
            call_dur += ahead - MAX_AHEAD_US
        # The op starts once the call has reached the GPU and its stream is free.
        start = max(call_ts + 2.0 + 4.0 * rng.random(), self.stream_end[stream] + 0.5 + rng.random())
        self.stream_end[stream] = start + dur
        w = self.w
        self.counts["cuda_runtime"] += 1
        w.event(f'{{"ph": "X", "cat": "cuda_runtime", "name": "{call}", "pid": {PID}, "tid": {TID}, '
                f'"ts": {us(call_ts)}, "dur": {us(call_dur)}, '
                f'"args": {{"External id": {ext}, "cbid": {cbid}, "correlation": {corr}}}}}')
        w.event(f'{{"ph": "s", "id": {corr}, "pid": {PID}, "tid": {TID}, "ts": {us(call_ts)}, '
                f'"cat": "ac2g", "name": "ac2g"}}')
        self.gpu_lines.append(
            f'{{"ph": "X", "cat": "{cat}", "name": "{name}", "pid": {GPU_PID}, "tid": {stream}, '
            f'"ts": {us(start)}, "dur": {us(dur)}, "args": {{"External id": {ext}, '
            + args.replace("{corr}", str(corr)) + '}}')
        self.gpu_lines.append(
            f'{{"ph": "f", "id": {corr}, "pid": {GPU_PID}, "tid": {stream}, "ts": {us(start)}, '
            f'"cat": "ac2g", "name": "ac2g", "bp": "e"}}')
        key = "nccl" if name.startswith("nccl") else cat
        self.counts[key] += 1
        return call_ts + call_dur

    def stream_sync(self):
        rng = self.rng
        corr = self.correlation
        self.correlation += 1
        ts = self.t
        end = max(max(self.stream_end.values()), ts + 2.0) + 1.0 + rng.random()
        self.counts["cuda_runtime"] += 1
        self.w.event(f'{{"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": {PID}, '
                     f'"tid": {TID}, "ts": {us(ts)}, "dur": {us(end - ts)}, '
                     f'"args": {{"External id": {self.cur_ext}, "cbid": {CBID_STREAM_SYNC}, "correlation": {corr}}}}}')
        self.t = end + 1.0

    def operator(self, name, ops):
        """A cpu_op that launches the GPU ops in `ops`, starting at the host clock."""
        rng = self.rng
        ts = self.t
        self.cur_ext = self.external_id
        self.external_id += 1
        t = ts + 1.0 + 2.0 * rng.random()    # dispatcher work before the first call
        for op in ops:
            t = self.launch(op, t) + 0.3 + 1.5 * rng.random()
        end = t + 0.5 * rng.random()
        self.counts["cpu_op"] += 1
        self.w.event(f'{{"ph": "X", "cat": "cpu_op", "name": "{name}", "pid": {PID}, "tid": {TID}, '
                     f'"ts": {us(ts)}, "dur": {us(end - ts)}, "args": {{"External id": {self.cur_ext}, '
                     f'"Record function id": 0, "Ev Idx": {self.next_ev()}}}}}')
        # Python and autograd between operators: usually a few us, sometimes more.
        self.t = end + 2.0 + 8.0 * rng.random() ** 2

    def step(self, k, num_ops):
        rng = self.rng
        step_start = self.t
        self.gpu_lines = []
        self.t += 1000.0 + 2000.0 * rng.random()     # data loading before the first launch
        phases = [("## forward ##", int(num_ops * 0.4)), ("## backward ##", int(num_ops * 0.5))]
        phases.append(("## optimizer ##", num_ops - phases[0][1] - phases[1][1]))
        for phase, phase_ops in phases:
            phase_start = self.t
            left = phase_ops
            while left > 0:
                if rng.random() < 0.004:
                    self.t += 50.0 + 250.0 * rng.random()   # Python between operators
                first = self.gpu_op(self.pick_kind())
                n = min(left, 1 if first[0] != "kernel" or first[1].startswith("nccl") else rng.choice((1, 1, 1, 2, 3)))
                ops = [first] + [self.gpu_op("kernel") for _ in range(n - 1)]
                self.operator(first[2], ops)
                left -= n
            self.annotation(phase, phase_start, self.t - phase_start)
            self.t += 2.0
        self.cur_ext = self.external_id
        self.external_id += 1
        self.stream_sync()
        self.annotation(f"ProfilerStep#{k}", step_start, self.t - step_start)
        self.t += 5.0
        for line in self.gpu_lines:
            self.w.event(line)
        self.gpu_lines = []

    def run(self):
        per_step = self.num_ops // self.steps
        for k in range(self.steps):
            n = per_step if k < self.steps - 1 else self.num_ops - per_step * (self.steps - 1)
            self.step(k + 1, n)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("output")
    p.add_argument("num_ops", type=int)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    if a.num_ops < a.steps or a.steps < 1:
        sys.exit("need at least one GPU op per step")
    with open(a.output, "w") as fh:
        header(fh)
        w = Writer(fh)
        metadata(w)
        g = Generator(w, a.num_ops, a.steps, a.seed)
        g.run()
        # Kineto's profiling span and iteration marker (string pids), then the window end.
        w.event(f'{{"ph": "X", "cat": "Trace", "ts": 0.000, "dur": {us(g.t + 5.0)}, "pid": "Spans", '
                f'"tid": "PyTorch Profiler", "name": "PyTorch Profiler (0)", "args": {{"Op count": 0}}}}')
        w.event('{"name": "process_sort_index", "ph": "M", "ts": 0.000, "pid": "Spans", "tid": 0, '
                '"args": {"sort_index": 536870912}}')
        w.event('{"name": "Iteration Start: PyTorch Profiler", "ph": "i", "s": "g", "pid": "Traces", '
                '"tid": "Trace PyTorch Profiler", "ts": 0.000}')
        w.event(f'{{"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", "ts": {us(g.t + 10.0)}}}')
        w.flush()
        fh.write('\n  ],\n  "traceName": "' + a.output + '"\n}\n')
    c = g.counts
    gpu = c["kernel"] + c["nccl"] + c["gpu_memcpy"] + c["gpu_memset"]
    print(f"{a.output}: {gpu} GPU ops ({c['kernel']} kernels, {c['nccl']} nccl kernels, "
          f"{c['gpu_memcpy']} copies, {c['gpu_memset']} memsets), {c['cuda_runtime']} runtime calls, "
          f"{c['cpu_op']} cpu_ops, {c['user_annotation']} annotations, {a.steps} steps, "
          f"{(g.t - 50.0) / 1e6:.3f} s of trace", file=sys.stderr)


if __name__ == "__main__":
    main()
