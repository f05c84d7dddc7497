// Options shared by the text and JSON renderers of streamscope's own
// analyses.
#ifndef STREAMSCOPE_ANALYZER_RENDER_RENDER_OPTIONS_H_
#define STREAMSCOPE_ANALYZER_RENDER_RENDER_OPTIONS_H_

namespace streamscope {

struct RenderOptions {
  int top = 10;          // worst offenders / longest intervals listed
  int ops_per_item = 6;  // op references printed per interval in text
};

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_RENDER_RENDER_OPTIONS_H_
