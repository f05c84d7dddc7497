// Replays fuzz inputs without libFuzzer (plain builds, ctest): every file
// named, or every file in every folder named, through the fuzzer's own
// LLVMFuzzerTestOneInput. A crash or broken invariant aborts the replay.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv);
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

void Collect(const std::string& path, std::vector<std::string>* files) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    std::fprintf(stderr, "replay: %s: no such file or folder\n", path.c_str());
    std::exit(2);
  }
  if (!S_ISDIR(st.st_mode)) {
    files->push_back(path);
    return;
  }
  DIR* d = opendir(path.c_str());
  std::vector<std::string> names;
  while (dirent* e = d != nullptr ? readdir(d) : nullptr) {
    std::string n = e->d_name;
    bool doc = n.size() > 3 && n.compare(n.size() - 3, 3, ".md") == 0;  // a folder's README
    if (n[0] != '.' && !doc) names.push_back(n);
  }
  if (d != nullptr) closedir(d);
  std::sort(names.begin(), names.end());
  for (const std::string& n : names) Collect(path + "/" + n, files);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) Collect(argv[i], &files);
  LLVMFuzzerInitialize(&argc, &argv);
  for (const std::string& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    const std::string bytes = s.str();
    std::fprintf(stderr, "replay: %s (%zu bytes)\n", f.c_str(), bytes.size());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::fprintf(stderr, "replay: %zu inputs, no crash\n", files.size());
  return files.empty() ? 1 : 0;
}
