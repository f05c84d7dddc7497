#!/usr/bin/env python3
"""Writes a large synthetic Nsight Systems SQLite export (export schema 3.x
layout, as `nsys export --type sqlite` 2025.x writes it) for the nsys import
benchmark.

N GPU ops on 4 non-blocking streams of one device plus the null stream
(about 70% kernels, 12% H2D, 12% D2H, 6% memsets), one runtime API call per
op with the same correlation id, an explicit stream synchronization every
64 ops, an NVTX push/pop "step" range per 256 ops and one outer "measured"
range. The host submits faster than the GPU drains, so streams overlap.
Deterministic for a given seed.

    gen_nsys_export.py OUT.sqlite NUM_OPS [--seed 1]
"""
import argparse
import os
import random
import sqlite3
import sys

PID = 31337
TID = 31337
HW = 1 << 56 | 1 << 48  # hardware/VM id bits above the pid, as real exports have


def gid(pid, tid=0):
    return HW | pid << 24 | tid


DDL = """
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT NOT NULL);
CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, busLocation TEXT,
  isDiscrete INTEGER, l2CacheSize INTEGER, totalMemory INTEGER, memoryBandwidth INTEGER, clockRate INTEGER,
  smCount INTEGER, pwGpuId INTEGER, uuid TEXT, luid INTEGER, chipName TEXT, cuDevice INTEGER,
  asyncEngines INTEGER, computeMajor INTEGER, computeMinor INTEGER);
CREATE TABLE TARGET_INFO_CUDA_DEVICE (gpuId INTEGER, cudaId INTEGER, pid INTEGER);
CREATE TABLE TARGET_INFO_CUDA_CONTEXT_INFO (nullStreamId INTEGER NOT NULL, hwId INTEGER NOT NULL,
  vmId INTEGER NOT NULL, processId INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL,
  parentContextId INTEGER, isGreenContext INTEGER);
CREATE TABLE TARGET_INFO_CUDA_STREAM (streamId INTEGER NOT NULL, hwId INTEGER NOT NULL, vmId INTEGER NOT NULL,
  processId INTEGER NOT NULL, contextId INTEGER NOT NULL, priority INTEGER NOT NULL, flag INTEGER NOT NULL);
CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL, label TEXT);
CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL, label TEXT);
CREATE TABLE ENUM_CUPTI_SYNC_TYPE (id INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL, label TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL,
  mangledName INTEGER, launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL,
  gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL,
  blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL,
  dynamicSharedMemory INTEGER NOT NULL, localMemoryPerThread INTEGER NOT NULL,
  localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER,
  graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER, graphId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL,
  deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER, srcContextId INTEGER,
  dstDeviceId INTEGER, dstContextId INTEGER, migrationCause INTEGER, graphNodeId INTEGER,
  virtualAddress INTEGER, copyCount INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, value INTEGER NOT NULL, bytes INTEGER NOT NULL,
  graphNodeId INTEGER, memKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, syncType INTEGER NOT NULL, eventId INTEGER NOT NULL,
  eventSyncId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL,
  returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
  category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER,
  textId INTEGER REFERENCES StringIds(id), domainId INTEGER);
"""

KERNELS = ["_Z6stencilPfPKfi", "_Z4gemmPKfS0_Pfiii", "_Z9reduce_v2PKfPfi", "_Z7softmaxPfi",
           "_Z9transposePfPKfii", "_Z10layer_normPfPKfS1_i", "_Z4reluPfi", "_Z5scalePffi"]
