#include "analyzer/export/trace_event_writer.h"

#include <charconv>
#include <cmath>

#include "analyzer/export/text_escape.h"

namespace streamscope {
namespace {

void AppendInt(int64_t v, std::string* out) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, r.ptr);
}

void AppendUint(uint64_t v, std::string* out) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, r.ptr);
}

}  // namespace

void AppendMicros(int64_t ns, std::string* out) {
  uint64_t mag = ns < 0 ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  if (ns < 0) out->push_back('-');
  AppendUint(mag / 1000, out);
  uint64_t frac = mag % 1000;
  char f[4] = {'.', static_cast<char>('0' + frac / 100), static_cast<char>('0' + frac / 10 % 10),
               static_cast<char>('0' + frac % 10)};
  out->append(f, 4);
}

void TraceEventArgs::Key(std::string_view key) {
  if (!body_.empty()) body_.push_back(',');
  AppendJsonString(key, &body_);
  body_.push_back(':');
}

TraceEventArgs& TraceEventArgs::Int(std::string_view key, int64_t v) {
  Key(key);
  AppendInt(v, &body_);
  return *this;
}

TraceEventArgs& TraceEventArgs::Double(std::string_view key, double v) {
  Key(key);
  if (!std::isfinite(v)) {
    body_.append("null");
  } else {
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof(buf), v);
    body_.append(buf, r.ptr);
  }
  return *this;
}

TraceEventArgs& TraceEventArgs::Str(std::string_view key, std::string_view v) {
  Key(key);
  AppendJsonString(v, &body_);
  return *this;
}

TraceEventArgs& TraceEventArgs::Bool(std::string_view key, bool v) {
  Key(key);
  body_.append(v ? "true" : "false");
  return *this;
}

TraceEventArgs& TraceEventArgs::Ints(std::string_view key, std::initializer_list<int64_t> v) {
  Key(key);
  body_.push_back('[');
  bool first = true;
  for (int64_t x : v) {
    if (!first) body_.push_back(',');
    first = false;
    AppendInt(x, &body_);
  }
  body_.push_back(']');
  return *this;
}

TraceEventArgs& TraceEventArgs::Json(std::string_view key, const nlohmann::json& v) {
  Key(key);
  body_.append(v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  return *this;
}

void TraceEventWriter::Begin() { out_->Write("{\"traceEvents\":["); }

void TraceEventWriter::StartEvent(char ph, int64_t pid, int64_t tid) {
  ev_.clear();
  if (events_ > 0) ev_.push_back(',');
  ev_.append("{\"ph\":\"");
  ev_.push_back(ph);
  ev_.append("\",\"pid\":");
  AppendInt(pid, &ev_);
  ev_.append(",\"tid\":");
  AppendInt(tid, &ev_);
}

void TraceEventWriter::AppendTs(std::string_view key, int64_t ns) {
  ev_.append(",\"");
  ev_.append(key);
  ev_.append("\":");
  AppendMicros(ns, &ev_);
}

void TraceEventWriter::EndEvent() {
  ev_.push_back('}');
  out_->Write(ev_);
  ++events_;
}

void TraceEventWriter::ProcessName(int64_t pid, std::string_view name) {
  StartEvent('M', pid, 0);
  ev_.append(",\"ts\":0,\"name\":\"process_name\",\"args\":{\"name\":");
  AppendJsonString(name, &ev_);
  ev_.push_back('}');
  EndEvent();
}

void TraceEventWriter::ProcessSortIndex(int64_t pid, int64_t index) {
  StartEvent('M', pid, 0);
  ev_.append(",\"ts\":0,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":");
  AppendInt(index, &ev_);
  ev_.push_back('}');
  EndEvent();
}

void TraceEventWriter::ThreadName(int64_t pid, int64_t tid, std::string_view name) {
  StartEvent('M', pid, tid);
  ev_.append(",\"ts\":0,\"name\":\"thread_name\",\"args\":{\"name\":");
  AppendJsonString(name, &ev_);
  ev_.push_back('}');
  EndEvent();
}

void TraceEventWriter::ThreadSortIndex(int64_t pid, int64_t tid, int64_t index) {
  StartEvent('M', pid, tid);
  ev_.append(",\"ts\":0,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":");
  AppendInt(index, &ev_);
  ev_.push_back('}');
  EndEvent();
}

// Ends a Complete or Instant event: its name, category, colour and args, then the event.
void TraceEventWriter::FinishNamedEvent(std::string_view name, std::string_view cat, const TraceEventArgs* args,
                                        std::string_view cname) {
  ev_.append(",\"name\":");
  AppendJsonString(name, &ev_);
  ev_.append(",\"cat\":");
  AppendJsonString(cat, &ev_);
  if (!cname.empty()) {
    ev_.append(",\"cname\":");
    AppendJsonString(cname, &ev_);
  }
  if (args != nullptr && !args->empty()) {
    ev_.append(",\"args\":{");
    ev_.append(args->body());
    ev_.push_back('}');
  }
  EndEvent();
}

void TraceEventWriter::Complete(int64_t pid, int64_t tid, int64_t start_ns, int64_t dur_ns, std::string_view name,
                                std::string_view cat, const TraceEventArgs* args, std::string_view cname) {
  StartEvent('X', pid, tid);
  AppendTs("ts", start_ns - base_);
  AppendTs("dur", dur_ns < 0 ? 0 : dur_ns);
  FinishNamedEvent(name, cat, args, cname);
}

void TraceEventWriter::Instant(int64_t pid, int64_t tid, int64_t ts_ns, std::string_view name, std::string_view cat,
                               const TraceEventArgs* args, std::string_view cname) {
  StartEvent('i', pid, tid);
  AppendTs("ts", ts_ns - base_);
  ev_.append(",\"s\":\"t\"");
  FinishNamedEvent(name, cat, args, cname);
}

void TraceEventWriter::FlowStart(int64_t pid, int64_t tid, int64_t ts_ns, uint64_t id, std::string_view name,
                                 std::string_view cat) {
  StartEvent('s', pid, tid);
  AppendTs("ts", ts_ns - base_);
  ev_.append(",\"id\":");
  AppendUint(id, &ev_);
  ev_.append(",\"name\":");
  AppendJsonString(name, &ev_);
  ev_.append(",\"cat\":");
  AppendJsonString(cat, &ev_);
  EndEvent();
}

void TraceEventWriter::FlowEnd(int64_t pid, int64_t tid, int64_t ts_ns, uint64_t id, std::string_view name,
                               std::string_view cat) {
  StartEvent('f', pid, tid);
  AppendTs("ts", ts_ns - base_);
  ev_.append(",\"bp\":\"e\",\"id\":");
  AppendUint(id, &ev_);
  ev_.append(",\"name\":");
  AppendJsonString(name, &ev_);
  ev_.append(",\"cat\":");
  AppendJsonString(cat, &ev_);
  EndEvent();
}

absl::Status TraceEventWriter::Finish(const nlohmann::json& other_data) {
  std::string tail = "\n],\"displayTimeUnit\":\"ns\",\"otherData\":";
  tail.append(other_data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  tail.append("}\n");
  out_->Write(tail);
  return out_->Commit();
}

}  // namespace streamscope
