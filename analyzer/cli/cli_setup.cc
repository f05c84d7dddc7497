#include "analyzer/cli/cli_setup.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "analyzer/base/spill_memory.h"
#include "analyzer/cli/exit_codes.h"
#include "analyzer/cli/suggest.h"
#include "analyzer/pipeline/memory_budget.h"

namespace streamscope {
namespace {

// CLI11's layout, with each option's default in its description
// ("(default: 10)") instead of "=10" after its type.
class HelpFormatter : public CLI::Formatter {
  // `label` and the names of the options in `options` that help shows
  // (a hidden option, in group "", is left out; no label when none is left).
  static void AppendShown(std::ostream& out, const char* label, const std::set<CLI::Option*>& options) {
    bool first = true;
    for (const CLI::Option* o : options) {
      if (o->get_group().empty()) continue;
      if (first) out << label;
      first = false;
      out << " " << o->get_name();
    }
  }

 public:
  std::string make_option_opts(const CLI::Option* opt) const override {
    std::ostringstream out;
    if (opt->get_type_size() != 0) {
      if (!opt->get_type_name().empty()) out << " " << opt->get_type_name();
      if (opt->get_expected_max() == CLI::detail::expected_max_vector_size) out << " ...";
      if (opt->get_required()) out << " REQUIRED";
    }
    AppendShown(out, " Needs:", opt->get_needs());
    AppendShown(out, " Excludes:", opt->get_excludes());
    return out.str();
  }
  std::string make_option_desc(const CLI::Option* opt) const override {
    std::string desc = opt->get_description();
    const std::string def = opt->get_default_str();
    if (opt->get_type_size() != 0 && !def.empty() && def != "[]" && desc.find("default") == std::string::npos) {
      absl::StrAppend(&desc, " (default: ", def, ")");
    }
    return desc;
  }
};

std::string FormatNumber(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  std::ostringstream s;
  s << v;
  return s.str();
}

// The subcommand CLI11 was parsing when it failed, and its path.
const CLI::App* DeepestParsed(const CLI::App& root, std::string* path) {
  const CLI::App* app = &root;
  while (!app->get_subcommands().empty()) {
    app = app->get_subcommands().back();
    absl::StrAppend(path, path->empty() ? "" : " ", app->get_name());
  }
  return app;
}

std::vector<std::string> OptionNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : app.get_options()) {
    for (const std::string& l : opt->get_lnames()) names.push_back("--" + l);
    for (const std::string& s : opt->get_snames()) names.push_back("-" + s);
  }
  return names;
}

std::vector<std::string> SubcommandNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    names.push_back(sub->get_name());
  }
  return names;
}

std::string OneLine(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

std::string HelpHint(const std::string& command) {
  return absl::StrCat("(streamscope ", command, command.empty() ? "" : " ", "--help)");
}

}  // namespace

void SetUpRootApp(CLI::App& app) {
  app.formatter(std::make_shared<HelpFormatter>());
  app.option_defaults()->always_capture_default();
  app.get_formatter()->column_width(32);
}

void SetExample(CLI::App* cmd, const std::string& example) { cmd->footer("Example:\n  " + example); }

CLI::Validator AtLeast(double minimum) {
  return CLI::Validator(
      [minimum](std::string& value) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(value, v)) return absl::StrCat("expected a number, got '", value, "'");
        if (!(v >= minimum)) return absl::StrCat("must be ", FormatNumber(minimum), " or more, got ", value);
        return "";
      },
      absl::StrCat(">=", FormatNumber(minimum)));
}

