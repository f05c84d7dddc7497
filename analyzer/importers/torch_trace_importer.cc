// torch.profiler (Kineto) Chrome trace -> TraceModel. analyzer/TORCH.md
// documents the mapping. TorchSax takes SAX calls from the fast reader
// (torch_json_reader.h: a mapped plain file or blocks of a gzip one) or,
// for malformed input only, from nlohmann-json's parser, which words the
// error; memory stays that of the model either way.
#include "analyzer/importers/torch_trace_importer.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "analyzer/importers/model_column_reserve.h"
#include "analyzer/importers/torch_gz_input.h"
#include "analyzer/importers/torch_json_number.h"
#include "analyzer/importers/torch_json_reader.h"
#include "analyzer/importers/torch_mapped_input.h"
#include "analyzer/model/saturating.h"
#include "nlohmann/json.hpp"

namespace streamscope {
namespace {

using Json = nlohmann::json;

// Relative times and durations beyond this are no clock's: with a base of at
// most 2^61 every absolute time stays inside [kMinTraceTime, kMaxTraceTime].
constexpr int64_t kMaxRelativeNs = int64_t{1} << 60;
constexpr int64_t kMaxBaseNs = int64_t{1} << 61;
// Named pids and tids ("Spans") get ids from here up, in the order seen.
constexpr int64_t kNamedIdentBase = int64_t{1} << 48;

// A scalar JSON value as the SAX parser hands it over.
struct Scalar {
  enum class Kind : uint8_t { kNull, kBool, kInt, kUnsigned, kFloat, kString };
  Kind kind = Kind::kNull;
  int64_t i = 0;
  uint64_t u = 0;
  bool b = false;
  std::string_view text;  // kFloat: the number's text; kString: the string
};

// pid/tid: integers in Kineto's events, strings in some ("Spans", "", and
// "stream 7" in old versions).
struct Ident {
  bool present = false;
  bool numeric = false;
  int64_t value = 0;
};

struct DeviceFields {
  std::optional<int64_t> id, memory, major, minor, sms;
  std::string name;
};

struct EventFields {
  std::string ph, cat, name;
  Ident pid, tid;
  std::optional<int64_t> ts, dur, id;
  // args
  std::optional<int64_t> correlation, device, in_device, from_device, to_device, stream, bytes, cbid, registers,
      shared_memory, wait_event;
  std::string arg_name, sync_kind;
  int32_t grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
  int grid_n = 0, block_n = 0;

  void Clear() {
    ph.clear();
    cat.clear();
    name.clear();
    pid = {};
    tid = {};
    ts.reset();
    dur.reset();
    id.reset();
    correlation.reset();
    device.reset();
    in_device.reset();
    from_device.reset();
    to_device.reset();
    stream.reset();
    bytes.reset();
    cbid.reset();
    registers.reset();
    shared_memory.reset();
    wait_event.reset();
    arg_name.clear();
    sync_kind.clear();
    grid_n = block_n = 0;
    for (int k = 0; k < 3; ++k) grid[k] = block[k] = 0;
  }
};

enum class Frame : uint8_t {
  kTop,
  kEvents,
  kEvent,
  kArgs,
  kGrid,
  kBlock,
  kDevices,
  kDevice,
  kDistributed,
  kOtherData,
  kSkip
};

enum class Key : uint8_t {
  kOther,
  kTraceEvents,
  kDeviceProperties,
  kBaseTime,
  kDistributedInfo,
  kDistributedField,
  kOtherData,
  kGenerator,
  // event
  kPh,
  kCat,
  kName,
  kPid,
  kTid,
  kTs,
  kDur,
  kId,
  kArgs,
  // args
  kCorrelation,
  kDevice,
  kInDevice,
  kFromDevice,
  kToDevice,
  kStream,
  kBytes,
  kCbid,
  kRegisters,
  kSharedMemory,
  kWaitEvent,
  kArgName,
  kSyncKind,
  kGrid,
  kBlock,
  // deviceProperties
  kDevId,
  kDevName,
  kDevMemory,
  kDevMajor,
  kDevMinor,
  kDevSms,
};

// k == lit, with the literal's length known at compile time (an inlined
// compare, not a memcmp call: keys are matched millions of times).
template <size_t N>
inline bool Is(std::string_view k, const char (&lit)[N]) {
  return k.size() == N - 1 && __builtin_memcmp(k.data(), lit, N - 1) == 0;
}

Key EventKey(std::string_view k) {
  switch (k.size()) {
    case 2:
      if (Is(k, "ph")) return Key::kPh;
      if (Is(k, "ts")) return Key::kTs;
      if (Is(k, "id")) return Key::kId;
      break;
    case 3:
      if (Is(k, "cat")) return Key::kCat;
      if (Is(k, "pid")) return Key::kPid;
      if (Is(k, "tid")) return Key::kTid;
      if (Is(k, "dur")) return Key::kDur;
      break;
    case 4:
      if (Is(k, "name")) return Key::kName;
      if (Is(k, "args")) return Key::kArgs;
      break;
    default: break;
  }
  return Key::kOther;
}

Key ArgKey(std::string_view k) {
  switch (k.size()) {
    case 4:
      if (Is(k, "cbid")) return Key::kCbid;
      if (Is(k, "grid")) return Key::kGrid;
      if (Is(k, "name")) return Key::kArgName;
      break;
    case 5:
      if (Is(k, "bytes")) return Key::kBytes;
      if (Is(k, "block")) return Key::kBlock;
      break;
    case 6:
      if (Is(k, "device")) return Key::kDevice;
      if (Is(k, "stream")) return Key::kStream;
      break;
    case 8:
      if (Is(k, "inDevice")) return Key::kInDevice;
      if (Is(k, "toDevice")) return Key::kToDevice;
      break;
    case 10:
      if (Is(k, "fromDevice")) return Key::kFromDevice;
      break;
    case 11:
      if (Is(k, "correlation")) return Key::kCorrelation;
      break;
    case 13:
      if (Is(k, "shared memory")) return Key::kSharedMemory;
      break;
    case 14:
      if (Is(k, "cuda_sync_kind")) return Key::kSyncKind;
      break;
    case 20:
      if (Is(k, "registers per thread")) return Key::kRegisters;
      break;
    case 21:
      if (Is(k, "wait_on_cuda_event_id")) return Key::kWaitEvent;
      break;
    default: break;
  }
  return Key::kOther;
}

Key DeviceKey(std::string_view k) {
  if (k == "id") return Key::kDevId;
  if (k == "name") return Key::kDevName;
  if (k == "totalGlobalMem") return Key::kDevMemory;
  if (k == "computeMajor") return Key::kDevMajor;
  if (k == "computeMinor") return Key::kDevMinor;
  if (k == "numSms") return Key::kDevSms;
  return Key::kOther;
}

MemoryKind MemoryKindFromText(std::string_view s) {
  if (s == "Pageable") return MemoryKind::kPageable;
  if (s == "Pinned") return MemoryKind::kPinned;
  if (s == "Device") return MemoryKind::kDevice;
  if (s == "Array") return MemoryKind::kArray;
  if (s == "Managed") return MemoryKind::kManaged;
  if (s == "Device Static") return MemoryKind::kDeviceStatic;
  if (s == "Managed Static") return MemoryKind::kManagedStatic;
  return MemoryKind::kUnknown;
}

struct CopyShape {
  OpCategory category = OpCategory::kOtherCopy;
  MemoryKind src = MemoryKind::kUnknown, dst = MemoryKind::kUnknown;
  bool parsed = false;
};

// "Memcpy HtoD (Pageable -> Device)" (Kineto's memcpyName).
CopyShape ParseCopyName(std::string_view name) {
  CopyShape c;
  if (!name.starts_with("Memcpy ")) return c;
  std::string_view rest = name.substr(7);
  size_t space = rest.find(' ');
  std::string_view kind = rest.substr(0, space);
  if (kind == "HtoD")
    c.category = OpCategory::kHtoD;
  else if (kind == "DtoH")
    c.category = OpCategory::kDtoH;
  else if (kind == "DtoD")
    c.category = OpCategory::kDtoD;
  else if (kind == "PtoP")
    c.category = OpCategory::kPtoP;
  size_t open = rest.find('('), arrow = rest.find(" -> "), close = rest.rfind(')');
  if (open != std::string_view::npos && arrow != std::string_view::npos && close != std::string_view::npos &&
      open < arrow && arrow < close) {
    c.src = MemoryKindFromText(rest.substr(open + 1, arrow - open - 1));
    c.dst = MemoryKindFromText(rest.substr(arrow + 4, close - arrow - 4));
    c.parsed = true;
  }
  return c;
}

// "Memset (Device)".
MemoryKind ParseMemsetKind(std::string_view name) {
  size_t open = name.find('('), close = name.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return MemoryKind::kUnknown;
  return MemoryKindFromText(name.substr(open + 1, close - open - 1));
}

SyncKind SyncKindFromText(std::string_view s) {
  if (s.find("Wait Event") != std::string_view::npos) return SyncKind::kStreamWaitEvent;
  if (s.find("Event Sync") != std::string_view::npos) return SyncKind::kEventSynchronize;
  if (s.find("Stream Sync") != std::string_view::npos) return SyncKind::kStreamSynchronize;
  if (s.find("Context Sync") != std::string_view::npos || s.find("Device Sync") != std::string_view::npos)
    return SyncKind::kContextSynchronize;
  return SyncKind::kUnknown;
}

struct Flow {
  int64_t pid, tid, ts, id;
};

// A GPU op or API call that carried no args.correlation: its ac2g flow
// (same pid, tid and ts) may give it one.
struct PendingCorrelation {
  bool is_op;
  size_t index;
  int64_t pid, tid, ts;
};

class TorchSax {
 public:
  using number_integer_t = Json::number_integer_t;
  using number_unsigned_t = Json::number_unsigned_t;
  using number_float_t = Json::number_float_t;
  using string_t = Json::string_t;
  using binary_t = Json::binary_t;

