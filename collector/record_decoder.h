// Decoder: one CUPTI activity record -> plain value structs.
//
// Pure: no CUPTI calls, no I/O, no state. The input is a pointer to a CUPTI
// activity record (CUpti_Activity*; typed void here so this header stays free
// of CUPTI includes). String views in the output point into the record's own
// strings (CUPTI-owned) and live as long as those.
// Thread-safe.
#ifndef STREAMSCOPE_COLLECTOR_RECORD_DECODER_H_
#define STREAMSCOPE_COLLECTOR_RECORD_DECODER_H_

#include <cstdint>

#include "collector/trace_records.h"

namespace streamscope::collector {

enum class DecodeResult {
  kDecoded,      // one record appended to *out
  kIgnored,      // a kind we enable but deliberately do not store
  kUnknownKind,  // a kind this collector does not know: counted, not stored
};

// Decodes `record` (a CUpti_Activity*) and appends its value to *out.
DecodeResult DecodeActivityRecord(const void* record, RecordBatch* out);

// The CUPTI activity kind number of a record (first field of every record).
uint32_t ActivityKindOf(const void* record);

}  // namespace streamscope::collector

#endif  // STREAMSCOPE_COLLECTOR_RECORD_DECODER_H_
