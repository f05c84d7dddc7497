#include "analyzer/render/csv_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <streambuf>

#include "absl/strings/str_cat.h"
#include "analyzer/render/column_types.h"
#include "nlohmann/json.hpp"

namespace streamscope {
namespace {
bool NeedsQuotes(const std::string& s) { return s.find_first_of(",\"\n\r") != std::string::npos; }

void AppendQuoted(const std::string& s, std::string* out) {
  if (!NeedsQuotes(s)) {
    out->append(s);
    return;
  }
  out->push_back('"');
  for (char c : s) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

std::string Quote(const std::string& s) {
  std::string out;
  AppendQuoted(s, &out);
  return out;
}

// Appends the field without a temporary string: at a million ops the
// overlap tables have millions of rows, and formatting dominated writing.
void AppendField(const ResultValue& value, std::string* out) {
  if (const int64_t* i = std::get_if<int64_t>(&value)) {
    absl::StrAppend(out, *i);
  } else if (const double* d = std::get_if<double>(&value)) {
    char buf[40];
    int n = std::snprintf(buf, sizeof(buf), "%.9g", *d);
    out->append(buf, static_cast<size_t>(n));
  } else if (const std::string* s = std::get_if<std::string>(&value)) {
    AppendQuoted(*s, out);
  }
}

void WriteRows(const ResultTable& table, const std::vector<ResultValue>& prefix, std::ostream& out) {
  std::string line;
  table.ForEachRow([&](const std::vector<ResultValue>& row) {
    line.clear();
    for (size_t i = 0; i < prefix.size(); ++i) {
      if (i) line.push_back(',');
      AppendField(prefix[i], &line);
    }
    for (size_t i = 0; i < row.size(); ++i) {
      if (i || !prefix.empty()) line.push_back(',');
      AppendField(row[i], &line);
    }
    line.push_back('\n');
    out.write(line.data(), static_cast<std::streamsize>(line.size()));
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
      if (n < 0)
        error_ = errno;
      else
        p += n;
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

absl::Status WriteSmallFile(const std::string& path, const std::string& text, bool force) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC | (force ? 0 : O_EXCL), 0644);
  if (fd < 0) return CannotWrite(path, errno);
  int error = 0;
  for (size_t done = 0; done < text.size() && error == 0;) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno != EINTR) error = errno;
    if (n == 0) error = EIO;
    if (n > 0) done += static_cast<size_t>(n);
  }
  if (close(fd) != 0 && error == 0) error = errno;
  return error == 0 ? absl::OkStatus() : CannotWrite(path, error);
}
}  // namespace

std::string CsvField(const ResultValue& value) {
  std::string out;
  AppendField(value, &out);
  return out;
}

void WriteCsv(const ResultTable& table, std::ostream& out) {
  for (size_t i = 0; i < table.columns.size(); ++i) out << (i ? "," : "") << Quote(table.columns[i]);
  out << "\n";
  WriteRows(table, {}, out);
}

absl::Status WriteCsvFolder(const std::string& dir, const std::vector<std::vector<ResultTable>>& traces, bool force) {
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return CannotWrite(dir, errno);
  struct stat st;
  if (lstat(dir.c_str(), &st) != 0) return CannotWrite(dir, errno);
  if (!S_ISDIR(st.st_mode)) {
    return absl::AlreadyExistsError(absl::StrCat(dir,
                                                 ": not a folder; --output-dir names a folder "
                                                 "that receives one file per table"));
  }
  if (traces.empty()) return absl::OkStatus();
  const std::vector<ResultTable>& names = traces.front();
  auto path_of = [&](const ResultTable& t) { return absl::StrCat(dir, "/", t.name, ".csv"); };
  const std::string package_path = absl::StrCat(dir, "/", kTablePackageFile);
  if (!force) {
    std::vector<std::string> paths;
    for (const ResultTable& t : names) paths.push_back(path_of(t));
    paths.push_back(package_path);
    for (const std::string& path : paths) {
      if (lstat(path.c_str(), &st) == 0) {
        return absl::AlreadyExistsError(absl::StrCat(path, ": exists; pass --force to replace it"));
      }
    }
  }
  const bool several = traces.size() > 1;
  // The schema first: the tables' types, whatever their rows.
  {
    nlohmann::json resources = nlohmann::json::array();
    for (size_t k = 0; k < names.size(); ++k) {
      std::vector<const ResultTable*> same;
      for (const std::vector<ResultTable>& t : traces) {
        if (k < t.size()) same.push_back(&t[k]);
      }
      const std::vector<ColumnType> types = ResultColumnTypes(same);
      nlohmann::json fields = nlohmann::json::array();
      if (several) fields.push_back({{"name", "trace_index"}, {"type", "integer"}});
      for (size_t c = 0; c < names[k].columns.size(); ++c) {
        fields.push_back({{"name", names[k].columns[c]}, {"type", TableSchemaTypeName(types[c])}});
      }
      resources.push_back({{"name", names[k].name},
                           {"path", names[k].name + ".csv"},
                           {"profile", "tabular-data-resource"},
                           {"format", "csv"},
                           {"schema", {{"fields", std::move(fields)}, {"missingValues", {""}}}}});
    }
    const nlohmann::json package = {
        {"profile", "tabular-data-package"}, {"name", "streamscope-analysis-tables"}, {"resources", resources}};
    if (absl::Status s = WriteSmallFile(package_path, package.dump(1) + "\n", force); !s.ok()) return s;
  }
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
