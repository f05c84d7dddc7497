// Streams a Chrome trace-event JSON document ("JSON Object Format": the
// format chrome://tracing and ui.perfetto.dev load) into an OutputFile, one
// event at a time, so memory stays flat whatever the trace size.
//
// Times: every event is given in trace-clock nanoseconds and written as
// microseconds relative to `ts_base_ns` with three decimals ("12.345"), so
// nanoseconds survive exactly (absolute CUPTI times exceed a double's 53-bit
// mantissa in microseconds). Strings are escaped by AppendJsonString.
// Not thread-safe.
#ifndef STREAMSCOPE_ANALYZER_EXPORT_TRACE_EVENT_WRITER_H_
#define STREAMSCOPE_ANALYZER_EXPORT_TRACE_EVENT_WRITER_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "analyzer/export/output_file.h"
#include "nlohmann/json.hpp"

namespace streamscope {

// The body of an event's "args" object, built field by field.
class TraceEventArgs {
 public:
  TraceEventArgs& Int(std::string_view key, int64_t v);
  TraceEventArgs& Double(std::string_view key, double v);
  TraceEventArgs& Str(std::string_view key, std::string_view v);
  TraceEventArgs& Bool(std::string_view key, bool v);
  TraceEventArgs& Ints(std::string_view key, std::initializer_list<int64_t> v);
  TraceEventArgs& Json(std::string_view key, const nlohmann::json& v);
  void Clear() { body_.clear(); }
  bool empty() const { return body_.empty(); }
  const std::string& body() const { return body_; }

 private:
  void Key(std::string_view key);
  std::string body_;
};

class TraceEventWriter {
 public:
  TraceEventWriter(OutputFile* out, int64_t ts_base_ns) : out_(out), base_(ts_base_ns) {}

  void Begin();  // `{"traceEvents":[`

  // Metadata events (ph "M").
  void ProcessName(int64_t pid, std::string_view name);
  void ProcessSortIndex(int64_t pid, int64_t index);
  void ThreadName(int64_t pid, int64_t tid, std::string_view name);
  void ThreadSortIndex(int64_t pid, int64_t tid, int64_t index);

  // A complete slice (ph "X"). `cname` is one of the trace viewer's reserved
  // color names ("good", "bad", "terrible", ...) or empty.
  void Complete(int64_t pid, int64_t tid, int64_t start_ns, int64_t dur_ns, std::string_view name, std::string_view cat,
                const TraceEventArgs* args = nullptr, std::string_view cname = {});
  // An instant event (ph "i") with thread scope.
  void Instant(int64_t pid, int64_t tid, int64_t ts_ns, std::string_view name, std::string_view cat,
               const TraceEventArgs* args = nullptr, std::string_view cname = {});
  // Flow arrows (v1): "s" binds to the slice enclosing ts on (pid, tid); the
  // matching "f" (same cat, name and id) binds to the slice enclosing its ts
  // ("bp":"e").
  void FlowStart(int64_t pid, int64_t tid, int64_t ts_ns, uint64_t id, std::string_view name, std::string_view cat);
  void FlowEnd(int64_t pid, int64_t tid, int64_t ts_ns, uint64_t id, std::string_view name, std::string_view cat);

  // Closes the event array, adds "otherData" and "displayTimeUnit", and
  // commits the file.
  absl::Status Finish(const nlohmann::json& other_data);

  int64_t events() const { return events_; }
  int64_t ts_base_ns() const { return base_; }

 private:
  void StartEvent(char ph, int64_t pid, int64_t tid);
  void FinishNamedEvent(std::string_view name, std::string_view cat, const TraceEventArgs* args,
                        std::string_view cname);
  void AppendTs(std::string_view key, int64_t ns);  // `,"key":12.345`
  void EndEvent();

  OutputFile* out_;
  int64_t base_;
  int64_t events_ = 0;
  std::string ev_;  // the event being built
};

// `12.345` for 12345 ns (sign kept, always three decimals).
void AppendMicros(int64_t ns, std::string* out);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_EXPORT_TRACE_EVENT_WRITER_H_