  explicit TorchSax(TraceModel* model) : m_(*model) {}

  bool null() { return OnScalar(Scalar{}); }
  bool boolean(bool v) {
    Scalar s;
    s.kind = Scalar::Kind::kBool;
    s.b = v;
    return OnScalar(s);
  }
  bool number_integer(number_integer_t v) {
    Scalar s;
    s.kind = Scalar::Kind::kInt;
    s.i = v;
    return OnScalar(s);
  }
  bool number_unsigned(number_unsigned_t v) {
    if (int_slot_ != nullptr && v <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      *int_slot_ = static_cast<int64_t>(v);  // as AsInt
      return Consumed();
    }
    if (nanos_slot_ != nullptr && v <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max() / 1000)) {
      *nanos_slot_ = static_cast<int64_t>(v) * 1000;  // as AsNanos
      return Consumed();
    }
    if (ident_slot_ != nullptr && v <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      *ident_slot_ = Ident{true, true, static_cast<int64_t>(v)};  // as AsIdent
      if (static_cast<int64_t>(v) > kNamedIdentBase) numeric_ident_in_named_range_ = true;
      return Consumed();
    }
    Scalar s;
    s.kind = Scalar::Kind::kUnsigned;
    s.u = v;
    return OnScalar(s);
  }
  // Strings and keys as views: nlohmann passes std::string, the fast
  // reader (torch_json_reader.h) views into its buffer.
  bool number_float(number_float_t, std::string_view text) {
    if (nanos_slot_ != nullptr) {
      *nanos_slot_ = MicrosTextToNanos(text);  // as AsNanos
      return Consumed();
    }
    Scalar s;
    s.kind = Scalar::Kind::kFloat;
    s.text = text;
    return OnScalar(s);
  }
  bool string(std::string_view v) {
    if (text_slot_ != nullptr) {
      text_slot_->assign(v);  // as SetString
      return Consumed();
    }
    Scalar s;
    s.kind = Scalar::Kind::kString;
    s.text = v;
    return OnScalar(s);
  }
  bool binary(binary_t&) { return OnScalar(Scalar{}); }
  bool start_object(std::size_t) { return Open(true); }
  bool start_array(std::size_t) { return Open(false); }
  bool end_object() { return Close(); }
  bool end_array() { return Close(); }
  bool key(std::string_view k) {
    ClearSlots();
    switch (Top()) {
      case Frame::kTop:
        key_ = k == "traceEvents"           ? Key::kTraceEvents
               : k == "deviceProperties"    ? Key::kDeviceProperties
               : k == "baseTimeNanoseconds" ? Key::kBaseTime
               : k == "distributedInfo"     ? Key::kDistributedInfo
               : k == "otherData"           ? Key::kOtherData
                                            : Key::kOther;
        top_key_ = k;
        break;
      case Frame::kEvent:
        key_ = EventKey(k);
        switch (key_) {
          case Key::kPh: text_slot_ = &ev_.ph; break;
          case Key::kCat: text_slot_ = &ev_.cat; break;
          case Key::kName: text_slot_ = &ev_.name; break;
          case Key::kTs: nanos_slot_ = &ev_.ts; break;
          case Key::kDur: nanos_slot_ = &ev_.dur; break;
          case Key::kId: int_slot_ = &ev_.id; break;
          case Key::kPid: ident_slot_ = &ev_.pid; break;
          case Key::kTid: ident_slot_ = &ev_.tid; break;
          default: break;
        }
        break;
      case Frame::kArgs:
        key_ = ArgKey(k);
        switch (key_) {
          case Key::kCorrelation: int_slot_ = &ev_.correlation; break;
          case Key::kDevice: int_slot_ = &ev_.device; break;
          case Key::kInDevice: int_slot_ = &ev_.in_device; break;
          case Key::kFromDevice: int_slot_ = &ev_.from_device; break;
          case Key::kToDevice: int_slot_ = &ev_.to_device; break;
          case Key::kStream: int_slot_ = &ev_.stream; break;
          case Key::kBytes: int_slot_ = &ev_.bytes; break;
          case Key::kCbid: int_slot_ = &ev_.cbid; break;
          case Key::kRegisters: int_slot_ = &ev_.registers; break;
          case Key::kSharedMemory: int_slot_ = &ev_.shared_memory; break;
          case Key::kWaitEvent: int_slot_ = &ev_.wait_event; break;
          default: break;
        }
        break;
      case Frame::kDevice: key_ = DeviceKey(k); break;
      case Frame::kDistributed:
        key_ = k == "rank" || k == "world_size" || k == "backend" ? Key::kDistributedField : Key::kOther;
        top_key_ = k;
        break;
      case Frame::kOtherData: key_ = k == "generator" ? Key::kGenerator : Key::kOther; break;
      default: key_ = Key::kOther; break;
    }
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) {
    error_ = absl::StrCat("malformed JSON at byte ", position, ": ", ex.what());
    return false;
  }

  const std::string& error() const { return error_; }
  const std::string& generator() const { return generator_; }
  bool saw_events() const { return saw_events_; }
  int64_t event_count() const { return event_index_; }

  // Capacity for a trace of `json_bytes` (uncompressed): a Kineto GPU op,
  // CUDA call, CPU op or flow event takes at least ~100-700 bytes of JSON,
  // so these are upper bounds for typical traces; capacity never touched
  // stays virtual (not resident), and growing past them still works. Saves
  // the copies and page faults of doubling vectors of hundreds of MB.
  void Reserve(int64_t json_bytes) {
    const size_t ops = static_cast<size_t>(json_bytes / 700), calls = static_cast<size_t>(json_bytes / 700);
    ReserveOpColumns(m_.ops, ops);
    m_.kernel_shapes.reserve(ops);
    ReserveApiColumns(m_.api, calls);
    m_.nvtx_ranges.reserve(static_cast<size_t>(json_bytes / 700));
    flow_starts_.reserve(static_cast<size_t>(json_bytes / 700));
    flow_ends_.reserve(static_cast<size_t>(json_bytes / 700));
  }

