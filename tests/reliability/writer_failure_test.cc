// The trace writer when the disk fails it, under a backlog, and around
// planted files: it reports once, never crashes or blocks its producers,
// keeps queued record batches within their memory cap (counting what it
// refuses), leaves no half-made trace when it could not even start, and
// never writes through symlinks planted at the trace's companion files.
//
// A full disk is simulated with RLIMIT_FSIZE (writes past the limit fail
// with EFBIG once SIGXFSZ is ignored); the GPU test uses real 1 MiB and
// 64 KiB tmpfs mounts.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>

#include "collector/trace_writer.h"

namespace streamscope::collector {
namespace {

std::string TempDir() {
  std::string tmpl = ::testing::TempDir() + "/reliability-XXXXXX";
  char* dir = mkdtemp(tmpl.data());
  EXPECT_NE(dir, nullptr);
  return tmpl;
}

bool Exists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int CountLines(const std::string& text, const std::string& prefix) {
  int n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) n += line.rfind(prefix, 0) == 0;
  return n;
}

RecordBatch Kernels(int n, uint32_t first_correlation) {
  RecordBatch batch;
  for (int i = 0; i < n; ++i) {
    KernelRecord k;
    k.start_ns = 1000 + 10 * i;
    k.end_ns = k.start_ns + 5;
    k.correlation_id = first_correlation + i;
    k.name = "FillTheDisk";
    batch.emplace_back(k);
  }
  return batch;
}

// Limits the size of any file this process writes; restored on scope exit.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    old_handler_ = signal(SIGXFSZ, SIG_IGN);
    getrlimit(RLIMIT_FSIZE, &old_);
    rlimit lim = old_;
    lim.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &lim);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &old_);
    signal(SIGXFSZ, old_handler_);
  }

 private:
  rlimit old_;
  sighandler_t old_handler_;
};

WriterOptions Options(const std::string& path) {
  WriterOptions o;
  o.path = path;
  o.commit_ms = 50;
  o.thread_name = [](uint32_t) { return std::string("t"); };
  return o;
}

TEST(WriterOnFullDisk, SaysSoOnceDropsTheRestAndFinishReportsIt) {
  std::string path = TempDir() + "/full.sqlite";
  auto w = TraceWriter::Open(Options(path));
  ASSERT_TRUE(w.ok()) << w.status().message();
  ::testing::internal::CaptureStderr();
  {
    FileSizeLimit limit(512 * 1024);
    uint32_t corr = 1;
    // 2000 batches of 500 kernels (~100 MB of rows) cannot fit in 512 KiB.
    for (int b = 0; b < 2000 && (*w)->error().ok(); ++b, corr += 500) {
      (*w)->Submit(Kernels(500, corr));
      if (b % 50 == 0) (*w)->Flush();
    }
    (*w)->Flush();
    EXPECT_FALSE((*w)->error().ok());
    EXPECT_FALSE((*w)->Submit(Kernels(10, 1)));  // refused after the failure, and counted
    EXPECT_GE((*w)->GetStat(Stat::kRecordsDroppedWriter), 10);
    Status finish = (*w)->Finish("normal_exit", 1);
    EXPECT_FALSE(finish.ok());
  }
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(CountLines(err, "streamscope: "), 1) << err;
}

// Holds the writer thread inside Decode until released.
class GateItem : public WorkItem {
 public:
  void Decode(RecordBatch*, TraceWriter&) override {
    std::unique_lock<std::mutex> lock(mu_);
    entered_ = true;
    cv_.notify_all();
    cv_.wait(lock, [&] { return open_; });
  }
  int64_t CountRecords() const override { return 0; }
  void WaitEntered() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return entered_; });
  }
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool entered_ = false, open_ = false;
};

