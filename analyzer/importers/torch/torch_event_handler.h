// The torch.profiler importer's SAX handler: maps the events of a Kineto
// Chrome trace (analyzer/TORCH.md "What is mapped") onto a TraceModel as
// the reader (torch_json_reader.h) or nlohmann's parser hands them over,
// keeping only the fields the mapping uses. Finish() then derives what
// needs every event (correlations from flows, async flags, base time,
// range depths, the process); Absorb() merges the handler of a later piece
// of the same file (torch_trace_importer.cc parses large files in pieces).
//
// Internal to the importer. Not thread-safe: one handler per thread.
#ifndef STREAMSCOPE_ANALYZER_IMPORTERS_TORCH_EVENT_HANDLER_H_
#define STREAMSCOPE_ANALYZER_IMPORTERS_TORCH_EVENT_HANDLER_H_

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analyzer/importers/model_column_reserve.h"
#include "analyzer/importers/torch/torch_json_number.h"
#include "analyzer/model/trace_model.h"
#include "nlohmann/json.hpp"

namespace streamscope::torch_import_internal {

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

inline Key EventKey(std::string_view k) {
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

inline Key ArgKey(std::string_view k) {
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

inline Key DeviceKey(std::string_view k) {
  if (k == "id") return Key::kDevId;
  if (k == "name") return Key::kDevName;
  if (k == "totalGlobalMem") return Key::kDevMemory;
  if (k == "computeMajor") return Key::kDevMajor;
  if (k == "computeMinor") return Key::kDevMinor;
  if (k == "numSms") return Key::kDevSms;
  return Key::kOther;
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

}  // namespace streamscope::torch_import_internal

#endif  // STREAMSCOPE_ANALYZER_IMPORTERS_TORCH_EVENT_HANDLER_H_