  // After a successful parse: base time, correlations from flows, async
  // flags, range depths, devices, metadata and notes.
  void Finish();

  // Parsing in pieces (ParseInPieces): a later piece's handler starts
  // inside the event list; at a piece's end the handler must be between two
  // of its events; Absorb then takes the next piece's events, in file
  // order, as if this handler had read them itself. False where it could
  // not be exact (the caller parses the whole file again in one piece).
  void StartInEventList() {
    frames_ = {Frame::kTop, Frame::kEvents};
    saw_events_ = true;
  }
  bool InEventList() const { return frames_.size() == 2 && frames_[0] == Frame::kTop && frames_[1] == Frame::kEvents; }
  bool Absorb(TorchSax& part);
  int64_t recognized() const { return recognized_; }

 private:
  Frame Top() const { return frames_.empty() ? Frame::kSkip : frames_.back(); }

  // The value of the key just read, in the common cases, straight into its
  // field (the same conversion OnScalar would make): key() sets the slot,
  // the next value takes it; anything else (containers, other types) goes
  // the general way with the slots cleared.
  void ClearSlots() {
    int_slot_ = nullptr;
    nanos_slot_ = nullptr;
    text_slot_ = nullptr;
    ident_slot_ = nullptr;
  }
  bool Consumed() {
    ClearSlots();
    key_ = Key::kOther;
    return true;
  }

  bool Open(bool object) {
    ClearSlots();
    if (frames_.empty()) {
      frames_.push_back(object ? Frame::kTop : Frame::kEvents);  // a bare array is the event list
      if (!object) saw_events_ = true;
      return true;
    }
    Frame next = Frame::kSkip;
    switch (frames_.back()) {
      case Frame::kTop:
        if (!object && key_ == Key::kTraceEvents) {
          next = Frame::kEvents;
          saw_events_ = true;
        } else if (!object && key_ == Key::kDeviceProperties) {
          next = Frame::kDevices;
        } else if (object && key_ == Key::kDistributedInfo) {
          next = Frame::kDistributed;  // the rank of a distributed run
        } else if (object && key_ == Key::kOtherData) {
          next = Frame::kOtherData;  // Chrome-trace writers name themselves here
        }
        break;
      case Frame::kEvents:
        if (object) {
          next = Frame::kEvent;
          ev_.Clear();
        } else {
          ++m_.import_stats["torch_event_not_an_object_left_out"];
        }
        ++event_index_;
        break;
      case Frame::kEvent:
        if (key_ == Key::kArgs && object)
          next = Frame::kArgs;
        else if (key_ != Key::kOther)
          WrongType();
        break;
      case Frame::kArgs:
        if (!object && key_ == Key::kGrid)
          next = Frame::kGrid;
        else if (!object && key_ == Key::kBlock)
          next = Frame::kBlock;
        break;
      case Frame::kDevices:
        if (object) {
          next = Frame::kDevice;
          dev_ = {};
        }
        break;
      default: break;
    }
    frames_.push_back(next);
    key_ = Key::kOther;
    return true;
  }

  bool Close() {
    ClearSlots();
    if (frames_.empty()) return true;
    Frame done = frames_.back();
    frames_.pop_back();
    key_ = Key::kOther;
    if (done == Frame::kEvent) FinishEvent();
    if (done == Frame::kDevice) FinishDevice();
    return true;
  }

  [[gnu::noinline, gnu::cold]] void WrongType() { ++m_.import_stats["torch_field_wrong_type"]; }