API = ["cudaLaunchKernel_v7000", "cudaMemcpyAsync_v3020", "cudaMemsetAsync_v3020",
       "cudaStreamSynchronize_v3020"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("num_ops", type=int)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if os.path.exists(args.out):
        sys.exit(f"gen_nsys_export: {args.out} exists")
    rng = random.Random(args.seed)
    db = sqlite3.connect(args.out)
    db.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;" + DDL)
    strings = {}

    def sid(text):
        if text not in strings:
            strings[text] = len(strings) + 1
        return strings[text]

    db.executemany("INSERT INTO META_DATA_EXPORT VALUES (?, ?)", [
        ("EXPORT_PRODUCT_NAME", "NVIDIA Nsight Systems"), ("EXPORT_PRODUCT_VERSION", "2025.5.2.266"),
        ("EXPORT_SCHEMA_VERSION", "3.24.0"), ("EXPORT_SCHEMA_VERSION_MAJOR", "3"),
        ("EXPORT_SCHEMA_VERSION_MINOR", "24"), ("EXPORT_SCHEMA_VERSION_MICRO", "0"),
        ("EXPORT_HOST", "bench-host")])
    db.execute("INSERT INTO PROCESSES VALUES (?, ?, ?)", (gid(PID), PID, "./synthetic_pipeline"))
    db.execute("INSERT INTO ThreadNames VALUES (?, 10, ?)", (sid("main"), gid(PID, TID)))
    db.execute("INSERT INTO TARGET_INFO_GPU VALUES (1, 0, 'NVIDIA H200', '0000:01:00.0', 1, 0, "
               "150754820096, 4800000000000, 1980000000, 132, 0, "
               "'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee', 0, 'GH100', 0, 7, 9, 0)")
    db.execute("INSERT INTO TARGET_INFO_CUDA_DEVICE VALUES (0, 0, ?)", (PID,))
    db.execute("INSERT INTO TARGET_INFO_CUDA_CONTEXT_INFO VALUES (7, 0, 1, ?, 0, 1, 0, 0)", (PID,))
    db.executemany("INSERT INTO TARGET_INFO_CUDA_STREAM VALUES (?, 0, 1, ?, 1, 0, ?)",
                   [(7, PID, 3)] + [(13 + i, PID, 2) for i in range(4)])
    db.executemany("INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (?, ?, '')", [
        (0, "CUDA_MEMCPY_KIND_UNKNOWN"), (1, "CUDA_MEMCPY_KIND_HTOD"), (2, "CUDA_MEMCPY_KIND_DTOH"),
        (8, "CUDA_MEMCPY_KIND_DTOD"), (10, "CUDA_MEMCPY_KIND_PTOP"),
        (11, "CUDA_MEMCPY_KIND_UVM_HTOD"), (12, "CUDA_MEMCPY_KIND_UVM_DTOH")])
    db.executemany("INSERT INTO ENUM_CUDA_MEM_KIND VALUES (?, ?, '')", [
        (0, "CUDA_MEMOPR_MEMORY_KIND_PAGEABLE"), (1, "CUDA_MEMOPR_MEMORY_KIND_PINNED"),
        (2, "CUDA_MEMOPR_MEMORY_KIND_DEVICE"), (7, "CUDA_MEMOPR_MEMORY_KIND_UNKNOWN")])
    db.executemany("INSERT INTO ENUM_CUPTI_SYNC_TYPE VALUES (?, ?, '')", [
        (0, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN"),
        (1, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE"),
        (2, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT"),
        (3, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE"),
        (4, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE")])

    kernel_ids = [(sid(k), sid(k + "(demangled)"), sid(k[3:9])) for k in KERNELS]
    api_ids = [sid(a) for a in API]
    gpid, gtid = gid(PID), gid(PID, TID)
    kernels, copies, memsets, runtime, syncs, nvtx = [], [], [], [], [], []
    host = 1_000_000
    stream_free = {13 + i: 0 for i in range(4)}
    corr = 1
    step_start = host
    BATCH = 100_000

    def flush():
        db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, "
                       "streamId, correlationId, globalPid, demangledName, shortName, mangledName, "
                       "launchType, cacheConfig, registersPerThread, gridX, gridY, gridZ, blockX, "
                       "blockY, blockZ, staticSharedMemory, dynamicSharedMemory, "
                       "localMemoryPerThread, localMemoryTotal, gridId) VALUES "
                       "(?,?,0,1,?,?,?,?,?,?,0,0,32,?,1,1,256,1,1,0,0,0,0,?)", kernels)
        db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, "
                       "streamId, correlationId, globalPid, bytes, copyKind, srcKind, dstKind) "
                       "VALUES (?,?,0,1,?,?,?,?,?,?,?)", copies)
        db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (start, end, deviceId, contextId, "
                       "streamId, correlationId, globalPid, value, bytes, memKind) VALUES "
                       "(?,?,0,1,?,?,?,0,?,2)", memsets)
        db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,0,?,?,?,0,NULL)", runtime)
        db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start, end, deviceId, "
                       "contextId, streamId, correlationId, globalPid, syncType, eventId) VALUES "
                       "(?,?,0,1,?,?,?,3,4294967295)", syncs)
        db.executemany("INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) VALUES "
                       "(?,?,59,?,?)", nvtx)
        for rows in (kernels, copies, memsets, runtime, syncs, nvtx):
            rows.clear()

    for i in range(args.num_ops):
        stream = 13 + (i % 4)
        r = rng.random()
        launch = rng.randint(2_000, 6_000)
        api_start, api_end = host, host + launch
        start = max(api_end + rng.randint(1_000, 5_000), stream_free[stream])
        if r < 0.70:
            dur = rng.randint(5_000, 60_000)
            k = kernel_ids[rng.randrange(len(kernel_ids))]
            kernels.append((start, start + dur, stream, corr, gpid, k[1], k[2], k[0],
                            rng.choice((64, 128, 1024, 4096)), i))
            api = api_ids[0]
        elif r < 0.94:
            nbytes = rng.choice((65536, 1 << 20, 4 << 20))
            dur = nbytes // 20 + 2_000
            h2d = r < 0.82
            copies.append((start, start + dur, stream, corr, gpid, nbytes, 1 if h2d else 2,
                           1 if h2d else 2, 2 if h2d else 1))
            api = api_ids[1]
        else:
            nbytes = 1 << 20
            dur = 3_000
            memsets.append((start, start + dur, stream, corr, gpid, nbytes))
            api = api_ids[2]
        runtime.append((api_start, api_end, gtid, corr, api))
        stream_free[stream] = start + dur
        corr += 1
        host = api_end + rng.randint(500, 3_000)
        if i % 64 == 63:
            until = max(host, stream_free[stream])
            runtime.append((host, until + 1_000, gtid, corr, api_ids[3]))
            syncs.append((host + 200, until + 800, stream, corr, gpid))
            corr += 1
            host = until + 2_000
        if i % 256 == 255:
            nvtx.append((step_start, host, f"step {i // 256}", gtid))
            step_start = host
        if len(kernels) + len(copies) + len(memsets) >= BATCH:
            flush()
    nvtx.append((1_000_000, host + 1_000, "measured", gtid))
    flush()
    db.executemany("INSERT INTO StringIds VALUES (?, ?)", [(v, k) for k, v in strings.items()])
    db.commit()
    db.close()
    print(f"{args.out}: {args.num_ops} GPU ops, {corr - 1} runtime calls")


if __name__ == "__main__":
    main()
