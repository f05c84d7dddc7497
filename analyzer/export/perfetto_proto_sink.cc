#include "analyzer/export/perfetto_proto_sink.h"

#include <algorithm>
#include <cstring>

#include "analyzer/export/text_escape.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/wire_format_lite.h"

namespace streamscope {

namespace pp = perfetto::protos;
using google::protobuf::io::CodedOutputStream;

namespace {

constexpr uint32_t kTracePacketTag = (1 << 3) | 2;  // Trace.packet, length-delimited
constexpr uint32_t kTrackEventField = 11;           // TracePacket.track_event

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

PerfettoProtoSink::PerfettoProtoSink(ByteOutput* out, int64_t ts_base_ns, Ids ids)
    : out_(out),
      base_(ts_base_ns),
      next_uuid_(ids.first_uuid),
      descriptor_sequence_(ids.descriptor_sequence),
      next_sequence_(ids.first_sequence),
      sequence_stride_(ids.sequence_stride),
      continues_sequence_(ids.continues_sequence) {
  end_event_.set_type(pp::TrackEvent::TYPE_SLICE_END);  // track and time come from the sequence
}

uint64_t PerfettoProtoSink::Intern(InternKind kind, std::string_view s) {
  Table& t = tables_[kind];
  auto it = t.iids.find(absl::string_view(s.data(), s.size()));  // Debian's absl has its own string_view
  if (it != t.iids.end()) return it->second;
  uint64_t iid = t.strings.size() + 1;  // 0 means "not set"
  const std::string& kept = t.strings.emplace_back(s);
  t.iids.emplace(absl::string_view(kept.data(), kept.size()), iid);
  return iid;
}

uint64_t PerfettoProtoSink::EventName(std::string_view name) { return Intern(kName, name); }
uint64_t PerfettoProtoSink::Category(std::string_view name) { return Intern(kCategory, name); }
uint64_t PerfettoProtoSink::AnnotationName(std::string_view name) { return Intern(kKey, name); }
uint64_t PerfettoProtoSink::StringValue(std::string_view value) { return Intern(kValue, value); }

PerfettoProtoSink::Sequence& PerfettoProtoSink::SequenceOf(uint64_t track) { return sequences_[track]; }

uint64_t PerfettoProtoSink::Local(InternKind kind, uint64_t id) {
  absl::flat_hash_map<uint64_t, uint64_t>& iids = event_sequence_->iids[kind];
  auto [it, added] = iids.emplace(id, iids.size() + 1);
  if (!added) return it->second;
  uint64_t iid = it->second;
  std::string text = Utf8(tables_[kind].strings[id - 1]);
  has_pending_ = true;
  switch (kind) {
    case kName: {
      pp::EventName* e = pending_.add_event_names();
      e->set_iid(iid);
      e->set_name(std::move(text));
      break;
    }
    case kCategory: {
      pp::EventCategory* e = pending_.add_event_categories();
      e->set_iid(iid);
      e->set_name(std::move(text));
      break;
    }
    case kKey: {
      pp::DebugAnnotationName* e = pending_.add_debug_annotation_names();
      e->set_iid(iid);
      e->set_name(std::move(text));
      break;
    }
    default: {
      pp::InternedString* e = pending_.add_debug_annotation_string_values();
      e->set_iid(iid);
      e->set_str(std::move(text));
      break;
    }
  }
  return iid;
}

void PerfettoProtoSink::WriteMessagePacket(const pp::TracePacket& packet) {
  std::string bytes = packet.SerializeAsString();
  uint8_t header[10];
  uint8_t* p = CodedOutputStream::WriteVarint32ToArray(kTracePacketTag, header);
  p = CodedOutputStream::WriteVarint32ToArray(static_cast<uint32_t>(bytes.size()), p);
  out_->Write(std::string_view(reinterpret_cast<const char*>(header), static_cast<size_t>(p - header)));
  out_->Write(bytes);
  ++packets_;
}

void PerfettoProtoSink::OpenSequence(uint64_t track, Sequence& seq) {
  seq.id = next_sequence_;
  next_sequence_ += sequence_stride_;
  const bool first_on_sequence = !continues_sequence_;
  continues_sequence_ = false;
  seq.last_ts = 0;
  pp::TracePacket p;
  p.set_timestamp(0);
  p.set_timestamp_clock_id(kBootTimeClock);  // not the clock it defines
  p.set_trusted_packet_sequence_id(seq.id);
  p.set_sequence_flags(pp::TracePacket::SEQ_INCREMENTAL_STATE_CLEARED);
  if (first_on_sequence) p.set_first_packet_on_sequence(true);
  pp::TracePacketDefaults* defaults = p.mutable_trace_packet_defaults();
  defaults->set_timestamp_clock_id(kIncrementalClock);
  defaults->mutable_track_event_defaults()->set_track_uuid(track);
  // Both clocks read 0 (the base) at the snapshot: the incremental clock
  // counts nanoseconds from there. Always 0: sequences open in file order,
  // not time order, and so no reader sees BOOTTIME go back from one
  // snapshot to the next (trace_processor drops such a snapshot when it
  // holds the same clocks as an earlier one).
  pp::ClockSnapshot* clocks = p.mutable_clock_snapshot();
  pp::ClockSnapshot::Clock* boot = clocks->add_clocks();
  boot->set_clock_id(kBootTimeClock);
  boot->set_timestamp(0);
  pp::ClockSnapshot::Clock* incremental = clocks->add_clocks();
  incremental->set_clock_id(kIncrementalClock);
  incremental->set_timestamp(0);
  incremental->set_is_incremental(true);
  WriteMessagePacket(p);
}

void PerfettoProtoSink::WriteEventPacket(Sequence& seq, uint64_t ts, const pp::TrackEvent& event, bool interned) {
  using WF = google::protobuf::internal::WireFormatLite;
  // A delta on the sequence's incremental clock, or (going back in time) an
  // absolute BOOTTIME value that leaves the incremental clock where it was.
  bool delta = ts >= seq.last_ts;
  uint64_t stamp = delta ? ts - seq.last_ts : ts;
  if (delta) seq.last_ts = ts;
  size_t interned_size = interned ? pending_.ByteSizeLong() : 0;
  size_t body = event.ByteSizeLong();
  constexpr size_t kHeaderRoom = 6;  // Trace.packet tag + length varint
  frame_.resize(kHeaderRoom + 48 + interned_size + body);
  auto* start = reinterpret_cast<uint8_t*>(frame_.data()) + kHeaderRoom;
  uint8_t* p = CodedOutputStream::WriteVarint32ToArray(WF::MakeTag(8, WF::WIRETYPE_VARINT), start);  // timestamp
  p = CodedOutputStream::WriteVarint64ToArray(stamp, p);
  if (!delta) {
    p = CodedOutputStream::WriteVarint32ToArray(WF::MakeTag(58, WF::WIRETYPE_VARINT), p);  // timestamp_clock_id
    p = CodedOutputStream::WriteVarint32ToArray(kBootTimeClock, p);
  }
  p = CodedOutputStream::WriteVarint32ToArray(WF::MakeTag(10, WF::WIRETYPE_VARINT), p);  // trusted_packet_sequence_id
  p = CodedOutputStream::WriteVarint32ToArray(seq.id, p);
  p = CodedOutputStream::WriteVarint32ToArray(WF::MakeTag(13, WF::WIRETYPE_VARINT), p);  // sequence_flags
  p = CodedOutputStream::WriteVarint32ToArray(pp::TracePacket::SEQ_NEEDS_INCREMENTAL_STATE, p);
  if (interned) {
    p = CodedOutputStream::WriteVarint32ToArray(WF::MakeTag(12, WF::WIRETYPE_LENGTH_DELIMITED), p);  // interned_data
    p = CodedOutputStream::WriteVarint64ToArray(interned_size, p);
    p = pending_.SerializeWithCachedSizesToArray(p);
    pending_.Clear();
    has_pending_ = false;
  }
  p = CodedOutputStream::WriteVarint32ToArray(WF::MakeTag(kTrackEventField, WF::WIRETYPE_LENGTH_DELIMITED), p);
  p = CodedOutputStream::WriteVarint64ToArray(body, p);
  p = event.SerializeWithCachedSizesToArray(p);
  auto size = static_cast<uint32_t>(p - start);
  uint8_t header[kHeaderRoom];
  uint8_t* h = CodedOutputStream::WriteVarint32ToArray(kTracePacketTag, header);
  h = CodedOutputStream::WriteVarint32ToArray(size, h);
  auto header_size = static_cast<size_t>(h - header);
  std::memcpy(start - header_size, header, header_size);
  out_->Write(std::string_view(reinterpret_cast<const char*>(start - header_size), header_size + size));
  ++packets_;
}

void PerfettoProtoSink::WriteDescriptor() {
  pp::TracePacket p;
  p.set_trusted_packet_sequence_id(descriptor_sequence_);
  if (!descriptors_started_) {
    p.set_sequence_flags(pp::TracePacket::SEQ_INCREMENTAL_STATE_CLEARED);
    p.set_first_packet_on_sequence(true);
    descriptors_started_ = true;
  }
  *p.mutable_track_descriptor() = track_;
  WriteMessagePacket(p);
}

uint64_t PerfettoProtoSink::ProcessTrack(int64_t pid, std::string_view name) {
  uint64_t uuid = next_uuid_++;
  track_.Clear();
  track_.set_uuid(uuid);
  track_.mutable_process()->set_pid(static_cast<int32_t>(pid));
  track_.mutable_process()->set_process_name(Utf8(name));
  WriteDescriptor();
  return uuid;
}

uint64_t PerfettoProtoSink::ThreadTrack(uint64_t process_uuid, int64_t pid, int64_t tid, std::string_view name) {
  uint64_t uuid = ReserveTrack();
  DescribeThreadTrack(uuid, process_uuid, pid, tid, name);
  return uuid;
}

void PerfettoProtoSink::DescribeThreadTrack(uint64_t uuid, uint64_t process_uuid, int64_t pid, int64_t tid,
                                            std::string_view name) {
  track_.Clear();
  track_.set_uuid(uuid);
  track_.set_parent_uuid(process_uuid);
  track_.set_name(Utf8(name));
  track_.mutable_thread()->set_pid(static_cast<int32_t>(pid));
  track_.mutable_thread()->set_tid(static_cast<int32_t>(tid));
  track_.mutable_thread()->set_thread_name(Utf8(name));
  WriteDescriptor();
}

uint64_t PerfettoProtoSink::NamedTrack(uint64_t parent_uuid, std::string_view name) {
  uint64_t uuid = next_uuid_++;
  track_.Clear();
  track_.set_uuid(uuid);
  if (parent_uuid != 0) track_.set_parent_uuid(parent_uuid);
  track_.set_name(Utf8(name));
  WriteDescriptor();
  return uuid;
}

void PerfettoProtoSink::EndSlicesUntil(Sequence& seq, int64_t ts_ns) {
  while (!seq.open_ends.empty() && seq.open_ends.back() <= ts_ns) {
    int64_t end = seq.open_ends.back();
    seq.open_ends.pop_back();
    WriteEventPacket(seq, Ts(end), end_event_, false);
  }
}

void PerfettoProtoSink::Start(pp::TrackEvent::Type type, uint64_t track, int64_t ts_ns, uint64_t name_iid,
                              uint64_t category_iid) {
  event_track_ = track;
  event_sequence_ = &SequenceOf(track);
  EndSlicesUntil(*event_sequence_, ts_ns);
  event_ts_ns_ = ts_ns;
  event_.Clear();
  event_.set_type(type);
  event_.set_name_iid(Local(kName, name_iid));
  event_.add_category_iids(Local(kCategory, category_iid));
}

void PerfettoProtoSink::StartSlice(uint64_t track, int64_t start_ns, int64_t end_ns, uint64_t name_iid,
                                   uint64_t category_iid) {
  Start(pp::TrackEvent::TYPE_SLICE_BEGIN, track, start_ns, name_iid, category_iid);
  event_end_ns_ = std::max(start_ns, end_ns);
  event_is_slice_ = true;
}

void PerfettoProtoSink::StartInstant(uint64_t track, int64_t ts_ns, uint64_t name_iid, uint64_t category_iid) {
  Start(pp::TrackEvent::TYPE_INSTANT, track, ts_ns, name_iid, category_iid);
  event_is_slice_ = false;
}

void PerfettoProtoSink::Commit() {
  Sequence& seq = *event_sequence_;
  uint64_t ts = Ts(event_ts_ns_);
  if (seq.id == 0) OpenSequence(event_track_, seq);
  WriteEventPacket(seq, ts, event_, has_pending_);
  if (event_is_slice_) seq.open_ends.push_back(event_end_ns_);
  event_is_slice_ = false;
}

void PerfettoProtoSink::Flow(uint64_t flow_id) { event_.add_flow_ids_old(flow_id); }

void PerfettoProtoSink::Correlation(int64_t correlation_id) {
  if (correlation_id >= 0) {
    event_.set_correlation_id(static_cast<uint64_t>(correlation_id));
  } else {
    Int(AnnotationName("correlation_id"), correlation_id);
  }
}

pp::DebugAnnotation* PerfettoProtoSink::Annotation(uint64_t key_iid) {
  pp::DebugAnnotation* a = event_.add_debug_annotations();
  a->set_name_iid(Local(kKey, key_iid));
  return a;
}

void PerfettoProtoSink::Int(uint64_t key_iid, int64_t v) {
  pp::DebugAnnotation* a = Annotation(key_iid);
  a->set_int_value(v);
}

void PerfettoProtoSink::Bool(uint64_t key_iid, bool v) {
  pp::DebugAnnotation* a = Annotation(key_iid);
  a->set_bool_value(v);
}

void PerfettoProtoSink::Str(uint64_t key_iid, std::string_view v) {
  pp::DebugAnnotation* a = Annotation(key_iid);
  a->set_string_value(Utf8(v));
}

void PerfettoProtoSink::InternedStr(uint64_t key_iid, std::string_view v) {
  pp::DebugAnnotation* a = Annotation(key_iid);
  a->set_string_value_iid(Local(kValue, StringValue(v)));
}

void PerfettoProtoSink::OpRef(uint64_t key_iid, const OpReference& ref) {
  pp::DebugAnnotation* entry = Annotation(key_iid)->add_dict_entries();
  entry->set_name_iid(Local(kKey, AnnotationName(ref.first)));
  entry->set_int_value(ref.second);
}

void PerfettoProtoSink::OpRefs(uint64_t key_iid, const std::vector<OpReference>& refs) {
  pp::DebugAnnotation* a = Annotation(key_iid);
  for (const OpReference& ref : refs) {
    pp::DebugAnnotation* entry = a->add_array_values()->add_dict_entries();
    entry->set_name_iid(Local(kKey, AnnotationName(ref.first)));
    entry->set_int_value(ref.second);
  }
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
  pp::DebugAnnotation* a = Annotation(key_iid);
  if (SetScalar(a, v)) return;
  bool scalars = v.is_array() && std::all_of(v.begin(), v.end(),
                                             [](const nlohmann::json& x) { return x.is_primitive() && !x.is_null(); });
  if (scalars) {
    for (const nlohmann::json& x : v) SetScalar(a->add_array_values(), x);
  } else {
    a->set_legacy_json_value(v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  }
}

void PerfettoProtoSink::Finish() {
  std::vector<uint64_t> tracks;
  for (const auto& [track, seq] : sequences_) {
    if (!seq.open_ends.empty()) tracks.push_back(track);
  }
  std::sort(tracks.begin(), tracks.end());
  for (uint64_t track : tracks) EndSlicesUntil(sequences_[track], INT64_MAX);
}

}  // namespace streamscope
