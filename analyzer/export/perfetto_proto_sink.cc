#include "analyzer/export/perfetto_proto_sink.h"

#include <algorithm>

#include "analyzer/export/text_escape.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/wire_format_lite.h"

namespace streamscope {

namespace pp = perfetto::protos;
using google::protobuf::io::CodedOutputStream;

namespace {

constexpr uint32_t kSequenceId = 1;
constexpr uint32_t kTracePacketTag = (1 << 3) | 2;  // Trace.packet, length-delimited
constexpr uint32_t kTrackEventField = 11;            // TracePacket.track_event
constexpr uint32_t kTrackDescriptorField = 60;       // TracePacket.track_descriptor
enum InternKind { kName, kCategory, kKey, kValue };

// Trace text (kernel names, NVTX messages) may hold bytes that are not UTF-8;
// Perfetto's string fields must be UTF-8: invalid bytes become U+FFFD, as in
// the JSON export.
std::string Utf8(std::string_view s) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    int n = Utf8SequenceLength(s.substr(i));
    if (n == 0) break;
    i += static_cast<size_t>(n);
  }
  if (i == s.size()) return std::string(s);
  out.assign(s.substr(0, i));
  while (i < s.size()) {
    int n = Utf8SequenceLength(s.substr(i));
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s.substr(i, static_cast<size_t>(n)));
      i += static_cast<size_t>(n);
    }
  }
  return out;
}

}  // namespace

PerfettoProtoSink::PerfettoProtoSink(OutputFile* out, int64_t ts_base_ns) : out_(out), base_(ts_base_ns) {}

uint64_t PerfettoProtoSink::Intern(absl::flat_hash_map<std::string, uint64_t>& table, std::string_view s,
                                   int kind) {
  auto it = table.find(absl::string_view(s.data(), s.size()));  // Debian's absl has its own string_view
  if (it != table.end()) return it->second;
  uint64_t iid = table.size() + 1;  // 0 means "not set"
  table.emplace(std::string(s), iid);
  has_pending_ = true;
  switch (kind) {
    case kName: {
      pp::EventName* e = pending_.add_event_names();
      e->set_iid(iid);
      e->set_name(Utf8(s));
      break;
    }
    case kCategory: {
      pp::EventCategory* e = pending_.add_event_categories();
      e->set_iid(iid);
      e->set_name(Utf8(s));
      break;
    }
    case kKey: {
      pp::DebugAnnotationName* e = pending_.add_debug_annotation_names();
      e->set_iid(iid);
      e->set_name(Utf8(s));
      break;
    }
    default: {
      pp::InternedString* e = pending_.add_debug_annotation_string_values();
      e->set_iid(iid);
      e->set_str(Utf8(s));
      break;
    }
  }
  return iid;
}

uint64_t PerfettoProtoSink::EventName(std::string_view name) { return Intern(names_, name, kName); }
uint64_t PerfettoProtoSink::Category(std::string_view name) { return Intern(categories_, name, kCategory); }
uint64_t PerfettoProtoSink::AnnotationName(std::string_view name) { return Intern(keys_, name, kKey); }
uint64_t PerfettoProtoSink::StringValue(std::string_view value) { return Intern(values_, value, kValue); }

