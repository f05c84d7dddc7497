// Structure-aware trace fuzzing: random bytes rarely form a valid SQLite
// file, so most fuzz inputs instead pick a real seed trace (tests/data) and a
// short list of SQL edits to apply to it (drop a table, set a column to
// NULL / text / blob / a huge or negative value, delete rows, swap columns,
// change the schema version, rename or turn a table into a view) and, last,
// byte edits of the file (truncate, flip). See tests/fuzz/README.md.
#ifndef STREAMSCOPE_TESTS_FUZZ_TRACE_MUTATOR_H_
#define STREAMSCOPE_TESTS_FUZZ_TRACE_MUTATOR_H_

#include <string>
#include <vector>

#include "tests/fuzz/fuzz_input.h"

namespace streamscope::fuzz {

struct SeedTable {
  std::string name;
  std::vector<std::string> columns;
};

struct SeedTrace {
  std::string name;               // file name, for messages
  std::string bytes;              // the whole database file
  std::vector<SeedTable> tables;  // user tables, sorted by name
};

// The seed traces, in a fixed order (kSeedNames in trace_mutator.cc) so
// that corpus files keep meaning the same edits. Seeds whose file is
// missing are skipped. `dir` is the repository's tests/data.
std::vector<SeedTrace> LoadSeedTraces(const std::string& dir);

// Applies the edits the input describes to a copy of `seed` and returns the
// resulting file bytes. Edits SQLite rejects (a constraint, a dropped
// column) are skipped.
std::string MutateTrace(const SeedTrace& seed, FuzzInput& in);

}  // namespace streamscope::fuzz

#endif  // STREAMSCOPE_TESTS_FUZZ_TRACE_MUTATOR_H_
