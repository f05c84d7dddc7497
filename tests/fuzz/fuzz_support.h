// What both fuzzers share: a private scratch folder for the files an input
// becomes, and where the seed traces are.
#ifndef STREAMSCOPE_TESTS_FUZZ_FUZZ_SUPPORT_H_
#define STREAMSCOPE_TESTS_FUZZ_FUZZ_SUPPORT_H_

#include <string>

namespace streamscope::fuzz {

// Creates the scratch folder (removed at exit), one analysis thread
// (STREAMSCOPE_THREADS=1: reproducible), quiet std::cerr.
void InitScratch();
// A file in the scratch folder; the same path for the same name.
const std::string& ScratchPath(const std::string& name);
std::string ScratchDir();
// Replaces the file (and removes SQLite's -wal/-shm/-journal next to it).
void WriteScratchFile(const std::string& path, const std::string& bytes);
// Removes every file in the scratch folder.
void ClearScratch();
// tests/data of the source tree ($STREAMSCOPE_FUZZ_SEEDS overrides).
std::string SeedDir();

}  // namespace streamscope::fuzz

#endif  // STREAMSCOPE_TESTS_FUZZ_FUZZ_SUPPORT_H_
