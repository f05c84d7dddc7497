// Output path templates (STREAMSCOPE_OUTPUT / `streamscope run -o`) and safe
// creation of the trace file.
//
// Template escapes: %p pid, %h host name, %q{VAR} value of environment
// variable VAR (error if unset), %% a literal '%'. Anything else after '%'
// is an error, so typos are reported instead of silently kept.
// Thread-safe (pure functions; CreateTraceFile touches the file system).
#ifndef STREAMSCOPE_COLLECTOR_OUTPUT_PATH_H_
#define STREAMSCOPE_COLLECTOR_OUTPUT_PATH_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include "collector/status.h"

namespace streamscope::collector {

using EnvLookup = std::function<std::optional<std::string>(std::string_view)>;

StatusOr<std::string> ExpandOutputTemplate(std::string_view tmpl, long pid, std::string_view host,
                                           const EnvLookup& env);

// Creates an empty file at `path` for the trace without following a symlink
// in the last component and without clobbering: an existing file is an
// error (ALREADY_EXISTS) unless `overwrite`, in which case an existing
// regular file (and its -wal/-shm/-journal companions) is removed first; a
// symlink or non-regular file is never removed. Errors name the path.
Status CreateTraceFile(const std::string& path, bool overwrite);

// Removes a trace file this process created but could not set up (so it
// does not block the next run as "already exists"), with its regular
// -wal/-shm/-journal companions; never removes a symlink or special file.
void RemoveTraceFiles(const std::string& path);

}  // namespace streamscope::collector

#endif  // STREAMSCOPE_COLLECTOR_OUTPUT_PATH_H_