  // An integer field; wrong types counted.
  std::optional<int64_t> AsInt(const Scalar& s) {
    if (s.kind == Scalar::Kind::kUnsigned && s.u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        [[likely]] {
      return static_cast<int64_t>(s.u);
    }
    switch (s.kind) {
      case Scalar::Kind::kInt: return s.i;
      case Scalar::Kind::kUnsigned:
        if (s.u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return static_cast<int64_t>(s.u);
        break;
      case Scalar::Kind::kFloat:
        if (auto v = ScaledDecimal(s.text, 0)) return v;
        break;
      default: break;
    }
    WrongType();
    return std::nullopt;
  }

  // Microseconds -> ns, exactly.
  std::optional<int64_t> AsNanos(const Scalar& s) {
    switch (s.kind) {
      case Scalar::Kind::kInt: {
        int64_t r;
        if (!__builtin_mul_overflow(s.i, int64_t{1000}, &r)) return r;
        break;
      }
      case Scalar::Kind::kUnsigned:
        if (s.u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max() / 1000)) {
          return static_cast<int64_t>(s.u) * 1000;
        }
        break;
      case Scalar::Kind::kFloat:
        if (auto v = MicrosTextToNanos(s.text)) return v;
        break;
      default: WrongType(); return std::nullopt;
    }
    return std::nullopt;  // beyond int64: the event is left out as one without a time
  }

  Ident AsIdent(const Scalar& s) {
    Ident id;
    id.present = true;
    if (s.kind == Scalar::Kind::kString) {
      // "stream 7", "12345": the trailing number; other names get ids of
      // their own far from any real pid or tid.
      std::string_view t = s.text;
      size_t end = t.size(), begin = end;
      while (begin > 0 && std::isdigit(static_cast<unsigned char>(t[begin - 1]))) --begin;
      if (begin < end && end - begin <= 15) {
        id.numeric = true;
        id.value = ScaledDecimal(t.substr(begin), 0).value_or(0);
      } else {
        auto [it, inserted] = named_idents_.try_emplace(std::string(t), 0);
        if (inserted) it->second = kNamedIdentBase + static_cast<int64_t>(named_idents_.size());
        id.value = it->second;
      }
    } else if (auto v = AsInt(s)) {
      id.numeric = true;
      id.value = *v;
    }
    if (id.numeric && id.value > kNamedIdentBase) numeric_ident_in_named_range_ = true;
    return id;
  }

  void SetString(std::string& field, const Scalar& s) {
    if (s.kind == Scalar::Kind::kString)
      field.assign(s.text);
    else
      WrongType();
  }

  bool OnScalar(const Scalar& s) {
    ClearSlots();
    switch (Top()) {
      case Frame::kTop: TopScalar(s); break;
      case Frame::kDistributed:
        if (key_ == Key::kDistributedField) {
          if (s.kind == Scalar::Kind::kString)
            m_.metadata[absl::StrCat("torch.", top_key_)] = std::string(s.text.substr(0, 64));
          else if (auto v = AsInt(s))
            m_.metadata[absl::StrCat("torch.", top_key_)] = absl::StrCat(*v);
        }
        break;
      case Frame::kOtherData:
        if (key_ == Key::kGenerator && s.kind == Scalar::Kind::kString) generator_.assign(s.text.substr(0, 64));
        break;
      case Frame::kEvents:
        ++event_index_;
        ++m_.import_stats["torch_event_not_an_object_left_out"];
        break;
      case Frame::kEvent:
        switch (key_) {
          case Key::kPh: SetString(ev_.ph, s); break;
          case Key::kCat: SetString(ev_.cat, s); break;
          case Key::kName: SetString(ev_.name, s); break;
          case Key::kPid: ev_.pid = AsIdent(s); break;
          case Key::kTid: ev_.tid = AsIdent(s); break;
          case Key::kTs: ev_.ts = AsNanos(s); break;
          case Key::kDur: ev_.dur = AsNanos(s); break;
          case Key::kId:
            if (s.kind == Scalar::Kind::kString)
              ev_.id = ScaledDecimal(s.text, 0);  // flow ids may be strings
            else
              ev_.id = AsInt(s);
            break;
          case Key::kArgs: WrongType(); break;
          default: break;
        }
        break;
      case Frame::kArgs:
        switch (key_) {
          case Key::kCorrelation: ev_.correlation = AsInt(s); break;
          case Key::kDevice: ev_.device = AsInt(s); break;
          case Key::kInDevice: ev_.in_device = AsInt(s); break;
          case Key::kFromDevice: ev_.from_device = AsInt(s); break;
          case Key::kToDevice: ev_.to_device = AsInt(s); break;
          case Key::kStream: ev_.stream = AsInt(s); break;
          case Key::kBytes: ev_.bytes = AsInt(s); break;
          case Key::kCbid: ev_.cbid = AsInt(s); break;
          case Key::kRegisters: ev_.registers = AsInt(s); break;
          case Key::kSharedMemory: ev_.shared_memory = AsInt(s); break;
          case Key::kWaitEvent: ev_.wait_event = AsInt(s); break;
          case Key::kArgName:
            if (s.kind == Scalar::Kind::kString) ev_.arg_name.assign(s.text);
            break;
          case Key::kSyncKind:
            if (s.kind == Scalar::Kind::kString) ev_.sync_kind.assign(s.text);
            break;
          default: break;
        }
        break;
      case Frame::kGrid:
      case Frame::kBlock: {
        const bool grid = Top() == Frame::kGrid;
        int& n = grid ? ev_.grid_n : ev_.block_n;
        if (n < 3) {
          auto v = AsInt(s);
          (grid ? ev_.grid : ev_.block)[n] = v && *v >= 0 && *v <= INT32_MAX ? static_cast<int32_t>(*v) : 0;
        }
        ++n;
        break;
      }
      case Frame::kDevice:
        switch (key_) {
          case Key::kDevId: dev_.id = AsInt(s); break;
          case Key::kDevName: SetString(dev_.name, s); break;
          case Key::kDevMemory: dev_.memory = AsInt(s); break;
          case Key::kDevMajor: dev_.major = AsInt(s); break;
          case Key::kDevMinor: dev_.minor = AsInt(s); break;
          case Key::kDevSms: dev_.sms = AsInt(s); break;
          default: break;
        }
        break;
      default: break;
    }
    key_ = Key::kOther;
    return true;
  }

  void TopScalar(const Scalar& s) {
    if (key_ == Key::kBaseTime) {
      auto v = AsInt(s);
      if (v && *v >= 0 && *v <= kMaxBaseNs) {
        base_ns_ = *v;
        base_set_ = true;
      } else {
        ++m_.import_stats["torch_base_time_out_of_range"];
      }
      return;
    }
    std::string value;
    switch (s.kind) {
      case Scalar::Kind::kNull: return;
      case Scalar::Kind::kBool: value = s.b ? "true" : "false"; break;
      case Scalar::Kind::kInt: value = absl::StrCat(s.i); break;
      case Scalar::Kind::kUnsigned: value = absl::StrCat(s.u); break;
      case Scalar::Kind::kFloat:
      case Scalar::Kind::kString: value = std::string(s.text.substr(0, 256)); break;
    }
    if (top_key_.size() <= 64 && m_.metadata.size() < 256) m_.metadata[absl::StrCat("torch.", top_key_)] = value;
  }

  void FinishDevice() {
    if (!dev_.id || *dev_.id < 0 || *dev_.id > INT32_MAX) {
      ++m_.import_stats["torch_device_without_id"];
      return;
    }
    Device d;
    d.id = static_cast<int32_t>(*dev_.id);
    d.name = dev_.name;
    auto small = [](const std::optional<int64_t>& v) {
      return v && *v >= 0 && *v <= INT32_MAX ? static_cast<int32_t>(*v) : 0;
    };
    d.compute_major = small(dev_.major);
    d.compute_minor = small(dev_.minor);
    d.sm_count = small(dev_.sms);
    d.global_memory_bytes = dev_.memory && *dev_.memory > 0 ? *dev_.memory : 0;
    if (m_.FindDevice(d.id) == nullptr) m_.devices.push_back(std::move(d));
  }

  void FinishEvent();
  void AddGpuOp(OpCategory category);
  void AddApiCall(ApiDomain domain);
  void AddRange(std::string_view domain);
  void AddSync();
  int32_t DeviceOf() const;

  TraceModel& m_;
  std::vector<Frame> frames_;
  Key key_ = Key::kOther;
  std::optional<int64_t>* int_slot_ = nullptr;    // AsInt fields
  std::optional<int64_t>* nanos_slot_ = nullptr;  // ts, dur
  std::string* text_slot_ = nullptr;              // ph, cat, name
  Ident* ident_slot_ = nullptr;                   // pid, tid
  std::string top_key_;
  EventFields ev_;
  DeviceFields dev_;
  std::string error_;
  std::string generator_;  // otherData.generator, if any
  bool saw_events_ = false;
  int64_t event_index_ = 0;  // position of the current event in traceEvents (1-based while open)
  int64_t base_ns_ = 0;
  bool base_set_ = false;
  // A numeric pid or tid above kNamedIdentBase: a piece's named ids could
  // not be told from it when renumbered (Absorb refuses).
  bool numeric_ident_in_named_range_ = false;
  int64_t recognized_ = 0;
  std::map<std::string, int64_t, std::less<>> named_idents_;
  std::vector<Flow> flow_starts_, flow_ends_;
  std::vector<PendingCorrelation> pending_;
  std::map<int64_t, int64_t> cpu_pids_;  // pid -> events
  std::map<int64_t, std::string> process_names_;
  std::map<std::pair<int64_t, int64_t>, std::string> thread_names_;
  std::map<std::string, int64_t> ignored_;  // category or phase -> events not imported
  StringId domain_cpu_op_ = kNoString, domain_annotation_ = kNoString;
};

int32_t TorchSax::DeviceOf() const {
  std::optional<int64_t> d = ev_.device ? ev_.device : ev_.in_device;
  if (!d && ev_.pid.numeric) d = ev_.pid.value;
  if (!d || *d < 0 || *d > INT32_MAX) return -1;
  return static_cast<int32_t>(*d);
}

void TorchSax::FinishEvent() {
  const std::string_view ph = ev_.ph;
  if (Is(ph, "M")) {
    if (!ev_.pid.present || ev_.arg_name.empty()) return;
    if (Is(ev_.name, "process_name")) process_names_[ev_.pid.value] = ev_.arg_name;
    if (Is(ev_.name, "thread_name") && ev_.tid.present) thread_names_[{ev_.pid.value, ev_.tid.value}] = ev_.arg_name;
    return;
  }
  if (Is(ph, "s") || Is(ph, "f") || Is(ph, "t")) {
    if (!Is(ev_.cat, "ac2g")) return;
    if (!ev_.id || !ev_.ts || !ev_.pid.present || !ev_.tid.present) return;
    (Is(ph, "s") ? flow_starts_ : flow_ends_).push_back({ev_.pid.value, ev_.tid.value, *ev_.ts, *ev_.id});
    return;
  }
  if (!Is(ph, "X")) {
    ++ignored_[ph.empty() ? std::string("(no ph)") : absl::StrCat("ph '", std::string(ph.substr(0, 8)), "'")];
    return;
  }
  // The category, lower-cased (Kineto writes it in lower case).
  char lower[16];
  std::string_view cat;
  if (ev_.cat.size() <= sizeof(lower)) {
    for (size_t k = 0; k < ev_.cat.size(); ++k) lower[k] = absl::ascii_tolower(static_cast<unsigned char>(ev_.cat[k]));
    cat = std::string_view(lower, ev_.cat.size());
  }
  enum class What { kKernel, kCopy, kMemset, kRuntime, kDriver, kCpuOp, kAnnotation, kSync, kOther };
  What what = What::kOther;
  if (Is(cat, "kernel"))
    what = What::kKernel;
  else if (Is(cat, "gpu_memcpy") || Is(cat, "memcpy"))
    what = What::kCopy;
  else if (Is(cat, "gpu_memset") || Is(cat, "memset"))
    what = What::kMemset;
  else if (Is(cat, "cuda_runtime") || Is(cat, "runtime"))
    what = What::kRuntime;
  else if (Is(cat, "cuda_driver") || Is(cat, "driver"))
    what = What::kDriver;
  else if (Is(cat, "cpu_op") || Is(cat, "operator"))
    what = What::kCpuOp;
  else if (Is(cat, "user_annotation"))
    what = What::kAnnotation;
  else if (Is(cat, "cuda_sync"))
    what = What::kSync;
  if (what == What::kOther) {
    ++ignored_[ev_.cat.empty() ? std::string("(no cat)") : ev_.cat.substr(0, 48)];
    return;
  }
  if (!ev_.ts || !ev_.dur) {
    ++m_.import_stats["torch_event_without_time_left_out"];
    return;
  }
  if (*ev_.dur < 0) {
    ++m_.import_stats["torch_event_end_before_start"];
    return;
  }
  if (*ev_.ts < -kMaxRelativeNs || *ev_.ts > kMaxRelativeNs || *ev_.dur > kMaxRelativeNs) {
    ++m_.import_stats["torch_event_time_out_of_range_left_out"];
    return;
  }
  ++recognized_;
  switch (what) {
    case What::kKernel: AddGpuOp(OpCategory::kKernel); break;
    case What::kCopy: AddGpuOp(OpCategory::kOtherCopy); break;
    case What::kMemset: AddGpuOp(OpCategory::kMemset); break;
    case What::kRuntime: AddApiCall(ApiDomain::kRuntime); break;
    case What::kDriver: AddApiCall(ApiDomain::kDriver); break;
    case What::kCpuOp: AddRange(kTorchCpuOpDomain); break;
    case What::kAnnotation: AddRange(kTorchAnnotationDomain); break;
    case What::kSync: AddSync(); break;
    case What::kOther: break;
  }
}

void TorchSax::AddGpuOp(OpCategory category) {
  int32_t device = DeviceOf();
  if (device < 0) {
    ++m_.import_stats["torch_gpu_op_without_device"];
    device = 0;
  }
  int64_t stream = ev_.stream ? *ev_.stream : (ev_.tid.numeric ? ev_.tid.value : -1);
  GpuOps& o = m_.ops;
  MemoryKind src = MemoryKind::kUnknown, dst = MemoryKind::kUnknown;
  int32_t peer = -1;
  if (category == OpCategory::kOtherCopy) {
    CopyShape shape = ParseCopyName(ev_.name);
    if (!shape.parsed) ++m_.import_stats["torch_copy_name_unparsed"];
    category = shape.category;
    src = shape.src;
    dst = shape.dst;
    if (category == OpCategory::kPtoP) {
      std::optional<int64_t> other = ev_.to_device && *ev_.to_device != device ? ev_.to_device : ev_.from_device;
      if (other && *other >= 0 && *other <= INT32_MAX && *other != device) peer = static_cast<int32_t>(*other);
    }
  } else if (category == OpCategory::kMemset) {
    dst = ParseMemsetKind(ev_.name);
  }
  const int64_t start = *ev_.ts, end = *ev_.ts + *ev_.dur;
  o.start_ns.push_back(start);
  o.end_ns.push_back(end);
  o.category.push_back(category);
  o.device_id.push_back(device);
  o.stream.push_back(m_.StreamIndexFor(stream, device));
  o.correlation_id.push_back(ev_.correlation ? *ev_.correlation : -1);
  o.name.push_back(category == OpCategory::kKernel ? m_.strings.Intern(ev_.name) : kNoString);
  o.bytes.push_back(category == OpCategory::kKernel ? 0 : std::max<int64_t>(ev_.bytes.value_or(0), 0));
  o.src_kind.push_back(src);
  o.dst_kind.push_back(dst);
  o.is_async.push_back(0);
  o.peer_device.push_back(peer);
  o.graph_id.push_back(-1);
  o.source_id.push_back(event_index_ - 1);
  KernelShape shape;
  if (category == OpCategory::kKernel) {
    for (int k = 0; k < 3; ++k) {
      shape.grid[k] = ev_.grid[k];
      shape.block[k] = ev_.block[k];
    }
    auto small = [](const std::optional<int64_t>& v) {
      return v && *v >= 0 && *v <= INT32_MAX ? static_cast<int32_t>(*v) : 0;
    };
    shape.registers = small(ev_.registers);
    shape.shared_bytes = small(ev_.shared_memory);
  }
  m_.kernel_shapes.push_back(shape);
  if (!ev_.correlation) {
    pending_.push_back({true, o.size() - 1, ev_.pid.value, ev_.tid.value, start});
  }
}

void TorchSax::AddApiCall(ApiDomain domain) {
  ApiCalls& a = m_.api;
  a.start_ns.push_back(*ev_.ts);
  a.end_ns.push_back(*ev_.ts + *ev_.dur);
  a.tid.push_back(ev_.tid.value);
  a.name.push_back(m_.strings.Intern(ev_.name));
  a.domain.push_back(domain);
  a.cbid.push_back(ev_.cbid && *ev_.cbid >= 0 && *ev_.cbid <= INT32_MAX ? static_cast<int32_t>(*ev_.cbid) : 0);
  a.correlation_id.push_back(ev_.correlation ? *ev_.correlation : -1);
  a.return_value.push_back(0);
  a.source_id.push_back(event_index_ - 1);
  if (ev_.pid.numeric) ++cpu_pids_[ev_.pid.value];
  if (!ev_.correlation) pending_.push_back({false, a.size() - 1, ev_.pid.value, ev_.tid.value, *ev_.ts});
}

void TorchSax::AddRange(std::string_view domain) {
  StringId& id = domain == kTorchCpuOpDomain ? domain_cpu_op_ : domain_annotation_;
  if (id == kNoString) id = m_.strings.Intern(domain);
  NvtxRange r;
  r.name = m_.strings.Intern(ev_.name);
  r.domain = id;
  r.tid = ev_.tid.value;
  r.start_ns = *ev_.ts;
  r.end_ns = *ev_.ts + *ev_.dur;
  r.push_pop = true;
  r.source_id = event_index_ - 1;
  m_.nvtx_ranges.push_back(r);
  if (ev_.pid.numeric) ++cpu_pids_[ev_.pid.value];
}

void TorchSax::AddSync() {
  SyncRecord s;
  s.kind = SyncKindFromText(ev_.sync_kind.empty() ? ev_.name : ev_.sync_kind);
  s.start_ns = *ev_.ts;
  s.end_ns = *ev_.ts + *ev_.dur;
  int32_t device = DeviceOf();
  if (ev_.stream && *ev_.stream >= 0) s.stream = m_.StreamIndexFor(*ev_.stream, std::max(device, 0));
  s.event_id = ev_.wait_event.value_or(-1);
  s.correlation_id = ev_.correlation.value_or(-1);
  s.source_id = event_index_ - 1;
  m_.syncs.push_back(s);
}

// Appends `from` to `to` through `map` and frees `from` at once, so that a
// piece's column and its copy are never both resident for every column.
template <typename T, typename Map>
void MoveColumn(std::vector<T>& to, std::vector<T>& from, Map map) {
  to.reserve(to.size() + from.size());
  for (const T& v : from) to.push_back(map(v));
  std::vector<T>().swap(from);
}
template <typename T>
void MoveColumn(std::vector<T>& to, std::vector<T>& from) {
  MoveColumn(to, from, [](const T& v) { return v; });
}

bool TorchSax::Absorb(TorchSax& part) {
  TraceModel& pm = part.m_;
  if (numeric_ident_in_named_range_ || part.numeric_ident_in_named_range_ ||
      m_.metadata.size() + pm.metadata.size() >= 256) {
    return false;  // rare enough to read again in one piece
  }
  // What the piece numbered by first sight, numbered on from this handler's
  // own: the same numbers one handler reading both would have given.
  std::vector<StringId> strings(pm.strings.size());
  for (size_t i = 0; i < strings.size(); ++i) strings[i] = m_.strings.Intern(pm.strings.Get(static_cast<StringId>(i)));
  auto string = [&](StringId id) { return id < 0 ? id : strings[static_cast<size_t>(id)]; };
  std::vector<int32_t> streams(pm.streams.size());
  for (size_t i = 0; i < streams.size(); ++i) streams[i] = m_.StreamIndexFor(pm.streams[i].id, pm.streams[i].device_id);
  auto stream = [&](int32_t index) { return index < 0 ? index : streams[static_cast<size_t>(index)]; };
  std::vector<std::pair<int64_t, const std::string*>> named;
  for (const auto& [name, id] : part.named_idents_) named.emplace_back(id, &name);
  std::sort(named.begin(), named.end());
  absl::flat_hash_map<int64_t, int64_t> renamed;
  for (const auto& [id, name] : named) {
    auto [it, inserted] = named_idents_.try_emplace(*name, 0);
    if (inserted) it->second = kNamedIdentBase + static_cast<int64_t>(named_idents_.size());
    renamed[id] = it->second;
  }
  auto ident = [&](int64_t v) {
    if (v <= kNamedIdentBase) return v;
    auto it = renamed.find(v);
    return it == renamed.end() ? v : it->second;
  };
  const int64_t events_before = event_index_;
  auto source = [&](int64_t id) { return id + events_before; };
  const size_t ops_before = m_.ops.size(), api_before = m_.api.size();

  GpuOps& o = m_.ops;
  GpuOps& po = pm.ops;
  MoveColumn(o.start_ns, po.start_ns);
  MoveColumn(o.end_ns, po.end_ns);
  MoveColumn(o.category, po.category);
  MoveColumn(o.device_id, po.device_id);
  MoveColumn(o.stream, po.stream, stream);
  MoveColumn(o.correlation_id, po.correlation_id);
  MoveColumn(o.name, po.name, string);
  MoveColumn(o.bytes, po.bytes);
  MoveColumn(o.src_kind, po.src_kind);
  MoveColumn(o.dst_kind, po.dst_kind);
  MoveColumn(o.is_async, po.is_async);
  MoveColumn(o.peer_device, po.peer_device);
  MoveColumn(o.graph_id, po.graph_id);
  MoveColumn(o.source_id, po.source_id, source);
  MoveColumn(m_.kernel_shapes, pm.kernel_shapes);
  ApiCalls& a = m_.api;
  ApiCalls& pa = pm.api;
  MoveColumn(a.start_ns, pa.start_ns);
  MoveColumn(a.end_ns, pa.end_ns);
  MoveColumn(a.tid, pa.tid, ident);
  MoveColumn(a.name, pa.name, string);
  MoveColumn(a.domain, pa.domain);
  MoveColumn(a.cbid, pa.cbid);
  MoveColumn(a.correlation_id, pa.correlation_id);
  MoveColumn(a.return_value, pa.return_value);
  MoveColumn(a.source_id, pa.source_id, source);
  MoveColumn(m_.nvtx_ranges, pm.nvtx_ranges, [&](NvtxRange r) {
    r.name = string(r.name);
    r.domain = string(r.domain);
    r.tid = ident(r.tid);
    r.source_id = source(r.source_id);
    return r;
  });
  MoveColumn(m_.syncs, pm.syncs, [&](SyncRecord x) {
    x.stream = stream(x.stream);
    x.source_id = source(x.source_id);
    return x;
  });
  MoveColumn(pending_, part.pending_, [&](PendingCorrelation x) {
    x.index += x.is_op ? ops_before : api_before;
    x.pid = ident(x.pid);
    x.tid = ident(x.tid);
    return x;
  });
  auto flow = [&](Flow f) {
    f.pid = ident(f.pid);
    f.tid = ident(f.tid);
    return f;
  };
  MoveColumn(flow_starts_, part.flow_starts_, flow);
  MoveColumn(flow_ends_, part.flow_ends_, flow);

  for (const auto& [pid, n] : part.cpu_pids_) cpu_pids_[ident(pid)] += n;
  for (const auto& [pid, name] : part.process_names_) process_names_[ident(pid)] = name;
  for (const auto& [key, name] : part.thread_names_) thread_names_[{ident(key.first), ident(key.second)}] = name;
  for (const auto& [what, n] : part.ignored_) ignored_[what] += n;
  for (const auto& [what, n] : pm.import_stats) m_.import_stats[what] += n;
  for (const auto& [key, value] : pm.metadata) m_.metadata[key] = value;
  for (Device& d : pm.devices) {
    if (m_.FindDevice(d.id) == nullptr) m_.devices.push_back(std::move(d));
  }
  if (!part.generator_.empty()) generator_ = part.generator_;
  if (part.base_set_) {
    base_ns_ = part.base_ns_;
    base_set_ = true;
  }
  if (domain_cpu_op_ == kNoString) domain_cpu_op_ = string(part.domain_cpu_op_);
  if (domain_annotation_ == kNoString) domain_annotation_ = string(part.domain_annotation_);
  recognized_ += part.recognized_;
  event_index_ += part.event_index_;
  return true;
}

void TorchSax::Finish() {
  // Correlation ids from ac2g flows, for events that carried none.
  if (!pending_.empty()) {
    auto key = [](const Flow& f) { return std::make_tuple(f.pid, f.tid, f.ts); };
    std::map<std::tuple<int64_t, int64_t, int64_t>, int64_t> starts, ends;
    for (const Flow& f : flow_starts_) starts.emplace(key(f), f.id);
    for (const Flow& f : flow_ends_) ends.emplace(key(f), f.id);
    int64_t found = 0, ops_without = 0;
    for (const PendingCorrelation& p : pending_) {
      auto& flows = p.is_op ? ends : starts;
      auto it = flows.find({p.pid, p.tid, p.ts});
      if (it == flows.end()) {
        ops_without += p.is_op;
        continue;
      }
      (p.is_op ? m_.ops.correlation_id[p.index] : m_.api.correlation_id[p.index]) = it->second;
      ++found;
    }
    if (found > 0) m_.notes.push_back(absl::StrCat(found, " correlation ids taken from ac2g flow events"));
    if (ops_without > 0) m_.import_stats["torch_gpu_op_without_correlation"] = ops_without;
  }
  std::vector<Flow>().swap(flow_starts_);
  std::vector<Flow>().swap(flow_ends_);

  // Copies and memsets carry no async flag: the submitting call's name does.
  // The first call of a correlation id decides, a later runtime call
  // overrides. Kineto's correlation ids are small and dense: a flat table
  // by id then, a hash map for anything else.
  {
    std::vector<int8_t> name_async;  // by StringId: -1 unknown, else "Async" in the name
    auto is_async = [&](StringId name) {
      if (name < 0) return m_.strings.Get(name).find("Async") != std::string_view::npos;
      if (static_cast<size_t>(name) >= name_async.size()) name_async.resize(static_cast<size_t>(name) + 1, -1);
      int8_t& known = name_async[static_cast<size_t>(name)];
      if (known < 0) known = m_.strings.Get(name).find("Async") != std::string_view::npos ? 1 : 0;
      return known == 1;
    };
    int64_t max_id = -1;
    for (int64_t id : m_.api.correlation_id) max_id = std::max(max_id, id);
    const bool dense = max_id < int64_t{4} * static_cast<int64_t>(m_.api.size() + m_.ops.size()) + 1024;
    std::vector<int8_t> async_by_id;  // dense: -1 no call, else the flag
    absl::flat_hash_map<int64_t, bool> async_by_correlation;
    if (dense) async_by_id.assign(static_cast<size_t>(max_id + 1), -1);
    for (size_t i = 0; i < m_.api.size(); ++i) {
      const int64_t id = m_.api.correlation_id[i];
      if (id < 0) continue;
      const bool async = is_async(m_.api.name[i]);
      if (dense) {
        int8_t& v = async_by_id[static_cast<size_t>(id)];
        if (v < 0 || m_.api.domain[i] == ApiDomain::kRuntime) v = async ? 1 : 0;
        continue;
      }
      auto [it, inserted] = async_by_correlation.try_emplace(id, async);
      if (!inserted && m_.api.domain[i] == ApiDomain::kRuntime) it->second = async;
    }
    for (size_t i = 0; i < m_.ops.size(); ++i) {
      if (m_.ops.category[i] == OpCategory::kKernel) continue;
      const int64_t id = m_.ops.correlation_id[i];
      if (dense) {
        if (id >= 0 && id <= max_id && async_by_id[static_cast<size_t>(id)] >= 0) {
          m_.ops.is_async[i] = static_cast<uint8_t>(async_by_id[static_cast<size_t>(id)]);
        }
        continue;
      }
      auto it = async_by_correlation.find(id);
      if (it != async_by_correlation.end()) m_.ops.is_async[i] = it->second ? 1 : 0;
    }
  }

  // Absolute times: Kineto writes them relative to baseTimeNanoseconds.
  if (base_ns_ != 0) {
    for (int64_t& t : m_.ops.start_ns) t += base_ns_;
    for (int64_t& t : m_.ops.end_ns) t += base_ns_;
    for (int64_t& t : m_.api.start_ns) t += base_ns_;
    for (int64_t& t : m_.api.end_ns) t += base_ns_;
    for (NvtxRange& r : m_.nvtx_ranges) {
      r.start_ns += base_ns_;
      if (r.end_ns) *r.end_ns += base_ns_;
    }
    for (SyncRecord& s : m_.syncs) {
      s.start_ns += base_ns_;
      s.end_ns += base_ns_;
    }
  }

  // Range depth per thread and domain (Kineto's CPU ops nest properly on a
  // thread; outer first when two start together).
  {
    // The sort keys inline (not an index sorted through the ranges): at 1M
    // ranges this sort took 5% of `report`'s CPU time through the indirection.
    struct Order {
      int64_t tid;
      int32_t domain;
      uint32_t index;
      int64_t start_ns, neg_end_ns;
      bool operator<(const Order& o) const {
        return std::tie(tid, domain, start_ns, neg_end_ns, index) <
               std::tie(o.tid, o.domain, o.start_ns, o.neg_end_ns, o.index);
      }
    };
    std::vector<Order> order(m_.nvtx_ranges.size());
    for (size_t i = 0; i < order.size(); ++i) {
      const NvtxRange& x = m_.nvtx_ranges[i];
      order[i] = {x.tid, x.domain, static_cast<uint32_t>(i), x.start_ns, -*x.end_ns};
    }
    if (!std::is_sorted(order.begin(), order.end())) std::sort(order.begin(), order.end());
    std::vector<int64_t> open_ends;
    for (size_t k = 0; k < order.size(); ++k) {
      const Order& o = order[k];
      if (k == 0 || o.tid != order[k - 1].tid || o.domain != order[k - 1].domain) open_ends.clear();
      while (!open_ends.empty() && open_ends.back() <= o.start_ns) open_ends.pop_back();
      m_.nvtx_ranges[o.index].depth = static_cast<int32_t>(open_ends.size());
      open_ends.push_back(-o.neg_end_ns);
    }
  }

  // The process: the pid of the CPU-side events (one per trace file).
  if (!cpu_pids_.empty()) {
    auto best = std::max_element(cpu_pids_.begin(), cpu_pids_.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
    m_.pid = best->first;
    if (cpu_pids_.size() > 1) {
      m_.notes.push_back(absl::StrCat("CPU events of ", cpu_pids_.size(),
                                      " processes in one trace: analyzed together as pid ", m_.pid));
    }
  }
  if (auto it = process_names_.find(m_.pid); it != process_names_.end()) m_.metadata["process_name"] = it->second;
  for (const auto& [key, name] : thread_names_) {
    if (cpu_pids_.count(key.first) > 0) m_.thread_names[key.second] = name;
  }

  // Devices that ran ops but were not described.
  for (int32_t d : m_.ops.device_id) {
    if (m_.FindDevice(d) == nullptr) {
      Device dev;
      dev.id = d;
      m_.devices.push_back(dev);
    }
  }
  std::sort(m_.devices.begin(), m_.devices.end(), [](const Device& a, const Device& b) { return a.id < b.id; });

  m_.format = "torch-profiler";
  m_.metadata["trace_format"] = "torch-profiler";
  m_.metadata["pid"] = absl::StrCat(m_.pid);
  m_.metadata["clock_domain"] = "kineto";
  m_.metadata["base_time_ns"] = absl::StrCat(base_ns_);
  m_.notes.push_back(
      "torch.profiler trace: stream kinds (legacy default, blocking) are not recorded; "
      "copy engines and concurrent-kernel support are unknown");
  if (m_.syncs.empty()) {
    m_.notes.push_back(
        "no cuda_sync events (torch.profiler records them only with "
        "experimental_config enable_cuda_sync_events): explicit syncs not itemized");
  }
  if (m_.nvtx_ranges.empty()) m_.notes.push_back("no CPU ops or user annotations: operator attribution unavailable");
  for (const auto& [what, count] : ignored_) {
    m_.notes.push_back(absl::StrCat(count, " events of ", what, " not imported"));
  }
}

// The checks after a complete parse, the same for both parsers.
absl::StatusOr<TraceModel> Conclude(TraceModel& model, TorchSax& sax, const std::string& label) {
  if (sax.generator().starts_with("streamscope")) {
    return absl::InvalidArgumentError(
        absl::StrCat(label, ": a timeline written by ", sax.generator(),
                     " (export --perfetto), not a torch.profiler trace: analyze the trace it was exported from"));
  }
  if (!sax.saw_events()) {
    return absl::InvalidArgumentError(
        absl::StrCat(label,
                     ": JSON, but not a Chrome trace: no traceEvents array (a torch.profiler trace "
                     "comes from prof.export_chrome_trace or tensorboard_trace_handler)"));
  }
  if (sax.recognized() == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(label, ": a Chrome trace with ", sax.event_count(),
                     " events, but none is a kernel, copy, memset, CUDA call or CPU op of a torch.profiler trace"));
  }
  sax.Finish();
  if (model.ops.size() == 0 && model.api.size() == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(label, ": a torch.profiler trace without CUDA activity (", model.nvtx_ranges.size(),
                     " CPU ops and annotations, no kernel, copy, memset or CUDA call): record with "
                     "activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]"));
  }
  model.path = label;
  return std::move(model);
}

// nlohmann's SAX parser over a stream: the reference, used where the fast
// reader finds the input malformed, so that every error reads as before.
absl::StatusOr<TraceModel> ParseWithReference(std::istream& in, const std::string& label, const GzInput* gz) {
  TraceModel model;
  TorchSax sax(&model);
  bool ok = false;
  try {
    ok = Json::sax_parse(in, &sax, Json::input_format_t::json, /*strict=*/true, /*ignore_comments=*/false);
  } catch (const std::exception& e) {
    return absl::DataLossError(absl::StrCat(label, ": cannot read the torch.profiler trace: ", e.what()));
  }
  if (gz != nullptr && !gz->error().empty()) {
    return absl::DataLossError(absl::StrCat(label, ": gzip data is damaged or truncated after ", gz->bytes_read(),
                                            " bytes (zlib: ", gz->error(), ")"));
  }
  if (!ok) {
    std::string why = sax.error().empty() ? "malformed JSON" : sax.error();
    return absl::DataLossError(absl::StrCat(label, ": not a complete JSON trace (truncated or damaged): ", why));
  }
  return Conclude(model, sax, label);
}

// The fast path (torch_json_reader.h). nullopt where the input is not
// well-formed JSON or its gzip data is damaged: the caller reparses with
// the reference parser, which words the error.
std::optional<absl::StatusOr<TraceModel>> ParseFast(JsonByteSource& source, const std::string& label, const GzInput* gz,
                                                    int64_t size_hint) {
  TraceModel model;
  TorchSax sax(&model);
  if (size_hint > 0) sax.Reserve(size_hint);
  TorchJsonReader<TorchSax> reader(source, sax);
  if (!reader.Parse()) return std::nullopt;
  if (gz != nullptr && !gz->error().empty()) return std::nullopt;
  return Conclude(model, sax, label);
}

// Where a mapped document may be cut into `pieces`: near equal shares, each
// at the first byte of a line that opens an object after a line ending in
// ',' (how Kineto and the usual writers lay out the event list). A guess:
// ParseInPieces proves each point an event's start or gives up.
std::vector<const char*> PieceStarts(std::string_view doc, size_t pieces) {
  constexpr size_t kSearch = size_t{4} << 20;  // past a huge event, fewer pieces
  std::vector<const char*> starts;
  const char* const begin = doc.data();
  const char* const end = begin + doc.size();
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  for (size_t k = 1; k < pieces; ++k) {
    const char* p = begin + doc.size() / pieces * k;
    if (!starts.empty() && p <= starts.back()) p = starts.back() + 1;
    const char* const limit = std::min(end, p + kSearch);
    while (p < limit) {
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(limit - p)));
      if (nl == nullptr) break;
      const char* before = nl;
      while (before > begin && blank(before[-1])) --before;
      const char* after = nl + 1;
      while (after < end && blank(*after)) ++after;
      if (before > begin && before[-1] == ',' && after < end && *after == '{') {
        starts.push_back(after);
        break;
      }
      p = nl + 1;
    }
  }
  return starts;
}

