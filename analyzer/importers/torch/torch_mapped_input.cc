#include "analyzer/importers/torch/torch_mapped_input.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace streamscope {
namespace {

// Drop pages in steps of this much: fewer madvise calls, yet little held
// (a trace parsed in 8 pieces holds 8 readers' undropped pages at once).
constexpr size_t kReleaseStep = size_t{1} << 20;

// Drops the whole pages of [data + *released, upto) once they reach a step.
void DropPages(const char* data, const char* upto, size_t& released) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t done = static_cast<size_t>(upto - data) / page * page;
  if (done < released + kReleaseStep) return;
  // Read-only private pages: dropped, they read back from the file if
  // another piece's reader still touches them.
  madvise(const_cast<char*>(data) + released, done - released, MADV_DONTNEED);
  released = done;
}

class MappedPiece : public JsonByteSource {
 public:
  MappedPiece(std::string_view whole, const char* begin) : whole_(whole) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    released_ = (static_cast<size_t>(begin - whole.data()) + page - 1) / page * page;  // not the page before
  }
  size_t Read(char*, size_t) override { return 0; }
  std::string_view Whole() override { return whole_; }
  void Release(const char* upto) override { DropPages(whole_.data(), upto, released_); }

 private:
  std::string_view whole_;
  size_t released_;
};

}  // namespace

std::unique_ptr<MappedInput> MappedInput::Open(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  struct stat st;
  unsigned char magic[2] = {0, 0};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 2 || pread(fd, magic, 2, 0) != 2 ||
      (magic[0] == 0x1f && magic[1] == 0x8b)) {
    close(fd);
    return nullptr;
  }
  const size_t size = static_cast<size_t>(st.st_size);
  void* data = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);  // the mapping keeps the file
  if (data == MAP_FAILED) return nullptr;
  madvise(data, size, MADV_SEQUENTIAL);
  return std::unique_ptr<MappedInput>(new MappedInput(static_cast<const char*>(data), size));
}

MappedInput::~MappedInput() { munmap(const_cast<char*>(data_), size_); }

void MappedInput::Release(const char* upto) { DropPages(data_, upto, released_); }

std::unique_ptr<JsonByteSource> MappedInput::Piece(const char* begin) const {
  return std::make_unique<MappedPiece>(std::string_view(data_, size_), begin);
}

}  // namespace streamscope
