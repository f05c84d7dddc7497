// Streams Perfetto's protobuf trace format (analyzer/export/perfetto_trace.proto)
// into an OutputFile one TracePacket at a time, so memory stays bounded
// whatever the trace size. What it takes care of:
//   * framing: each packet is field 1 of the Trace message (tag + length +
//     bytes), so the file is a valid Trace and needs no final pass;
//   * one packet sequence per track (track descriptors go on the sink's
//     descriptor sequence). Several sinks may write parts of one file at once
//     (perfetto_proto_writer.cc), each with its own range of track uuids
//     and sequence ids (Ids), and an event may go on a track another sink
//     of the file described;
//     A track's first event opens its sequence with a packet that clears
//     the incremental state (SEQ_INCREMENTAL_STATE_CLEARED) and sets its
//     defaults (the track's uuid, a sequence-scoped incremental clock) and a
//     ClockSnapshot of that clock against BOOTTIME (both 0, the base, so
//     BOOTTIME never goes back from one snapshot to the next). Every event
//     packet after it says SEQ_NEEDS_INCREMENTAL_STATE, leaves out its track
//     uuid and gives its timestamp as the delta from the sequence's previous
//     packet;
//   * interning: event names, categories, annotation names and repeated
//     string values are sent once per sequence, in the interned_data of the
//     packet that first uses them there, with iids numbered per sequence
//     from 1 (small iids: one byte for the first 127 strings of a kind);
//   * slices: Perfetto has no complete event, only BEGIN/END pairs, and a
//     track's END pops its innermost open slice. Slices of a track must be
//     given in (start ascending, end descending) order and properly nested
//     (track_layout.h); ENDs are emitted lazily, innermost first, so that
//     ties (a child ending with its parent) stay in the right order and the
//     packets of a track come in time order. A packet earlier than its
//     sequence's previous one (an instant written after later slices) gets
//     an absolute BOOTTIME timestamp instead of a delta.
// Timestamps are relative to `ts_base_ns`. Not thread-safe: one writer per
// sink.
#ifndef STREAMSCOPE_ANALYZER_EXPORT_PERFETTO_PROTO_SINK_H_
#define STREAMSCOPE_ANALYZER_EXPORT_PERFETTO_PROTO_SINK_H_

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "analyzer/export/output_file.h"
#include "analyzer/export/perfetto_trace.pb.h"
#include "nlohmann/json.hpp"

namespace streamscope {

class PerfettoProtoSink {
 public:
  // Clock ids (clock_snapshot.proto: 1-63 builtin, 64-127 sequence-scoped).
  static constexpr uint32_t kBootTimeClock = 6;      // BUILTIN_CLOCK_BOOTTIME
  static constexpr uint32_t kIncrementalClock = 64;  // ours, per sequence
  // The track uuids and packet sequence ids a sink hands out: descriptors
  // go on `descriptor_sequence`, the tracks' sequences are first_sequence,
  // first_sequence + sequence_stride, ... Sinks of one file need disjoint
  // ids. Every packet carries its sequence id, so small ids matter (one
  // byte below 128): the writer interleaves its parts' ids (stride).
  struct Ids {
    uint64_t first_uuid = 1;
    uint32_t descriptor_sequence = 1;
    uint32_t first_sequence = 2;
    uint32_t sequence_stride = 1;
    // The first sequence continues one an earlier part of the file wrote
    // (the same id): its first packet clears the sequence's state again
    // (names, defaults, clock) rather than opening it, so that parts of
    // one track's packets can be written at once and joined in order.
    bool continues_sequence = false;
  };

  PerfettoProtoSink(ByteOutput* out, int64_t ts_base_ns, Ids ids);
  PerfettoProtoSink(ByteOutput* out, int64_t ts_base_ns) : PerfettoProtoSink(out, ts_base_ns, Ids{1, 1, 2, 1, false}) {}

  // Interning: a file-wide id of a string in its table, to pass to the
  // calls below (which turn it into the iid of the event's sequence, sending
  // the entry there on first use); may be called at any time.
  uint64_t EventName(std::string_view name);
  uint64_t Category(std::string_view name);
  uint64_t AnnotationName(std::string_view name);
  uint64_t StringValue(std::string_view value);

  // Tracks (one packet each, written at once); returns the track's uuid.
  uint64_t ProcessTrack(int64_t pid, std::string_view name);
  uint64_t ThreadTrack(uint64_t process_uuid, int64_t pid, int64_t tid, std::string_view name);
  // A uuid for a track described later (DescribeThreadTrack), perhaps after
  // another sink has written its events.
  uint64_t ReserveTrack() { return next_uuid_++; }
  void DescribeThreadTrack(uint64_t uuid, uint64_t process_uuid, int64_t pid, int64_t tid, std::string_view name);
  uint64_t NamedTrack(uint64_t parent_uuid, std::string_view name);