// A large mapped trace parsed in pieces on threads of their own, then merged
// in file order (TorchSax::Absorb): the model one pass would build. nullopt
// when the file is too small to be worth it, or where a piece does not start
// or end between two events of the event list, or on any error: the caller
// then parses in one pass (which words any error).
std::optional<absl::StatusOr<TraceModel>> ParseInPieces(MappedInput& mapped, const std::string& label,
                                                        const TorchPieceOptions& options) {
  const std::string_view doc = mapped.Whole();
  const char* threads_env = std::getenv("STREAMSCOPE_THREADS");
  if (threads_env != nullptr && std::string_view(threads_env) == "1") return std::nullopt;
  size_t pieces = options.pieces > 0 ? static_cast<size_t>(options.pieces)
                                     : std::min<size_t>(8, std::max(std::thread::hardware_concurrency(), 1u));
  if (options.min_piece_bytes > 0) {
    pieces = std::min<size_t>(pieces, doc.size() / static_cast<size_t>(options.min_piece_bytes));
  }
  if (pieces < 2) return std::nullopt;
  const std::vector<const char*> starts = PieceStarts(doc, pieces);
  if (starts.empty()) return std::nullopt;
  const size_t n = starts.size() + 1;
  std::vector<TraceModel> models(n);
  std::vector<std::unique_ptr<TorchSax>> handlers;
  for (TraceModel& m : models) handlers.push_back(std::make_unique<TorchSax>(&m));
  std::vector<char> ok(n, 0);
  auto piece_end = [&](size_t i) { return i + 1 < n ? starts[i] : doc.data() + doc.size(); };
  std::vector<std::thread> threads;
  for (size_t i = 1; i < n; ++i) {
    threads.emplace_back([&, i] {
      TorchSax& sax = *handlers[i];
      sax.StartInEventList();
      sax.Reserve(piece_end(i) - starts[i - 1]);
      std::unique_ptr<JsonByteSource> source = mapped.Piece(starts[i - 1]);
      TorchJsonReader<TorchSax> reader(*source, sax);
      const bool last = i + 1 == n;
      if (!last) reader.StopAt(starts[i]);
      ok[i] = reader.ParseElementsFrom(starts[i - 1]) && reader.stopped() != last && (last || sax.InEventList());
    });
  }
  {
    TorchSax& sax = *handlers[0];
    sax.Reserve(static_cast<int64_t>(doc.size()));  // it takes every piece's events
    TorchJsonReader<TorchSax> reader(mapped, sax);
    reader.StopAt(starts[0]);
    ok[0] = reader.Parse() && reader.stopped() && sax.InEventList();
  }
  for (std::thread& t : threads) t.join();
  for (size_t i = 0; i < n; ++i) {
    if (!ok[i]) return std::nullopt;
  }
  for (size_t i = 1; i < n; ++i) {
    if (!handlers[0]->Absorb(*handlers[i])) return std::nullopt;
    handlers[i].reset();
    models[i] = TraceModel();
  }
  if (options.pieces_parsed != nullptr) *options.pieces_parsed = static_cast<int>(n);
  return Conclude(models[0], *handlers[0], label);
}

