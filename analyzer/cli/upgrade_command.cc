// `streamscope upgrade TRACE...`: brings streamscope traces of an older
// schema version to this build's, in place (views and enumeration names
// only; no row changes). One line per file on stderr. See the schema's
// history in schema/streamscope_schema.sql.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "analyzer/cli/cli_setup.h"
#include "analyzer/cli/command.h"
#include "analyzer/cli/exit_codes.h"
#include "analyzer/storage/trace_upgrade.h"

namespace streamscope {

void RegisterUpgradeCommand(CLI::App& app, int* exit_code) {
  auto traces = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = app.add_subcommand(
      "upgrade",
      "Bring streamscope traces of an older schema version to this one, in place (views and names only: the "
      "recorded rows and every analysis result stay the same)");
  cmd->add_option("traces", *traces, "streamscope trace files")->required();
  SetExample(cmd, "streamscope upgrade old-trace.sqlite");
  cmd->callback([traces, exit_code] {
    *exit_code = kExitOk;
    for (const std::string& path : *traces) {
      auto upgraded = UpgradeTraceInPlace(path);
      if (!upgraded.ok()) {
        std::fprintf(stderr, "streamscope: upgrade: %s\n", std::string(upgraded.status().message()).c_str());
        *exit_code = ExitCodeFor(upgraded.status());
        return;
      }
      if (upgraded->to_version == upgraded->from_version) {
        std::fprintf(stderr, "%s: schema version %d, already current\n", path.c_str(), upgraded->from_version);
      } else {
        std::fprintf(stderr, "%s: schema version %d -> %d\n", path.c_str(), upgraded->from_version,
                     upgraded->to_version);
      }
    }
  });
}

}  // namespace streamscope