void PerfettoProtoSink::WritePacket(bool has_ts, uint64_t ts, bool uses_interning,
                                    const google::protobuf::MessageLite& payload, uint32_t payload_field) {
  using WF = google::protobuf::internal::WireFormatLite;
  uint32_t flags = 0;
  if (packets_ == 0) {
    flags = pp::TracePacket::SEQ_INCREMENTAL_STATE_CLEARED;
  } else if (uses_interning || has_pending_) {
    flags = pp::TracePacket::SEQ_NEEDS_INCREMENTAL_STATE;
  }
  size_t interned = has_pending_ ? pending_.ByteSizeLong() : 0;
  size_t body = payload.ByteSizeLong();
  const uint32_t payload_tag = WF::MakeTag(payload_field, WF::WIRETYPE_LENGTH_DELIMITED);
  size_t size = 0;
  if (has_ts) size += 1 + CodedOutputStream::VarintSize64(ts);
  size += 2;  // trusted_packet_sequence_id = 1
  if (flags != 0) size += 2;
  if (packets_ == 0) size += 3;  // first_packet_on_sequence = true (tag 87: 2 bytes)
  if (has_pending_) size += 1 + CodedOutputStream::VarintSize64(interned) + interned;
  size += CodedOutputStream::VarintSize32(payload_tag) + CodedOutputStream::VarintSize64(body) + body;

  frame_.resize(size + 10);
  auto* begin = reinterpret_cast<uint8_t*>(frame_.data());
  uint8_t* p = CodedOutputStream::WriteVarint32ToArray(kTracePacketTag, begin);
  p = CodedOutputStream::WriteVarint32ToArray(static_cast<uint32_t>(size), p);
  if (has_ts) {
    p = CodedOutputStream::WriteVarint32ToArray(WF::MakeTag(8, WF::WIRETYPE_VARINT), p);
    p = CodedOutputStream::WriteVarint64ToArray(ts, p);
  }
  p = CodedOutputStream::WriteVarint32ToArray(WF::MakeTag(10, WF::WIRETYPE_VARINT), p);
  p = CodedOutputStream::WriteVarint32ToArray(kSequenceId, p);
  if (flags != 0) {
    p = CodedOutputStream::WriteVarint32ToArray(WF::MakeTag(13, WF::WIRETYPE_VARINT), p);
    p = CodedOutputStream::WriteVarint32ToArray(flags, p);
  }
  if (packets_ == 0) {
    p = CodedOutputStream::WriteVarint32ToArray(WF::MakeTag(87, WF::WIRETYPE_VARINT), p);
    p = CodedOutputStream::WriteVarint32ToArray(1, p);
  }
  if (has_pending_) {
    p = CodedOutputStream::WriteVarint32ToArray(WF::MakeTag(12, WF::WIRETYPE_LENGTH_DELIMITED), p);
    p = CodedOutputStream::WriteVarint64ToArray(interned, p);
    p = pending_.SerializeWithCachedSizesToArray(p);
    pending_.Clear();
    has_pending_ = false;
  }
  p = CodedOutputStream::WriteVarint32ToArray(payload_tag, p);
  p = CodedOutputStream::WriteVarint64ToArray(body, p);
  p = payload.SerializeWithCachedSizesToArray(p);
  out_->Write(std::string_view(frame_.data(), static_cast<size_t>(p - begin)));
  ++packets_;
}

uint64_t PerfettoProtoSink::ProcessTrack(int64_t pid, std::string_view name) {
  uint64_t uuid = next_uuid_++;
  track_.Clear();
  track_.set_uuid(uuid);
  track_.mutable_process()->set_pid(static_cast<int32_t>(pid));
  track_.mutable_process()->set_process_name(Utf8(name));
  WritePacket(false, 0, false, track_, kTrackDescriptorField);
  return uuid;
}

uint64_t PerfettoProtoSink::ThreadTrack(uint64_t process_uuid, int64_t pid, int64_t tid, std::string_view name) {
  uint64_t uuid = next_uuid_++;
  track_.Clear();
  track_.set_uuid(uuid);
  track_.set_parent_uuid(process_uuid);
  track_.set_name(Utf8(name));
  track_.mutable_thread()->set_pid(static_cast<int32_t>(pid));
  track_.mutable_thread()->set_tid(static_cast<int32_t>(tid));
  track_.mutable_thread()->set_thread_name(Utf8(name));
  WritePacket(false, 0, false, track_, kTrackDescriptorField);
  return uuid;
}

uint64_t PerfettoProtoSink::NamedTrack(uint64_t parent_uuid, std::string_view name) {
  uint64_t uuid = next_uuid_++;
  track_.Clear();
  track_.set_uuid(uuid);
  if (parent_uuid != 0) track_.set_parent_uuid(parent_uuid);
  track_.set_name(Utf8(name));
  WritePacket(false, 0, false, track_, kTrackDescriptorField);
  return uuid;
}

pp::TrackEvent& PerfettoProtoSink::NewEvent(pp::TrackEvent::Type type, uint64_t track) {
  event_.Clear();
  event_.set_type(type);
  event_.set_track_uuid(track);
  return event_;
}

void PerfettoProtoSink::EndSlice(uint64_t track, int64_t end_ns) {
  WritePacket(true, Ts(end_ns), false, NewEvent(pp::TrackEvent::TYPE_SLICE_END, track), kTrackEventField);
}

void PerfettoProtoSink::EndSlicesUntil(uint64_t track, int64_t ts_ns) {
  if (track >= open_ends_.size()) open_ends_.resize(track + 1);
  std::vector<int64_t>& open = open_ends_[track];
  while (!open.empty() && open.back() <= ts_ns) {
    int64_t end = open.back();
    open.pop_back();
    EndSlice(track, end);
  }
}