  // Starts the BEGIN event of slice [start, end) on `track` (ENDs of open
  // slices that ended by `start` go out first) or an instant event; fill in
  // the event (annotations, flows), then Commit().
  void StartSlice(uint64_t track, int64_t start_ns, int64_t end_ns, uint64_t name_iid, uint64_t category_iid);
  void StartInstant(uint64_t track, int64_t ts_ns, uint64_t name_iid, uint64_t category_iid);
  void Commit();

  // On the event being built.
  void Flow(uint64_t flow_id);               // TrackEvent.flow_ids_old (varint)
  void Correlation(int64_t correlation_id);  // TrackEvent.correlation_id; an annotation if negative
  void Int(uint64_t key_iid, int64_t v);
  void Bool(uint64_t key_iid, bool v);
  void Str(uint64_t key_iid, std::string_view v);          // written inline
  void InternedStr(uint64_t key_iid, std::string_view v);  // interned (values that repeat)
  // References to ops ("memcpy#7" in the JSON) as {table: source id}
  // dicts, which trace_processor flattens to typed args (key.memcpy = 7 and
  // key[0].memcpy = 7 for a list): 12 bytes where the text takes 18.
  using OpReference = std::pair<std::string_view, int64_t>;
  void OpRef(uint64_t key_iid, const OpReference& ref);
  void OpRefs(uint64_t key_iid, const std::vector<OpReference>& refs);
  // A JSON value: scalars typed, arrays of scalars as array_values, other
  // values as JSON text. `intern`: a string value that repeats.
  void Json(std::string_view key, const nlohmann::json& v, bool intern = false);

  // Ends every open slice (in track order); the caller commits the file.
  void Finish();

  int64_t packets() const { return packets_; }
  int64_t ts_base_ns() const { return base_; }

 private:
  enum InternKind { kName, kCategory, kKey, kValue, kNumKinds };
  struct Table {
    absl::flat_hash_map<absl::string_view, uint64_t> iids;  // views into `strings`
    std::deque<std::string> strings;                        // by iid - 1, UTF-8
  };
  // The packet sequence of one track.
  struct Sequence {
    uint32_t id = 0;  // 0: not opened yet
    uint64_t last_ts = 0;
    absl::flat_hash_map<uint64_t, uint64_t> iids[kNumKinds];  // file-wide id -> iid on this sequence
    std::vector<int64_t> open_ends;                           // ends of open slices, innermost last
  };

  uint64_t Intern(InternKind kind, std::string_view s);
  Sequence& SequenceOf(uint64_t track);  // a new one on first use
  // Opens `seq` (first packet: cleared state, defaults, clock snapshot).
  void OpenSequence(uint64_t track, Sequence& seq);
  // The iid on the current event's sequence of file-wide id `id`; a new
  // entry goes into pending_, sent with the event.
  uint64_t Local(InternKind kind, uint64_t id);
  perfetto::protos::DebugAnnotation* Annotation(uint64_t key_iid);  // a new one on the event
  // Writes a TrackEvent packet on `seq` at `ts` (relative to the base).
  void WriteEventPacket(Sequence& seq, uint64_t ts, const perfetto::protos::TrackEvent& event, bool interned);
  void WriteMessagePacket(const perfetto::protos::TracePacket& packet);  // rare packets, serialized whole
  void WriteDescriptor();                                                // track_ on the descriptor sequence
  void EndSlicesUntil(Sequence& seq, int64_t ts_ns);                     // ends open slices with end <= ts
  void Start(perfetto::protos::TrackEvent::Type type, uint64_t track, int64_t ts_ns, uint64_t name_iid,
             uint64_t category_iid);
  // Relative to the base, never negative.
  uint64_t Ts(int64_t ns) const { return ns > base_ ? static_cast<uint64_t>(ns - base_) : 0; }

  ByteOutput* out_;
  int64_t base_;
  perfetto::protos::TrackEvent event_;       // reused: keeps its allocations
  perfetto::protos::TrackEvent end_event_;   // a bare TYPE_SLICE_END
  perfetto::protos::TrackDescriptor track_;  // reused
  perfetto::protos::InternedData pending_;   // entries for the packet being written
  bool has_pending_ = false;
  uint64_t event_track_ = 0;
  int64_t event_ts_ns_ = 0, event_end_ns_ = 0;
  bool event_is_slice_ = false;
  std::string frame_;
  int64_t packets_ = 0;
  uint64_t next_uuid_;
  uint32_t descriptor_sequence_, next_sequence_, sequence_stride_;
  bool continues_sequence_;
  bool descriptors_started_ = false;
  Table tables_[kNumKinds];
  absl::node_hash_map<uint64_t, Sequence> sequences_;  // by track uuid (stable addresses)
  Sequence* event_sequence_ = nullptr;                 // the event's, between Start and Commit
};

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_EXPORT_PERFETTO_PROTO_SINK_H_