// The size of a file that is not gzip-compressed; 0 if it is, or unknown.
int64_t PlainFileSize(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[2] = {};
  if (!in.read(magic, 2) || (magic[0] == '\x1f' && magic[1] == '\x8b')) return 0;
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  return size > 0 ? static_cast<int64_t>(size) : 0;
}

class GzSource : public JsonByteSource {
 public:
  explicit GzSource(GzInput& in) : in_(in) {}
  size_t Read(char* dst, size_t n) override { return in_.Read(dst, n); }

 private:
  GzInput& in_;
};

absl::StatusOr<TraceModel> ImportWithReference(const std::string& path) {
  auto gz = GzInput::Open(path);
  if (!gz.ok()) return gz.status();
  std::istream in(gz->get());
  // Skip a UTF-8 byte order mark, which the JSON parser would reject.
  if (in.peek() == 0xEF) {
    char bom[3] = {};
    in.read(bom, 3);
    if (std::string_view(bom, 3) != "\xEF\xBB\xBF") {
      return absl::DataLossError(absl::StrCat(path, ": not a JSON trace (bad byte order mark)"));
    }
  }
  auto model = ParseWithReference(in, path, gz->get());
  if (model.ok() && (*gz)->compressed()) model->metadata["compressed"] = "gzip";
  return model;
}

}  // namespace