pp::TrackEvent* PerfettoProtoSink::StartSlice(uint64_t track, int64_t start_ns, int64_t end_ns, uint64_t name_iid,
                                              uint64_t category_iid) {
  EndSlicesUntil(track, start_ns);
  pp::TrackEvent& e = NewEvent(pp::TrackEvent::TYPE_SLICE_BEGIN, track);
  e.set_name_iid(name_iid);
  e.add_category_iids(category_iid);
  event_track_ = track;
  event_ts_ns_ = start_ns;
  event_end_ns_ = std::max(start_ns, end_ns);
  event_is_slice_ = true;
  return &e;
}

pp::TrackEvent* PerfettoProtoSink::StartInstant(uint64_t track, int64_t ts_ns, uint64_t name_iid,
                                                uint64_t category_iid) {
  pp::TrackEvent& e = NewEvent(pp::TrackEvent::TYPE_INSTANT, track);
  e.set_name_iid(name_iid);
  e.add_category_iids(category_iid);
  event_track_ = track;
  event_ts_ns_ = ts_ns;
  event_is_slice_ = false;
  return &e;
}

void PerfettoProtoSink::Commit() {
  WritePacket(true, Ts(event_ts_ns_), true, event_, kTrackEventField);
  if (event_is_slice_) open_ends_[event_track_].push_back(event_end_ns_);
  event_is_slice_ = false;
}

void PerfettoProtoSink::Int(uint64_t key_iid, int64_t v) {
  pp::DebugAnnotation* a = event_.add_debug_annotations();
  a->set_name_iid(key_iid);
  a->set_int_value(v);
}

void PerfettoProtoSink::Bool(uint64_t key_iid, bool v) {
  pp::DebugAnnotation* a = event_.add_debug_annotations();
  a->set_name_iid(key_iid);
  a->set_bool_value(v);
}

void PerfettoProtoSink::Str(uint64_t key_iid, std::string_view v) {
  pp::DebugAnnotation* a = event_.add_debug_annotations();
  a->set_name_iid(key_iid);
  a->set_string_value(Utf8(v));
}

void PerfettoProtoSink::InternedStr(uint64_t key_iid, std::string_view v) {
  uint64_t value = StringValue(v);
  pp::DebugAnnotation* a = event_.add_debug_annotations();
  a->set_name_iid(key_iid);
  a->set_string_value_iid(value);
}

void PerfettoProtoSink::Ints(uint64_t key_iid, std::initializer_list<int64_t> v) {
  pp::DebugAnnotation* a = event_.add_debug_annotations();
  a->set_name_iid(key_iid);
  for (int64_t x : v) a->add_array_values()->set_int_value(x);
}

namespace {

bool SetScalar(pp::DebugAnnotation* a, const nlohmann::json& v) {
  if (v.is_boolean()) {
    a->set_bool_value(v.get<bool>());
  } else if (v.is_number_unsigned()) {
    a->set_uint_value(v.get<uint64_t>());
  } else if (v.is_number_integer()) {
    a->set_int_value(v.get<int64_t>());
  } else if (v.is_number_float()) {
    a->set_double_value(v.get<double>());
  } else if (v.is_string()) {
    a->set_string_value(Utf8(v.get_ref<const std::string&>()));
  } else {
    return false;
  }
  return true;
}

}  // namespace

void PerfettoProtoSink::Json(std::string_view key, const nlohmann::json& v, bool intern) {
  uint64_t key_iid = AnnotationName(key);
  if (intern && v.is_string()) {
    InternedStr(key_iid, v.get_ref<const std::string&>());
    return;
  }
  pp::DebugAnnotation* a = event_.add_debug_annotations();
  a->set_name_iid(key_iid);
  if (SetScalar(a, v)) return;
  bool scalars = v.is_array() && std::all_of(v.begin(), v.end(), [](const nlohmann::json& x) {
    return x.is_primitive() && !x.is_null();
  });
  if (scalars) {
    for (const nlohmann::json& x : v) SetScalar(a->add_array_values(), x);
  } else {
    a->set_legacy_json_value(v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  }
}

absl::Status PerfettoProtoSink::Finish() {
  for (size_t track = 0; track < open_ends_.size(); ++track) {
    EndSlicesUntil(track, INT64_MAX);
  }
  return out_->Commit();
}

}  // namespace streamscope
