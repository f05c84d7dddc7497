#include "analyzer/export/slice_args.h"

#include <string>
#include <vector>

#include "analyzer/render/op_ref.h"

namespace streamscope {

nlohmann::json SliceArgJson(const TraceModel& model, const SliceArg& arg) {
  const auto index = static_cast<int32_t>(arg.value);
  switch (arg.type) {
    case SliceArg::Type::kInt: return arg.value;
    case SliceArg::Type::kText: return arg.text;
    case SliceArg::Type::kOpRef: return OpRef(model, index);
    case SliceArg::Type::kOpJson: return OpRefJson(model, index);
    case SliceArg::Type::kCallRef: return CallRef(model, index);
  }
  return nullptr;
}

nlohmann::json SliceArgsJson(const TraceModel& model, const AnalysisSlice& slice) {
  nlohmann::json args = slice.args;
  for (const SliceArg& a : slice.typed_args) args[std::string(a.key)] = SliceArgJson(model, a);
  return args;
}

void WordTypedArgs(const TraceModel& model, AnalysisSlice* slice) {
  for (const SliceArg& a : slice->typed_args) slice->args[std::string(a.key)] = SliceArgJson(model, a);
  std::vector<SliceArg>().swap(slice->typed_args);  // frees it: held slices are many
}

}  // namespace streamscope