void AddMemoryLimitOption(CLI::App* cmd) {
  cmd->add_option_function<int64_t>(
         "--memory-limit", [](const int64_t& mib) { SetMemoryLimit(MemoryLimitFromMib(mib)); },
         "MiB of heap the process keeps in memory: past it, arrays of 16 MiB and more go to spill files "
         "(--spill-dir), and a window's dependency graph (what-if ranking, critical path) that fits neither in "
         "it nor in the spill folder is left out, and the report says so; 0: no limit (default: half of what the "
         "machine has available for spilling, all of it for the graph; STREAMSCOPE_MEMORY_LIMIT_MIB sets one too)")
      ->check(AtLeast(0));
  cmd->add_option_function<std::string>(
         "--spill-dir",
         [](const std::string& dir) {
           SpillSettings settings = SpillSettingsFromEnvironment();
           settings.folder = dir == "none" ? "" : dir;
           ConfigureSpill(settings);
         },
         "Folder for the spill files of a trace larger than memory (unlinked at creation: nothing is left "
         "behind); none: no spilling (default: STREAMSCOPE_SPILL_DIR, else the first of TMPDIR, /var/tmp and "
         "/tmp on a disk)")
      ->check(CLI::Validator(
          [](std::string& dir) -> std::string {
            if (dir == "none") return "";
            return SpillFolderProblem(dir).value_or("");
          },
          "DIR|none"));
}

void ReportSpill(std::ostream& err) {
  const SpillStats s = GetSpillStats();
  constexpr double kGiB = 1024.0 * 1024 * 1024;
  if (s.blocks > 0) {
    err << absl::StrFormat(
        "streamscope: past the heap budget (%.1f GiB), %d arrays (%.1f GiB in all, at most %.1f GiB at once) "
        "were kept in spill files in %s\n",
        static_cast<double>(s.heap_budget) / kGiB, s.blocks, static_cast<double>(s.total_bytes) / kGiB,
        static_cast<double>(s.peak_bytes) / kGiB, SpillFolder());
  }
  if (s.refused_blocks > 0) {
    err << absl::StrFormat("streamscope: %d arrays past the heap budget stayed in memory: %s\n", s.refused_blocks,
                           s.last_refusal);
  }
}

CLI::Validator OneOf(std::vector<std::string> values) {
  std::string desc = absl::StrCat("{", absl::StrJoin(values, ","), "}");
  return CLI::Validator(
      [values](std::string& value) -> std::string {
        if (std::find(values.begin(), values.end(), value) != values.end()) return "";
        std::string line = absl::StrCat("'", value, "' is not one of ", absl::StrJoin(values, ", "));
        if (std::optional<std::string> near = ClosestMatch(value, values)) {
          absl::StrAppend(&line, " (did you mean '", *near, "'?)");
        }
        return line;
      },
      desc);
}

