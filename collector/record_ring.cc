#include "collector/record_ring.h"

#include <variant>

namespace streamscope::collector {
namespace {

// Records that describe things: kept apart, never dropped.
bool DescribesAThing(const TraceRecord& r) {
  return std::holds_alternative<DeviceRecord>(r) || std::holds_alternative<HostLinkRecord>(r) ||
         std::holds_alternative<StreamRecord>(r) || std::holds_alternative<ContextRecord>(r) ||
         std::holds_alternative<StreamCreatedRecord>(r);
}

}  // namespace

StatusOr<RingBound> RingBound::Parse(std::string_view spec) {
  auto bad = [&] {
    return InvalidArgumentError(
        StrCat("flight recorder bound '", spec, "' is not a span (30s, 500ms, 2m) or a record count (1000000)"));
  };
  RingBound b;
  struct Unit {
    std::string_view suffix;
    uint64_t ns;
  };
  for (Unit u : {Unit{"ms", 1'000'000}, Unit{"s", 1'000'000'000}, Unit{"m", 60'000'000'000}}) {
    if (!spec.ends_with(u.suffix)) continue;
    uint64_t n = 0;
    if (!ParseInt(spec.substr(0, spec.size() - u.suffix.size()), &n) || n == 0 || n > 86'400'000) return bad();
    b.span_ns = n * u.ns;
    b.max_records = kDefaultMaxRecords;
    return b;
  }
  if (!ParseInt(spec, &b.max_records) || b.max_records == 0) return bad();
  return b;
}

std::string RingBound::ToString() const {
  std::string out;
  if (span_ns > 0) {
    out = span_ns % 1'000'000'000 == 0 ? StrCat(span_ns / 1'000'000'000, "s") : StrCat(span_ns / 1'000'000, "ms");
  }
  if (max_records > 0) out += StrCat(out.empty() ? "" : ", at most ", max_records, " records");
  return out;
}

std::string_view RecordRing::Own(std::string_view s) {
  if (s.empty()) return s;
  return *names_.emplace(s).first;
}

void RecordRing::Add(RecordBatch* batch) {
  for (TraceRecord& r : *batch) {
    if (auto* k = std::get_if<KernelRecord>(&r)) k->name = Own(k->name);
    if (auto* m = std::get_if<MarkerRecord>(&r)) {
      m->name = Own(m->name);
      m->domain = Own(m->domain);
    }
    if (DescribesAThing(r)) {
      kept_apart_.push_back(std::move(r));
      continue;
    }
    if (std::optional<uint64_t> t = RecordTimeNs(r); t.has_value() && *t > newest_ns_) newest_ns_ = *t;
    ring_.push_back(std::move(r));
  }
  batch->clear();
  Evict();
}

void RecordRing::Evict() {
  while (bound_.max_records > 0 && ring_.size() > bound_.max_records) {
    ring_.pop_front();
    ++evicted_;
  }
  if (bound_.span_ns == 0 || newest_ns_ < bound_.span_ns) return;
  uint64_t oldest_kept = newest_ns_ - bound_.span_ns;
  // Arrival order is nearly time order (one buffer at a time): records
  // without a time go with the records around them.
  while (!ring_.empty()) {
    std::optional<uint64_t> t = RecordTimeNs(ring_.front());
    if (t.has_value() && *t >= oldest_kept) break;
    ring_.pop_front();
    ++evicted_;
  }
}

RecordBatch RecordRing::Snapshot() const {
  RecordBatch out;
  out.reserve(kept_apart_.size() + ring_.size());
  out.insert(out.end(), kept_apart_.begin(), kept_apart_.end());
  out.insert(out.end(), ring_.begin(), ring_.end());
  return out;
}

uint64_t RecordRing::first_ns() const {
  for (const TraceRecord& r : ring_) {
    if (std::optional<uint64_t> t = RecordTimeNs(r); t.has_value() && *t != 0) return *t;
  }
  return 0;
}

}  // namespace streamscope::collector
