#include "analyzer/render/csv_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <streambuf>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace streamscope {
namespace {
std::string Quote(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

void WriteRows(const ResultTable& table, const std::vector<ResultValue>& prefix, std::ostream& out) {
  table.ForEachRow([&](const std::vector<ResultValue>& row) {
    for (size_t i = 0; i < prefix.size(); ++i) out << (i ? "," : "") << CsvField(prefix[i]);
    for (size_t i = 0; i < row.size(); ++i) out << (i || !prefix.empty() ? "," : "") << CsvField(row[i]);
    out << "\n";
  });
}

// A buffered ostream over a file descriptor (tables of tens of millions of
// rows are streamed, never held); remembers the first write error.
class FdBuf : public std::streambuf {
 public:
  explicit FdBuf(int fd) : fd_(fd) { setp(buf_, buf_ + sizeof(buf_)); }
  ~FdBuf() override { sync(); }
  int error() const { return error_; }

 protected:
  int overflow(int c) override {
    if (sync() != 0) return traits_type::eof();
    if (c != traits_type::eof()) {
      *pptr() = static_cast<char>(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override {
    const char* p = pbase();
    while (p < pptr() && error_ == 0) {
      ssize_t n = write(fd_, p, static_cast<size_t>(pptr() - p));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) error_ = errno;
      else p += n;
    }
    setp(buf_, buf_ + sizeof(buf_));
    return error_ == 0 ? 0 : -1;
  }

 private:
  int fd_;
  int error_ = 0;
  char buf_[1 << 16];
};

absl::Status CannotWrite(const std::string& path, int error) {
  return absl::PermissionDeniedError(absl::StrCat(path, ": cannot write the table: ", std::strerror(error)));
}
}  // namespace

std::string CsvField(const ResultValue& value) {
  if (const int64_t* i = std::get_if<int64_t>(&value)) return absl::StrCat(*i);
  if (const double* d = std::get_if<double>(&value)) return absl::StrFormat("%.9g", *d);
  if (const std::string* s = std::get_if<std::string>(&value)) return Quote(*s);
  return "";
}

void WriteCsv(const ResultTable& table, std::ostream& out) {
  for (size_t i = 0; i < table.columns.size(); ++i) out << (i ? "," : "") << Quote(table.columns[i]);
  out << "\n";
  WriteRows(table, {}, out);
}

absl::Status WriteCsvFolder(const std::string& dir, const std::vector<std::vector<ResultTable>>& traces,
                            bool force) {
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return CannotWrite(dir, errno);
  struct stat st;
  if (lstat(dir.c_str(), &st) != 0) return CannotWrite(dir, errno);
  if (!S_ISDIR(st.st_mode)) {
    return absl::AlreadyExistsError(absl::StrCat(dir, ": not a folder; --format csv -o names a folder "
                                                      "that receives one file per table"));
  }
  if (traces.empty()) return absl::OkStatus();
  const std::vector<ResultTable>& names = traces.front();
  auto path_of = [&](const ResultTable& t) { return absl::StrCat(dir, "/", t.name, ".csv"); };
  if (!force) {
    for (const ResultTable& t : names) {
      if (lstat(path_of(t).c_str(), &st) == 0) {
        return absl::AlreadyExistsError(
            absl::StrCat(path_of(t), ": exists; refusing to replace it (--force replaces the tables)"));
      }
    }
  }
  const bool several = traces.size() > 1;
  for (size_t k = 0; k < names.size(); ++k) {
    const std::string path = path_of(names[k]);
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC | (force ? 0 : O_EXCL), 0644);
    if (fd < 0) return CannotWrite(path, errno);
    int error = 0;
    {
      FdBuf buf(fd);
      std::ostream out(&buf);
      if (several) out << "trace_index,";
      for (size_t i = 0; i < names[k].columns.size(); ++i) out << (i ? "," : "") << Quote(names[k].columns[i]);
      out << "\n";
      for (size_t t = 0; t < traces.size(); ++t) {
        if (k >= traces[t].size()) continue;
        std::vector<ResultValue> prefix;
        if (several) prefix.push_back(static_cast<int64_t>(t));
        WriteRows(traces[t][k], prefix, out);
      }
      out.flush();
      error = buf.error();
    }
    if (close(fd) != 0 && error == 0) error = errno;
    if (error != 0) return CannotWrite(path, error);
  }
  return absl::OkStatus();
}

}  // namespace streamscope