bool LooksLikeTorchTrace(const std::string& path) {
  std::string head = PeekDecompressed(path, 256);
  size_t i = 0;
  if (head.compare(0, 3, "\xEF\xBB\xBF") == 0) i = 3;  // UTF-8 byte order mark
  while (i < head.size() && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t')) ++i;
  return i < head.size() && (head[i] == '{' || head[i] == '[');
}

absl::StatusOr<TraceModel> ImportTorchTraceStream(std::istream& in, const std::string& label) {
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  JsonMemorySource source(text);
  if (auto model = ParseFast(source, label, nullptr, 0)) return *std::move(model);
  std::istringstream again(text);
  return ParseWithReference(again, label, nullptr);
}

absl::StatusOr<TraceModel> ImportTorchTrace(const std::string& path) { return ImportTorchTrace(path, {}); }

absl::StatusOr<TraceModel> ImportTorchTrace(const std::string& path, const TorchPieceOptions& pieces) {
  // A plain file: scanned in place, mapped; a large one in pieces.
  if (pieces.pieces_parsed != nullptr) *pieces.pieces_parsed = 1;
  if (auto mapped = MappedInput::Open(path)) {
    if (auto model = ParseInPieces(*mapped, path, pieces)) return *std::move(model);
    const int64_t size = static_cast<int64_t>(mapped->Whole().size());
    if (auto model = ParseFast(*mapped, path, nullptr, size)) return *std::move(model);
    return ImportWithReference(path);
  }
  {
    auto gz = GzInput::Open(path);
    if (!gz.ok()) return gz.status();
    GzSource source(**gz);
    // A plain file's size sizes the model; a gzip one's is unknown.
    const int64_t size_hint = PlainFileSize(path);
    if (auto model = ParseFast(source, path, gz->get(), size_hint)) {
      if (model->ok() && (*gz)->compressed()) (*model)->metadata["compressed"] = "gzip";
      return *std::move(model);
    }
  }
  return ImportWithReference(path);
}

}  // namespace streamscope
