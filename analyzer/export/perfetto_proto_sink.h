// Streams Perfetto's protobuf trace format (analyzer/export/perfetto_trace.proto)
// into an OutputFile one TracePacket at a time, so memory stays bounded
// whatever the trace size. What it takes care of:
//   * framing: each packet is field 1 of the Trace message (tag + length +
//     bytes), so the file is a valid Trace and needs no final pass;
//   * one packet sequence with incremental state: the first packet says
//     SEQ_INCREMENTAL_STATE_CLEARED, event names, categories, debug
//     annotation names and repeated string values are interned (sent once in
//     the packet that first uses them, referred to by iid after);
//   * slices: Perfetto has no complete event, only BEGIN/END pairs, and a
//     track's END pops its innermost open slice. Slices of a track must be
//     given in (start ascending, end descending) order and properly nested
//     (track_layout.h); ENDs are emitted lazily, innermost first, so that
//     ties (a child ending with its parent) stay in the right order.
// Timestamps are written relative to `ts_base_ns`. Not thread-safe.
#ifndef STREAMSCOPE_ANALYZER_EXPORT_PERFETTO_PROTO_SINK_H_
#define STREAMSCOPE_ANALYZER_EXPORT_PERFETTO_PROTO_SINK_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "analyzer/export/output_file.h"
#include "analyzer/export/perfetto_trace.pb.h"
#include "nlohmann/json.hpp"

namespace streamscope {

class PerfettoProtoSink {
 public:
  PerfettoProtoSink(OutputFile* out, int64_t ts_base_ns);

  // Interning: the iid of a string in its table. A new entry goes out with
  // the next packet written (the event being built, or an earlier one), so
  // it may be called at any time.
  uint64_t EventName(std::string_view name);
  uint64_t Category(std::string_view name);
  uint64_t AnnotationName(std::string_view name);
  uint64_t StringValue(std::string_view value);

  // Tracks (one packet each, written at once); returns the track's uuid.
  uint64_t ProcessTrack(int64_t pid, std::string_view name);
  uint64_t ThreadTrack(uint64_t process_uuid, int64_t pid, int64_t tid, std::string_view name);
  uint64_t NamedTrack(uint64_t parent_uuid, std::string_view name);

  // Starts the BEGIN event of slice [start, end) on `track` (ENDs of open
  // slices that ended by `start` go out first) or an instant event; fill in
  // the returned event (annotations, flows), then Commit().
  perfetto::protos::TrackEvent* StartSlice(uint64_t track, int64_t start_ns, int64_t end_ns,
                                           uint64_t name_iid, uint64_t category_iid);
  perfetto::protos::TrackEvent* StartInstant(uint64_t track, int64_t ts_ns, uint64_t name_iid,
                                             uint64_t category_iid);
  void Commit();

  // Debug annotations on the event being built.
  void Int(uint64_t key_iid, int64_t v);
  void Bool(uint64_t key_iid, bool v);
  void Str(uint64_t key_iid, std::string_view v);          // written inline
  void InternedStr(uint64_t key_iid, std::string_view v);  // interned (values that repeat)
  void Ints(uint64_t key_iid, std::initializer_list<int64_t> v);
  // A JSON value: scalars typed, arrays of scalars as array_values, other
  // values as JSON text. `intern`: a string value that repeats.
  void Json(std::string_view key, const nlohmann::json& v, bool intern = false);

  // Ends every open slice and commits the file.
  absl::Status Finish();

  int64_t packets() const { return packets_; }
  int64_t ts_base_ns() const { return base_; }

 private:
  // Writes one TracePacket: the optional timestamp, the sequence id and
  // flags, pending interned data, and `payload` as field `payload_field`
  // (TracePacket.track_event or .track_descriptor). The packet is framed by
  // hand with CodedOutputStream around the library-serialized messages, so
  // the reused TrackEvent keeps its allocations from packet to packet.
  void WritePacket(bool has_ts, uint64_t ts, bool uses_interning, const google::protobuf::MessageLite& payload,
                   uint32_t payload_field);
  void EndSlicesUntil(uint64_t track, int64_t ts_ns);  // ends open slices with end <= ts
  void EndSlice(uint64_t track, int64_t end_ns);
  uint64_t Intern(absl::flat_hash_map<std::string, uint64_t>& table, std::string_view s, int kind);
  // Relative to the base, never negative.
  uint64_t Ts(int64_t ns) const { return ns > base_ ? static_cast<uint64_t>(ns - base_) : 0; }
  perfetto::protos::TrackEvent& NewEvent(perfetto::protos::TrackEvent::Type type, uint64_t track);

  OutputFile* out_;
  int64_t base_;
  perfetto::protos::TrackEvent event_;       // reused: keeps its allocations
  perfetto::protos::TrackDescriptor track_;  // reused
  perfetto::protos::InternedData pending_;   // new interned entries not yet written
  bool has_pending_ = false;
  uint64_t event_track_ = 0;
  int64_t event_ts_ns_ = 0, event_end_ns_ = 0;
  bool event_is_slice_ = false;
  std::string frame_;
  int64_t packets_ = 0;
  uint64_t next_uuid_ = 1;
  absl::flat_hash_map<std::string, uint64_t> names_, categories_, keys_, values_;
  std::vector<std::vector<int64_t>> open_ends_;  // per track uuid: ends of open slices, innermost last
};

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_EXPORT_PERFETTO_PROTO_SINK_H_
