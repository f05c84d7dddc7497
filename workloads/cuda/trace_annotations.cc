#include "workloads/cuda/trace_annotations.h"

namespace streamscope::workloads {

TraceAnnotator::TraceAnnotator() : domain_(nvtxDomainCreateA(kAnnotationDomain)) {}

TraceAnnotator::~TraceAnnotator() { nvtxDomainDestroy(domain_); }

void TraceAnnotator::Mark(const std::string& message) {
  nvtxEventAttributes_t attributes = {};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = message.c_str();
  nvtxDomainMarkEx(domain_, &attributes);
}

MeasuredRegion::~MeasuredRegion() {
  if (open_) nvtxRangePop();
}

void MeasuredRegion::Start() {
  nvtxRangePushA(kMeasuredRange);
  open_ = true;
  start_ = std::chrono::steady_clock::now();
}

void MeasuredRegion::Stop() {
  stop_ = std::chrono::steady_clock::now();
  if (open_) nvtxRangePop();
  open_ = false;
}

double MeasuredRegion::milliseconds() const {
  return std::chrono::duration<double, std::milli>(stop_ - start_).count();
}

void BusyWaitMicroseconds(int microseconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(microseconds);
  while (std::chrono::steady_clock::now() < until) {}
}

}  // namespace streamscope::workloads
