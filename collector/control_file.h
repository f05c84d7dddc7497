// Capture control from outside the process: `streamscope capture start|stop|dump
// PID` writes one command word into DIR/streamscope-PID.control (through a
// temporary file and rename, so it appears whole); the collector polls for
// it, acts, and removes it (which tells the command it was taken). DIR is
// STREAMSCOPE_CONTROL_DIR, else XDG_RUNTIME_DIR, else /tmp. Only a regular
// file owned by the process's own user is obeyed: in a shared /tmp another
// user cannot steer the capture. No CUPTI. Thread-safe (no state).
#ifndef STREAMSCOPE_COLLECTOR_CONTROL_FILE_H_
#define STREAMSCOPE_COLLECTOR_CONTROL_FILE_H_

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

#include "collector/output_path.h"
#include "collector/status.h"

namespace streamscope::collector {

// The folder control files live in, from the environment.
std::string ControlDir(const EnvLookup& env);
std::string ControlFilePath(std::string_view dir, pid_t pid);

// Takes the command waiting at `path`: nullopt when there is none; the word
// ("start", "stop", "dump") after removing the file; an error for a file that is not
// a regular file owned by `uid` (left alone) or holds an unknown command
// (removed).
StatusOr<std::optional<std::string>> TakeControlCommand(const std::string& path, uid_t uid);

}  // namespace streamscope::collector

#endif  // STREAMSCOPE_COLLECTOR_CONTROL_FILE_H_