TEST(WriterMemory, QueuedRecordBatchesStayWithinTheirCapAndTheRestIsCounted) {
  std::string path = TempDir() + "/cap.sqlite";
  WriterOptions o = Options(path);
  RecordBatch probe = Kernels(100, 1);
  size_t batch_bytes = probe.capacity() * sizeof(TraceRecord);
  o.max_queued_batch_bytes = 3 * batch_bytes;  // room for three batches
  auto w = TraceWriter::Open(o);
  ASSERT_TRUE(w.ok()) << w.status().message();
  auto gate = std::make_unique<GateItem>();
  GateItem* g = gate.get();
  ASSERT_TRUE((*w)->Submit(std::move(gate)));
  g->WaitEntered();  // the writer is stuck: nothing queued leaves the queue
  int accepted = 0;
  for (int b = 0; b < 10; ++b) accepted += (*w)->Submit(Kernels(100, 1 + 100 * b)) ? 1 : 0;
  EXPECT_EQ(accepted, 3);
  EXPECT_EQ((*w)->GetStat(Stat::kRecordsDroppedWriter), 700);
  g->Open();
  (*w)->Flush();
  EXPECT_TRUE((*w)->Submit(Kernels(100, 5000)));  // room again once written
  ASSERT_TRUE((*w)->Finish("normal_exit", 1).ok());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "SELECT count(*) FROM kernel", -1, &st, nullptr);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int64(st, 0), 400);
  sqlite3_finalize(st);
  sqlite3_close(db);
}

TEST(WriterOpen, FailureToCreateTheSchemaLeavesNoFileBehind) {
  std::string dir = TempDir();
  std::string path = dir + "/tiny.sqlite";
  StatusOr<std::unique_ptr<TraceWriter>> w = InternalError("not run");
  {
    FileSizeLimit limit(4096);  // not even the schema fits
    w = TraceWriter::Open(Options(path));
  }
  ASSERT_FALSE(w.ok());
  EXPECT_FALSE(Exists(path)) << "a half-made trace blocks the next run ('already exists')";
  EXPECT_FALSE(Exists(path + "-wal"));
  EXPECT_FALSE(Exists(path + "-shm"));
  EXPECT_FALSE(Exists(path + "-journal"));
}

TEST(WriterOpen, PlantedCompanionSymlinksAreNeverWrittenThrough) {
  std::string dir = TempDir();
  std::string path = dir + "/t.sqlite";
  for (const char* suffix : {"-wal", "-shm", "-journal"}) {
    std::string victim = dir + "/victim" + suffix;
    std::ofstream(victim) << "precious\n";
    ASSERT_EQ(symlink(victim.c_str(), (path + suffix).c_str()), 0);
  }
  auto w = TraceWriter::Open(Options(path));
  if (w.ok()) {
    (*w)->Submit(Kernels(1000, 1));
    EXPECT_TRUE((*w)->Finish("normal_exit", 1).ok());
  }
  for (const char* suffix : {"-wal", "-shm", "-journal"}) {
    EXPECT_EQ(Slurp(dir + "/victim" + suffix), "precious\n") << suffix;
  }
}

TEST(WriterOpen, ExistingRegularFileIsReplacedOnlyWhenAsked) {
  std::string path = TempDir() + "/t.sqlite";
  std::ofstream(path) << "precious\n";
  auto refused = TraceWriter::Open(Options(path));
  EXPECT_FALSE(refused.ok());
  EXPECT_EQ(Slurp(path), "precious\n");
  WriterOptions o = Options(path);
  o.overwrite = true;
  auto replaced = TraceWriter::Open(o);
  ASSERT_TRUE(replaced.ok()) << replaced.status().message();
  EXPECT_TRUE((*replaced)->Finish("normal_exit", 1).ok());
  EXPECT_NE(Slurp(path), "precious\n");
}

TEST(WriterOpen, SymlinkToAnotherFileIsNeverFollowedEvenWithOverwrite) {
  std::string dir = TempDir();
  std::string victim = dir + "/victim", path = dir + "/t.sqlite";
  std::ofstream(victim) << "precious\n";
  ASSERT_EQ(symlink(victim.c_str(), path.c_str()), 0);
  for (bool overwrite : {false, true}) {
    WriterOptions o = Options(path);
    o.overwrite = overwrite;
    auto w = TraceWriter::Open(o);
    EXPECT_FALSE(w.ok()) << "overwrite=" << overwrite;
    EXPECT_EQ(Slurp(victim), "precious\n");
    struct stat st;
    ASSERT_EQ(lstat(path.c_str(), &st), 0);
    EXPECT_TRUE(S_ISLNK(st.st_mode));
  }
  std::string dangling = dir + "/dangling.sqlite";
  ASSERT_EQ(symlink((dir + "/nowhere").c_str(), dangling.c_str()), 0);
  EXPECT_FALSE(TraceWriter::Open(Options(dangling)).ok());
  EXPECT_FALSE(Exists(dir + "/nowhere"));
}

}  // namespace
}  // namespace streamscope::collector
