// Every value of the trace schema's enumerations (the enum_* tables of
// schema/streamscope_schema.sql), by name, for code that reads or writes
// trace columns. tests/schema/enum_values_test.cc checks each value/name
// pair here against the tables, both ways: add a value in both places.
//
// Header-only constants: the collector (no Abseil) and the analyzer share it.
#ifndef STREAMSCOPE_SCHEMA_ENUM_VALUES_H_
#define STREAMSCOPE_SCHEMA_ENUM_VALUES_H_

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>

namespace streamscope::schema {

// enum_copy_kind: CUpti_ActivityMemcpyKind, then migrations.
namespace copy_kind {
inline constexpr int64_t kUnknown = 0;
inline constexpr int64_t kHtoD = 1;
inline constexpr int64_t kDtoH = 2;
inline constexpr int64_t kHtoA = 3;
inline constexpr int64_t kAtoH = 4;
inline constexpr int64_t kAtoA = 5;
inline constexpr int64_t kAtoD = 6;
inline constexpr int64_t kDtoA = 7;
inline constexpr int64_t kDtoD = 8;
inline constexpr int64_t kHtoH = 9;
inline constexpr int64_t kPtoP = 10;
// Unified-memory page migrations (Nsight Systems' numbering; converted
// exports only). Reports name such copies kMigrationOpName.
inline constexpr int64_t kUvmHtoD = 11;
inline constexpr int64_t kUvmDtoH = 12;
inline constexpr int64_t kUvmDtoD = 13;
inline constexpr std::string_view kMigrationOpName = "unified-memory migration";
}  // namespace copy_kind

// enum_memory_kind: CUpti_ActivityMemoryKind.
namespace memory_kind {
inline constexpr int64_t kUnknown = 0;
inline constexpr int64_t kPageable = 1;
inline constexpr int64_t kPinned = 2;
inline constexpr int64_t kDevice = 3;
inline constexpr int64_t kArray = 4;
inline constexpr int64_t kManaged = 5;
inline constexpr int64_t kDeviceStatic = 6;
inline constexpr int64_t kManagedStatic = 7;
}  // namespace memory_kind

// enum_stream_kind: how streamscope classifies a stream.
namespace stream_kind {
inline constexpr int64_t kUnknown = 0;
inline constexpr int64_t kLegacyDefault = 1;
inline constexpr int64_t kPerThreadDefault = 2;
inline constexpr int64_t kBlocking = 3;
inline constexpr int64_t kNonBlocking = 4;
}  // namespace stream_kind

// enum_sync_kind: CUpti_ActivitySynchronizationType.
namespace sync_kind {
inline constexpr int64_t kUnknown = 0;
inline constexpr int64_t kEventSynchronize = 1;
inline constexpr int64_t kStreamWaitEvent = 2;
inline constexpr int64_t kStreamSynchronize = 3;
inline constexpr int64_t kContextSynchronize = 4;
}  // namespace sync_kind

// enum_api_domain.
namespace api_domain {
inline constexpr int64_t kRuntime = 1;
inline constexpr int64_t kDriver = 2;
}  // namespace api_domain

// enum_overhead_kind: CUpti_ActivityOverheadKind (subset).
namespace overhead_kind {
inline constexpr int64_t kUnknown = 0;
inline constexpr int64_t kDriverCompiler = 1;
inline constexpr int64_t kCuptiBufferFlush = 65536;
inline constexpr int64_t kCuptiInstrumentation = 131072;
inline constexpr int64_t kCuptiResource = 196608;
inline constexpr int64_t kRuntimeTriggeredModuleLoading = 262144;
inline constexpr int64_t kLazyFunctionLoading = 327680;
inline constexpr int64_t kCommandBufferFull = 393216;
inline constexpr int64_t kActivityBufferRequest = 458752;
inline constexpr int64_t kUvmActivityInit = 524288;
}  // namespace overhead_kind

// enum_link_source: where a device_link row's figures came from.
namespace link_source {
inline constexpr int64_t kNone = 0;
inline constexpr int64_t kNvml = 1;
inline constexpr int64_t kSysfs = 2;
}  // namespace link_source

// The same values with their names in the enum_* tables.
struct EnumValue {
  int64_t value;
  std::string_view name;
};

inline constexpr EnumValue kCopyKinds[] = {
    {copy_kind::kUnknown, "unknown"}, {copy_kind::kHtoD, "H2D"},        {copy_kind::kDtoH, "D2H"},
    {copy_kind::kHtoA, "H2A"},        {copy_kind::kAtoH, "A2H"},        {copy_kind::kAtoA, "A2A"},
    {copy_kind::kAtoD, "A2D"},        {copy_kind::kDtoA, "D2A"},        {copy_kind::kDtoD, "D2D"},
    {copy_kind::kHtoH, "H2H"},        {copy_kind::kPtoP, "P2P"},        {copy_kind::kUvmHtoD, "uvm_H2D"},
    {copy_kind::kUvmDtoH, "uvm_D2H"}, {copy_kind::kUvmDtoD, "uvm_D2D"},
};
inline constexpr EnumValue kMemoryKinds[] = {
    {memory_kind::kUnknown, "unknown"},
    {memory_kind::kPageable, "pageable"},
    {memory_kind::kPinned, "pinned"},
    {memory_kind::kDevice, "device"},
    {memory_kind::kArray, "array"},
    {memory_kind::kManaged, "managed"},
    {memory_kind::kDeviceStatic, "device_static"},
    {memory_kind::kManagedStatic, "managed_static"},
};
inline constexpr EnumValue kStreamKinds[] = {
    {stream_kind::kUnknown, "unknown"},
    {stream_kind::kLegacyDefault, "legacy_default"},
    {stream_kind::kPerThreadDefault, "per_thread_default"},
    {stream_kind::kBlocking, "blocking"},
    {stream_kind::kNonBlocking, "non_blocking"},
};
inline constexpr EnumValue kSyncKinds[] = {
    {sync_kind::kUnknown, "unknown"},
    {sync_kind::kEventSynchronize, "event_synchronize"},
    {sync_kind::kStreamWaitEvent, "stream_wait_event"},
    {sync_kind::kStreamSynchronize, "stream_synchronize"},
    {sync_kind::kContextSynchronize, "context_synchronize"},
};
inline constexpr EnumValue kApiDomains[] = {
    {api_domain::kRuntime, "runtime"},
    {api_domain::kDriver, "driver"},
};
inline constexpr EnumValue kOverheadKinds[] = {
    {overhead_kind::kUnknown, "unknown"},
    {overhead_kind::kDriverCompiler, "driver_compiler"},
    {overhead_kind::kCuptiBufferFlush, "cupti_buffer_flush"},
    {overhead_kind::kCuptiInstrumentation, "cupti_instrumentation"},
    {overhead_kind::kCuptiResource, "cupti_resource"},
    {overhead_kind::kRuntimeTriggeredModuleLoading, "runtime_triggered_module_loading"},
    {overhead_kind::kLazyFunctionLoading, "lazy_function_loading"},
    {overhead_kind::kCommandBufferFull, "command_buffer_full"},
    {overhead_kind::kActivityBufferRequest, "activity_buffer_request"},
    {overhead_kind::kUvmActivityInit, "uvm_activity_init"},
};
inline constexpr EnumValue kLinkSources[] = {
    {link_source::kNone, "none"},
    {link_source::kNvml, "nvml"},
    {link_source::kSysfs, "sysfs"},
};

// Each enum_* table of the schema with the values above.
struct EnumTable {
  std::string_view table;
  const EnumValue* values;
  size_t count;
};
inline constexpr EnumTable kEnumTables[] = {
    {"enum_copy_kind", kCopyKinds, std::size(kCopyKinds)},
    {"enum_memory_kind", kMemoryKinds, std::size(kMemoryKinds)},
    {"enum_stream_kind", kStreamKinds, std::size(kStreamKinds)},
    {"enum_sync_kind", kSyncKinds, std::size(kSyncKinds)},
    {"enum_api_domain", kApiDomains, std::size(kApiDomains)},
    {"enum_overhead_kind", kOverheadKinds, std::size(kOverheadKinds)},
    {"enum_link_source", kLinkSources, std::size(kLinkSources)},
};

}  // namespace streamscope::schema

#endif  // STREAMSCOPE_SCHEMA_ENUM_VALUES_H_
