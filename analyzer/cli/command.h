// Subcommand registration for the `streamscope` CLI. Each subcommand lives
// in its own file and provides one Register*Command function; main.cc calls
// them. A command's callback stores its exit code in *exit_code.
#ifndef STREAMSCOPE_ANALYZER_CLI_COMMAND_H_
#define STREAMSCOPE_ANALYZER_CLI_COMMAND_H_

#include "CLI/CLI.hpp"

namespace streamscope {

void RegisterRunCommand(CLI::App& app, int* exit_code);        // run_command.cc
void RegisterReportCommand(CLI::App& app, int* exit_code);     // report_command.cc
void RegisterWorkloadsCommand(CLI::App& app, int* exit_code);  // workloads_command.cc
void RegisterConvertCommand(CLI::App& app, int* exit_code);    // convert_command.cc
void RegisterCompareCommand(CLI::App& app, int* exit_code);    // compare_command.cc
void RegisterDiagnoseCommand(CLI::App& app, int* exit_code);   // diagnose_command.cc
void RegisterExportCommand(CLI::App& app, int* exit_code);     // export_command.cc
void RegisterFactsCommands(CLI::App& app, int* exit_code);     // facts_command.cc: facts, merge-facts
void RegisterCaptureCommand(CLI::App& app, int* exit_code);    // capture_command.cc
void RegisterUpgradeCommand(CLI::App& app, int* exit_code);    // upgrade_command.cc
void RegisterSynthCommand(CLI::App& app, int* exit_code);      // synth_command.cc

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_CLI_COMMAND_H_
