-- streamscope trace schema.
--
-- The single source of truth for the trace database: the collector creates a
-- fresh trace from this file, the analyzer checks the version and reads it,
-- and `streamscope convert` writes it. Nothing else defines tables.
--
-- Conventions
--   * One database per process.
--   * Times are integer nanoseconds in one clock domain for CPU and GPU
--     records (CUPTI's; see metadata.clock_domain). *_start_ns <= *_end_ns.
--   * Names (kernels, API functions, NVTX messages) are stored once in
--     `string` and referenced by id; the *_named views join them back.
--   * Enumerations are integers with their meaning in enum_* tables, so that
--     `JOIN enum_copy_kind USING (...)` gives readable names.
--   * `correlation_id` links a GPU operation to the API call that submitted
--     it (CUPTI's correlation id; unique within a process).
--   * A column that does not apply to a row holds NULL, never a magic value.
--
-- Versioning: PRAGMA user_version and metadata('schema_version') both hold
-- the schema version. Readers accept this version and the older ones listed
-- below, and reject others with a clear message.
-- The line below is parsed by the build; keep it exactly in this form.
-- schema_version: 3
--
-- History (the tables and their columns are the same in every version; the
-- analyzer reads all of them):
--   1  first release.
--   2  one vocabulary with the reports: enum_copy_kind names H2D, D2H, D2D,
--      P2P, ... (were HtoD, DtoH, ...); the gpu_op view's category is the
--      report's (compute, H2D, D2H, D2D, P2P, memset, other_copy), its
--      columns are op_table (was table_name), copy_kind, name (the kernel's
--      name; was detail), src_kind and dst_kind; gpu_op_with_api's thread
--      column is tid (was api_tid). A version-1 file keeps its own names
--      and views until `streamscope report --save` upgrades it in place
--      (schema::UpgradeSql: enum_copy_kind rows, the two views, both
--      version stamps; no table changes).
--   3  gpu_op_with_api's queue_delay_ns is never negative: an op that
--      started before its submitting call returned (a synchronous copy, a
--      graph launch) has queue_delay_ns 0 and started_during_call 1 (new
--      column). Views only: `streamscope upgrade TRACE` (or report --save)
--      brings a version-1 or -2 file to this version in place.
--   Optional tables (any version may lack them; readers treat a missing one
--   as "not recorded"): device_link and enum_link_source (host link of each
--   device, written by collectors from 2026-12).

PRAGMA user_version = 3;

-- Key/value facts about the capture. Keys (all values TEXT):
--   schema_version, collector_version, trace_format ('streamscope' or
--   'converted-nsys'), start_wall_time_ns (CLOCK_REALTIME at start),
--   start_trace_ns (same instant in the trace clock), host, pid, ppid,
--   command_line (NUL-free, arguments joined by spaces with shell quoting),
--   executable, cuda_driver_version, cuda_runtime_version, cupti_version,
--   clock_domain ('cupti-default' or 'monotonic-raw' ...),
--   capture_options (JSON), record_kinds (comma list),
--   capture_end: 'running' while capturing (so a trace left in that state
--   ended abnormally, e.g. kill -9), then 'normal_exit', 'record_stop'
--   (streamscope_record_stop), 'signal:<N>',
--   'flush_on_stop', 'device_reset' or 'collector_error:<message>';
--   end_trace_ns: trace-clock time capture ended.
--   env:<VAR>: the process's environment variable when set, for RANK,
--   LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, OMPI_COMM_WORLD_RANK, PMI_RANK,
--   SLURM_PROCID, CUDA_DEVICE_MAX_CONNECTIONS and CUDA_LAUNCH_BLOCKING.
CREATE TABLE metadata (
  key   TEXT PRIMARY KEY NOT NULL,
  value TEXT
) WITHOUT ROWID;

-- Interned strings: kernel names (as CUPTI reports them, usually mangled),
-- API function names, NVTX messages and domains.
CREATE TABLE string (
  id    INTEGER PRIMARY KEY,
  value TEXT NOT NULL
);

-- Enumerations -------------------------------------------------------------

-- CUpti_ActivityMemcpyKind (CUPTI's HtoD, DtoH, ... named as the reports
-- name them: H = host, D = device, A = CUDA array, P = peer device):
-- 1 H2D, 2 D2H, 3 H2A, 4 A2H, 5 A2A, 6 A2D, 7 D2A, 8 D2D, 9 H2H, 10 P2P;
-- then unified-memory page migrations (prefetches, page faults) as Nsight
-- Systems numbers them: 11 to the device, 12 to the host, 13 between
-- devices (converted exports only).
CREATE TABLE enum_copy_kind (value INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT INTO enum_copy_kind VALUES
  (0,'unknown'),(1,'H2D'),(2,'D2H'),(3,'H2A'),(4,'A2H'),(5,'A2A'),
  (6,'A2D'),(7,'D2A'),(8,'D2D'),(9,'H2H'),(10,'P2P'),
  (11,'uvm_H2D'),(12,'uvm_D2H'),(13,'uvm_D2D');

-- CUpti_ActivityMemoryKind.
CREATE TABLE enum_memory_kind (value INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT INTO enum_memory_kind VALUES
  (0,'unknown'),(1,'pageable'),(2,'pinned'),(3,'device'),(4,'array'),
  (5,'managed'),(6,'device_static'),(7,'managed_static');

-- How streamscope classifies a stream.
CREATE TABLE enum_stream_kind (value INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT INTO enum_stream_kind VALUES
  (0,'unknown'),
  (1,'legacy_default'),      -- the NULL stream with legacy semantics
  (2,'per_thread_default'),  -- cudaStreamPerThread / --default-stream per-thread
  (3,'blocking'),            -- created without cudaStreamNonBlocking: syncs with legacy_default
  (4,'non_blocking');        -- cudaStreamNonBlocking

-- CUpti_ActivitySynchronizationType.
CREATE TABLE enum_sync_kind (value INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT INTO enum_sync_kind VALUES
  (0,'unknown'),(1,'event_synchronize'),(2,'stream_wait_event'),
  (3,'stream_synchronize'),(4,'context_synchronize');

CREATE TABLE enum_api_domain (value INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT INTO enum_api_domain VALUES (1,'runtime'),(2,'driver');

-- CUpti_ActivityOverheadKind (subset; others are stored by value).
CREATE TABLE enum_overhead_kind (value INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT INTO enum_overhead_kind VALUES
  (0,'unknown'),(1,'driver_compiler'),(65536,'cupti_buffer_flush'),
  (131072,'cupti_instrumentation'),(196608,'cupti_resource'),
  (262144,'runtime_triggered_module_loading'),(327680,'lazy_function_loading'),
  (393216,'command_buffer_full'),(458752,'activity_buffer_request'),
  (524288,'uvm_activity_init');

-- Hardware and execution contexts ------------------------------------------

-- One row per GPU the process used. The columns that decide whether overlap
-- is possible at all: async_engine_count (copy engines; 1 means H2D and D2H
-- cannot overlap each other) and concurrent_kernels.
CREATE TABLE device (
  id                            INTEGER PRIMARY KEY,  -- CUDA device ordinal
  name                          TEXT NOT NULL,
  uuid                          TEXT,                 -- 'GPU-xxxxxxxx-...'
  compute_major                 INTEGER,
  compute_minor                 INTEGER,
  sm_count                      INTEGER,
  async_engine_count            INTEGER,
  concurrent_kernels            INTEGER,              -- 1 if supported
  global_memory_bytes           INTEGER,
  global_memory_bandwidth_kbps  INTEGER,              -- KB/s as CUPTI reports
  global_memory_clock_khz       INTEGER,
  max_threads_per_block         INTEGER,
  max_shared_memory_per_block   INTEGER,
  pci_bus_id                    INTEGER,
  pci_device_id                 INTEGER
);

-- Where a device_link row's figures came from.
CREATE TABLE enum_link_source (value INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT INTO enum_link_source VALUES
  (0,'none'),    -- probed, nothing readable (no NVML, no /sys): all figures NULL
  (1,'nvml'),    -- libnvidia-ml (nvmlDeviceGet*PcieLink*, nvmlDeviceGetC2cModeInfoV)
  (2,'sysfs');   -- /sys/bus/pci/devices/<bus id>/{current,max}_link_{speed,width}

-- One row per device whose host link was probed (the collector, at
-- start-up; Nsight Systems and torch.profiler traces carry no link facts, so
-- their conversions have none). The link sets the ceiling of host<->device
-- copies: PCIe generation (1-6) and width (lanes), or NVLink-C2C (Grace
-- Hopper). `current` is the link's state when probed: an idle GPU may train
-- its link down to save power, so the analyzer's rate uses `max` (the
-- highest the device and the slot support) when known. Added to version 2
-- without a version change: a trace without this table (older, converted)
-- simply has no link facts, and older readers ignore it.
CREATE TABLE device_link (
  device_id           INTEGER PRIMARY KEY,  -- device.id
  pci_bus_id          TEXT,                 -- 'dddd:bb:dd.f' as the driver names it
  source              INTEGER NOT NULL DEFAULT 0 REFERENCES enum_link_source(value),
  pcie_gen_current    INTEGER,
  pcie_width_current  INTEGER,
  pcie_gen_max        INTEGER,
  pcie_width_max      INTEGER,
  c2c_enabled         INTEGER               -- 1: attached over NVLink-C2C; 0: not; NULL: unknown
);

CREATE TABLE context (
  id              INTEGER PRIMARY KEY,  -- CUPTI context id
  device_id       INTEGER NOT NULL,
  null_stream_id  INTEGER               -- stream id of the legacy default stream
);

CREATE TABLE stream (
  id           INTEGER PRIMARY KEY,     -- CUPTI stream id (unique in the process)
  context_id   INTEGER,
  device_id    INTEGER,
  kind         INTEGER NOT NULL DEFAULT 0 REFERENCES enum_stream_kind(value),
  priority     INTEGER,
  cupti_flag   INTEGER,                 -- raw CUpti_ActivityStreamFlag
  created_tid  INTEGER                  -- host thread that first used/created it, if known
);

CREATE TABLE thread (
  tid   INTEGER PRIMARY KEY,            -- OS thread id
  name  TEXT
);

-- GPU operations --------------------------------------------------------------
-- Each GPU op table shares: start_ns, end_ns, device_id, context_id,
-- stream_id, correlation_id, graph_id, graph_node_id (NULL outside graphs).

CREATE TABLE kernel (
  id                      INTEGER PRIMARY KEY,
  start_ns                INTEGER NOT NULL,
  end_ns                  INTEGER NOT NULL,
  device_id               INTEGER NOT NULL,
  context_id              INTEGER,
  stream_id               INTEGER,
  correlation_id          INTEGER,
  name_id                 INTEGER NOT NULL REFERENCES string(id),
  grid_x INTEGER, grid_y INTEGER, grid_z INTEGER,
  block_x INTEGER, block_y INTEGER, block_z INTEGER,
  static_shared_bytes     INTEGER,
  dynamic_shared_bytes    INTEGER,
  registers_per_thread    INTEGER,
  launch_type             INTEGER,     -- CUpti_ActivityLaunchType (0 regular, 1 cooperative single, 2 cooperative multi, 3 cbl)
  graph_id                INTEGER,
  graph_node_id           INTEGER
);

CREATE TABLE memcpy (
  id              INTEGER PRIMARY KEY,
  start_ns        INTEGER NOT NULL,
  end_ns          INTEGER NOT NULL,
  device_id       INTEGER NOT NULL,
  context_id      INTEGER,
  stream_id       INTEGER,
  correlation_id  INTEGER,
  bytes           INTEGER NOT NULL,
  copy_kind       INTEGER NOT NULL REFERENCES enum_copy_kind(value),
  src_kind        INTEGER NOT NULL REFERENCES enum_memory_kind(value),
  dst_kind        INTEGER NOT NULL REFERENCES enum_memory_kind(value),
  is_async        INTEGER NOT NULL,    -- 1 if submitted with an *Async call
  src_device_id   INTEGER,             -- peer copies only
  dst_device_id   INTEGER,             -- peer copies only
  src_context_id  INTEGER,
  dst_context_id  INTEGER,
  graph_id        INTEGER,
  graph_node_id   INTEGER
);

CREATE TABLE memset (
  id              INTEGER PRIMARY KEY,
  start_ns        INTEGER NOT NULL,
  end_ns          INTEGER NOT NULL,
  device_id       INTEGER NOT NULL,
  context_id      INTEGER,
  stream_id       INTEGER,
  correlation_id  INTEGER,
  bytes           INTEGER NOT NULL,
  value           INTEGER,
  memory_kind     INTEGER REFERENCES enum_memory_kind(value),
  is_async        INTEGER NOT NULL,
  graph_id        INTEGER,
  graph_node_id   INTEGER
);

-- Whole-graph executions (CUPTI graph trace), one row per graph launch.
CREATE TABLE graph_execution (
  id              INTEGER PRIMARY KEY,
  start_ns        INTEGER NOT NULL,
  end_ns          INTEGER NOT NULL,
  device_id       INTEGER,
  context_id      INTEGER,
  stream_id       INTEGER,
  correlation_id  INTEGER,
  graph_id        INTEGER
);

-- Host side ---------------------------------------------------------------

-- CUDA runtime and driver API calls.
CREATE TABLE api_call (
  id              INTEGER PRIMARY KEY,
  domain          INTEGER NOT NULL REFERENCES enum_api_domain(value),
  cbid            INTEGER NOT NULL,    -- CUPTI callback id within the domain
  name_id         INTEGER NOT NULL REFERENCES string(id),
  tid             INTEGER NOT NULL,
  start_ns        INTEGER NOT NULL,
  end_ns          INTEGER NOT NULL,
  correlation_id  INTEGER,
  return_value    INTEGER
);

-- Explicit synchronizations (cudaStreamSynchronize, cudaEventSynchronize,
-- cudaDeviceSynchronize/cudaCtxSynchronize, cudaStreamWaitEvent).
-- The host thread is that of the api_call with the same correlation_id.
CREATE TABLE sync (
  id              INTEGER PRIMARY KEY,
  kind            INTEGER NOT NULL REFERENCES enum_sync_kind(value),
  start_ns        INTEGER NOT NULL,
  end_ns          INTEGER NOT NULL,
  context_id      INTEGER,
  stream_id       INTEGER,
  event_id        INTEGER,
  correlation_id  INTEGER,
  return_value    INTEGER
);

-- NVTX ranges (push/pop and start/end) with their matched ends.
-- A range still open when capture ended has end_ns NULL.
CREATE TABLE nvtx_range (
  id          INTEGER PRIMARY KEY,
  tid         INTEGER,                -- thread that opened it
  end_tid     INTEGER,                -- thread that closed it (start/end ranges may differ)
  name_id     INTEGER NOT NULL REFERENCES string(id),
  domain_id   INTEGER REFERENCES string(id),   -- NULL = default domain
  start_ns    INTEGER NOT NULL,
  end_ns      INTEGER,
  is_push_pop INTEGER NOT NULL,       -- 1 push/pop (nested, per thread), 0 start/end
  depth       INTEGER,                -- push/pop nesting depth, 0 outermost
  color       INTEGER,
  category    INTEGER
);

CREATE TABLE nvtx_mark (
  id          INTEGER PRIMARY KEY,
  tid         INTEGER,
  name_id     INTEGER NOT NULL REFERENCES string(id),
  domain_id   INTEGER REFERENCES string(id),
  ts_ns       INTEGER NOT NULL
);

-- What operations touch (filled by the memory-tracking callbacks) ---------
-- The collector fills these three tables from CUPTI runtime/driver API
-- callbacks when record kind `memory` is on (collector/README.md). Contract
-- shared by all three:
--   * correlation_id = the correlation id of the runtime API call, exactly as
--     in api_call.correlation_id and in kernel/memcpy/memset.correlation_id
--     (for a driver API call made directly by the application, the driver
--     call's id). Driver calls made inside a runtime call are not recorded
--     separately; a runtime kernel launch's argument rows (seen in the
--     cuLaunchKernel* underneath it) carry the runtime call's id.
--   * stream_id = the CUPTI stream id, the same numbering as kernel.stream_id
--     and stream.id (handles converted with cuptiGetStreamIdEx; the NULL
--     handle is the legacy default stream, or the per-thread default stream
--     for _ptsz/_ptds entry points; cudaStreamLegacy/cudaStreamPerThread
--     handles are honoured).
--   * Times are the trace clock (as api_call); tid is the OS thread id (as
--     api_call.tid). event_op.ts_ns, allocation.alloc_ns and free_ns are set
--     to the start_ns of the api_call with the same correlation id when
--     capture ends normally; without such a row (driver-only calls without
--     +driver, a killed process) they hold the time taken in the API-enter
--     callback, 0.1-1.2 us before CUPTI's start stamp (measured).
--   * Only calls that returned success are recorded.

-- Allocations and their frees. kind: 'device' (cudaMalloc, cudaMallocPitch,
-- cuMemAlloc, cuMemAllocPitch; bytes = pitch * height for pitched),
-- 'pinned_host' (cudaMallocHost, cudaHostAlloc, cuMemAllocHost,
-- cuMemHostAlloc), 'registered_host' (cudaHostRegister/cuMemHostRegister;
-- freed by cudaHostUnregister), 'managed' (cudaMallocManaged,
-- cuMemAllocManaged), 'async' (cudaMallocAsync/cuMemAllocAsync: stream-ordered
-- from the device's current pool), 'pool' (cudaMallocFromPoolAsync,
-- cuMemAllocFromPoolAsync). device_id: the current context's device; NULL
-- for host kinds. stream_id: the allocating stream ('async' and 'pool'
-- only); free_stream_id: the freeing stream (cudaFreeAsync/cuMemFreeAsync
-- only). alloc_ns/free_ns: the allocating/freeing call's start (see above).
-- Memory allocated before capture began, by VMM (cuMemCreate/cuMemMap),
-- arrays and graph memory nodes is not tracked.
CREATE TABLE allocation (
  id                    INTEGER PRIMARY KEY,
  kind                  TEXT NOT NULL,     -- 'device','pinned_host','registered_host','managed','pool','async'
  address               INTEGER NOT NULL,
  bytes                 INTEGER NOT NULL,
  device_id             INTEGER,
  stream_id             INTEGER,           -- stream-ordered allocations
  alloc_ns              INTEGER NOT NULL,
  alloc_correlation_id  INTEGER,
  free_ns               INTEGER,           -- NULL if never freed during capture
  free_correlation_id   INTEGER,
  free_stream_id        INTEGER            -- stream-ordered frees
);

-- Memory ranges an operation reads or writes, one row per range.
--   * Copies (cudaMemcpy, cudaMemcpyAsync, 2D, 3D, Peer, ToSymbol/FromSymbol,
--     their _ptds/_ptsz forms; cuMemcpy, cuMemcpy{HtoD,DtoH,DtoD}, Peer, 2D
--     and Async forms): source range access 'read', destination 'write'.
--     2D/3D copies record the bounding range (first byte to last byte,
--     pitch gaps included); 3D copies involving an array, array copies and
--     batch copies are not recorded. To/FromSymbol copies record the host
--     side only (resolving the symbol would need a runtime call inside the
--     callback, which CUPTI records as a second api_call under the same
--     correlation id).
--   * Memsets (cudaMemset*, cuMemsetD*): 'write'; 2D/3D: bounding range.
--   * Kernel launches (cudaLaunchKernel[_ptsz], cudaLaunchKernelExC[_ptsz],
--     cudaLaunchCooperativeKernel[_ptsz], cuLaunchKernel[Ex][_ptsz],
--     cuLaunchCooperativeKernel[_ptsz]): one row per pointer-sized parameter
--     (layout from cuFuncGetParamInfo / cuKernelGetParamInfo, CUDA >= 12.4)
--     whose value lies inside a live tracked allocation: address = the
--     pointer, bytes = allocation end - pointer, access 'unknown', arg_index
--     = parameter index. Larger 8-byte-aligned parameters (structs,
--     std::array) are scanned word by word (first 64 words); each word
--     inside a live allocation is a row with that parameter's index. An
--     address appears at most once per launch. Kernels
--     launched as CUDA graph nodes get no rows; launches captured into a
--     graph get rows under the capture-time call's correlation id (which has
--     no kernel row).
-- allocation_id: the live allocation containing `address` at the call (NULL
-- for untracked memory, e.g. pageable host memory).
CREATE TABLE memory_access (
  id              INTEGER PRIMARY KEY,
  correlation_id  INTEGER NOT NULL,       -- the op (via its API call)
  address         INTEGER NOT NULL,
  bytes           INTEGER NOT NULL,
  access          TEXT NOT NULL,          -- 'read','write','unknown'
  allocation_id   INTEGER,
  arg_index       INTEGER                 -- kernel parameter index, NULL otherwise
);

-- Event operations as seen by the callback API. event_handle is the
-- application's cudaEvent_t/CUevent value (an event handle may be reused
-- after cudaEventDestroy). op: 'record' (cudaEventRecord[WithFlags][_ptsz],
-- cuEventRecord*; stream_id = the recording stream), 'wait'
-- (cudaStreamWaitEvent[_ptsz], cuStreamWaitEvent*; stream_id = the waiting
-- stream), 'synchronize' (cudaEventSynchronize, cuEventSynchronize),
-- 'query' (cudaEventQuery, cuEventQuery; only successful ones, i.e. the
-- event had completed), 'elapsed' (cudaEventElapsedTime, cuEventElapsedTime:
-- event_handle = start event, other_event = end event, elapsed_ms = the
-- value the application read). stream_id is NULL for the last three.
-- ts_ns = the API call's start (api_call.start_ns; see above).
CREATE TABLE event_op (
  id              INTEGER PRIMARY KEY,
  op              TEXT NOT NULL,          -- 'record','wait','synchronize','query','elapsed'
  event_handle    INTEGER NOT NULL,
  other_event     INTEGER,                -- 'elapsed': the end event
  stream_id       INTEGER,
  tid             INTEGER,
  ts_ns           INTEGER NOT NULL,
  correlation_id  INTEGER,
  elapsed_ms      REAL                    -- 'elapsed': what the application read
);

-- Collector health ----------------------------------------------------------

-- Counters: key examples 'records_written', 'buffers_completed',
-- 'records_dropped_cupti', 'records_dropped_writer', 'records_invalid',
-- 'writer_batches', 'flushes'.
CREATE TABLE collector_stat (
  key    TEXT PRIMARY KEY NOT NULL,
  value  INTEGER NOT NULL
) WITHOUT ROWID;

-- Intervals in which CUPTI itself worked on the application's time.
CREATE TABLE cupti_overhead (
  id          INTEGER PRIMARY KEY,
  kind        INTEGER NOT NULL,
  object_kind INTEGER,
  object_id   INTEGER,
  start_ns    INTEGER NOT NULL,
  end_ns      INTEGER NOT NULL
);

-- Analysis results written by `streamscope report --save` live in tables
-- named analysis_*; they are documented in analyzer/README.md and are
-- replaced each time the report is saved.

-- Views ---------------------------------------------------------------------

CREATE VIEW kernel_named AS
  SELECT k.*, s.value AS name FROM kernel k JOIN string s ON s.id = k.name_id;

CREATE VIEW api_call_named AS
  SELECT a.*, s.value AS name,
         CASE a.domain WHEN 1 THEN 'runtime' ELSE 'driver' END AS domain_name
  FROM api_call a JOIN string s ON s.id = a.name_id;

CREATE VIEW nvtx_range_named AS
  SELECT r.*, s.value AS name, d.value AS domain
  FROM nvtx_range r JOIN string s ON s.id = r.name_id
  LEFT JOIN string d ON d.id = r.domain_id;

CREATE VIEW nvtx_mark_named AS
  SELECT m.*, s.value AS name, d.value AS domain
  FROM nvtx_mark m JOIN string s ON s.id = m.name_id
  LEFT JOIN string d ON d.id = m.domain_id;

-- Every GPU operation as one relation, in the reports' vocabulary:
--   op_table, op_id: the row the op is (kernel, memcpy or memset table);
--     reports cite it as "kernel 12", "copy 8", "memset 1" (analyzer/README.md).
--   category: 'compute' (kernels), 'H2D', 'D2H', 'D2D', 'P2P', 'memset' or
--     'other_copy' (host-to-host, arrays, unknown), as in the reports'
--     overlap tables; unified-memory migrations count as H2D, D2H or D2D.
--   copy_kind: enum_copy_kind's name (copies only; NULL otherwise).
--   name: the kernel's name (NULL for copies and memsets).
--   bytes: copies and memsets (NULL for kernels).
--   src_kind, dst_kind: memory kinds (enum_memory_kind's name) of a copy's
--     source and destination; dst_kind of a memset is its memory's kind.
CREATE VIEW gpu_op AS
  SELECT 'kernel' AS op_table, k.id AS op_id, 'compute' AS category,
         NULL AS copy_kind, k.start_ns, k.end_ns, k.device_id, k.context_id,
         k.stream_id, k.correlation_id, s.value AS name, NULL AS bytes,
         NULL AS src_kind, NULL AS dst_kind, k.graph_id, k.graph_node_id
  FROM kernel k JOIN string s ON s.id = k.name_id
  UNION ALL
  SELECT 'memcpy', m.id,
         CASE m.copy_kind WHEN 1 THEN 'H2D' WHEN 2 THEN 'D2H' WHEN 8 THEN 'D2D'
                          WHEN 10 THEN 'P2P' WHEN 11 THEN 'H2D' WHEN 12 THEN 'D2H'
                          WHEN 13 THEN 'D2D' ELSE 'other_copy' END,
         COALESCE(ck.name, 'unknown'), m.start_ns, m.end_ns, m.device_id,
         m.context_id, m.stream_id, m.correlation_id, NULL, m.bytes,
         sk.name, dk.name, m.graph_id, m.graph_node_id
  FROM memcpy m LEFT JOIN enum_copy_kind ck ON ck.value = m.copy_kind
  LEFT JOIN enum_memory_kind sk ON sk.value = m.src_kind
  LEFT JOIN enum_memory_kind dk ON dk.value = m.dst_kind
  UNION ALL
  SELECT 'memset', ms.id, 'memset', NULL, ms.start_ns, ms.end_ns, ms.device_id,
         ms.context_id, ms.stream_id, ms.correlation_id, NULL, ms.bytes,
         NULL, mk.name, ms.graph_id, ms.graph_node_id
  FROM memset ms LEFT JOIN enum_memory_kind mk ON mk.value = ms.memory_kind;

-- Every GPU op joined to the API call that submitted it (LEFT JOIN: an op
-- whose call was not recorded, e.g. runtime API capture disabled, keeps
-- NULL api columns). Runtime calls are preferred over driver calls.
-- api_id is the call's api_call.id (reports cite it as "call 33"), tid its
-- host thread. queue_delay_ns: how long the op waited between its call's
-- return and its start, never negative; an op that started before its call
-- returned (a blocking call, a graph launch) has 0 and started_during_call 1.
CREATE VIEW gpu_op_with_api AS
  SELECT o.*, a.id AS api_id, a.name AS api_name, a.tid AS tid,
         a.start_ns AS api_start_ns, a.end_ns AS api_end_ns,
         MAX(0, o.start_ns - a.end_ns) AS queue_delay_ns,
         (o.start_ns < a.end_ns) AS started_during_call
  FROM gpu_op o LEFT JOIN api_call_named a
    ON a.correlation_id = o.correlation_id
   AND a.id = (SELECT a2.id FROM api_call a2
               WHERE a2.correlation_id = o.correlation_id
               ORDER BY a2.domain ASC LIMIT 1);

-- streamscope:finalize
-- Statements after the marker above run when capture ends (and when a trace
-- is converted), not at creation: indexes would slow the collector's inserts.
-- Readers must not depend on them existing (a killed process never got here).
CREATE INDEX IF NOT EXISTS api_call_correlation ON api_call(correlation_id);
CREATE INDEX IF NOT EXISTS kernel_correlation ON kernel(correlation_id);
CREATE INDEX IF NOT EXISTS memcpy_correlation ON memcpy(correlation_id);
CREATE INDEX IF NOT EXISTS memset_correlation ON memset(correlation_id);
CREATE INDEX IF NOT EXISTS memory_access_correlation ON memory_access(correlation_id);
CREATE INDEX IF NOT EXISTS event_op_correlation ON event_op(correlation_id);