CLI::Validator OutputFilePath(const std::string& folder_hint) {
  return CLI::Validator(
      [folder_hint](std::string& value) -> std::string {
        struct stat st;
        if (stat(value.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return "";
        std::string line = absl::StrCat("'", value, "' is a folder; -o names a file");
        if (!folder_hint.empty()) absl::StrAppend(&line, " (", folder_hint, ")");
        return line;
      },
      "");
}

std::string UnknownCommandLine(const CLI::App& root, const std::string& word) {
  const std::vector<std::string> names = SubcommandNames(root);
  std::string line = absl::StrCat("unknown command '", word, "'");
  if (std::optional<std::string> near = ClosestMatch(word, names)) {
    absl::StrAppend(&line, " (did you mean '", *near, "'?)");
  } else {
    absl::StrAppend(&line, "; commands: ", absl::StrJoin(names, ", "));
  }
  return line;
}

std::string ParseErrorLine(const CLI::App& app, const std::string& command, const CLI::ParseError& e,
                           const std::vector<std::string>& given_unexpected) {
  const std::string prefix = command.empty() ? "" : command + ": ";
  // CLI11 names some errors after the app: test the type, not get_name().
  const bool extras = dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr;
  const bool required = dynamic_cast<const CLI::RequiredError*>(&e) != nullptr;
  std::vector<std::string> unexpected = given_unexpected;
  if (extras && unexpected.empty()) {
    // "The following argument(s) was/were not expected: A B", in reverse.
    const std::string what = e.what();
    if (size_t colon = what.find(": "); colon != std::string::npos) {
      unexpected = absl::StrSplit(what.substr(colon + 2), ' ', absl::SkipEmpty());
      std::reverse(unexpected.begin(), unexpected.end());
    }
  }
  if (extras || (required && !unexpected.empty())) {
    if (unexpected.size() == 1 && unexpected.front() == "--") {
      return absl::StrCat(prefix, "nothing after '--' ", HelpHint(command));
    }
    for (const std::string& arg : unexpected) {
      if (arg == "--") continue;
      if (arg.size() > 1 && arg[0] == '-' && !(arg[1] >= '0' && arg[1] <= '9')) {
        const std::string option = arg.substr(0, arg.find('='));
        std::string line = absl::StrCat(prefix, "unknown option '", option, "'");
        // `--json` for `--format json`: the values are in the type, "TEXT:{text,json,csv}".
        const CLI::Option* format = app.get_option_no_throw("--format");
        std::string formats = format == nullptr ? "" : format->get_type_name();
        formats = formats.substr(std::min(formats.size(), formats.find('{')));
        std::replace(formats.begin(), formats.end(), '{', ',');
        std::replace(formats.begin(), formats.end(), '}', ',');
        const std::string value = option.substr(std::min(option.size(), option.find_first_not_of('-')));
        if (value.size() > 2 && absl::StrContains(formats, absl::StrCat(",", value, ","))) {
          absl::StrAppend(&line, " (did you mean '--format ", value, "'?)");
        } else if (std::optional<std::string> near = ClosestMatch(option, OptionNames(app))) {
          absl::StrAppend(&line, " (did you mean '", *near, "'?)");
        } else {
          absl::StrAppend(&line, " ", HelpHint(command));
        }
        return line;
      }
    }
    if (!unexpected.empty()) {
      if (app.get_require_subcommand_min() > 0) {
        std::string line = UnknownCommandLine(app, unexpected.front());
        return command.empty() ? line : absl::StrCat(prefix, line);
      }
      return absl::StrCat(prefix, "unexpected argument '", unexpected.front(), "' ", HelpHint(command));
    }
  }
  if (required && app.get_require_subcommand_min() > 0 && app.get_subcommands().empty()) {
    return absl::StrCat(prefix, "no command given; commands: ", absl::StrJoin(SubcommandNames(app), ", "), " ",
                        HelpHint(command));
  }
  if (required) {
    std::string what = OneLine(e.what());  // "traces is required", "--output is required"
    if (absl::EndsWith(what, " is required")) what = "missing " + what.substr(0, what.size() - 12);
    return absl::StrCat(prefix, what, " ", HelpHint(command));
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr) {
    const std::string what = OneLine(e.what());  // "--top: 1 required INT:>=0 missing"
    if (absl::StrContains(what, " required ") && absl::EndsWith(what, " missing")) {
      return absl::StrCat(prefix, what.substr(0, what.find(':')), " needs a value");
    }
  }
  return absl::StrCat(prefix, OneLine(e.what()));
}

int HandleParseError(const CLI::App& root, const CLI::ParseError& e, const std::vector<std::string>& args,
                     std::ostream& out, std::ostream& err) {
  if (dynamic_cast<const CLI::CallForHelp*>(&e) != nullptr || dynamic_cast<const CLI::CallForAllHelp*>(&e) != nullptr ||
      dynamic_cast<const CLI::CallForVersion*>(&e) != nullptr) {
    // CLI11 prints help and version itself; CLI::App::exit is not const.
    return const_cast<CLI::App&>(root).exit(e, out, err);
  }
  std::string command;
  const CLI::App* app = DeepestParsed(root, &command);
  std::string line;
  const std::vector<std::string> commands = SubcommandNames(root);
  if (app == &root && !args.empty() && !args.front().empty() && args.front()[0] != '-' &&
      std::find(commands.begin(), commands.end(), args.front()) == commands.end()) {
    line = UnknownCommandLine(root, args.front());
  } else {
    std::vector<std::string> unexpected = root.remaining(true);
    line = ParseErrorLine(*app, command, e, unexpected);
  }
  err << "streamscope: " << line << "\n";
  return e.get_exit_code() == 0 ? kExitOk : kExitUsage;
}

}  // namespace streamscope
