// Opening bad files and writing in bad conditions: corrupt and write-protected files, a full
// database, missing folders, and the default path.
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <random>

#include "store_test_util.hpp"

namespace keel::testing {
namespace {
namespace fs = std::filesystem;


using OpenErrorsTest = StoreTest;

TEST_P(OpenErrorsTest, RandomBytesAreNotAKeelDatabaseAndStayUntouched) {
  std::mt19937 rng(7);
  std::string garbage(16384, '\0');
  for (char& c : garbage) c = static_cast<char>(rng());
  fs::path path = tmp_.write("junk.db", garbage);
  StoreOptions o;
  o.path = path;
  auto opened = open_sqlite_store(o);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().code(), ErrorCode::kFailedPrecondition);
  EXPECT_EQ(opened.status().message(), path.string() + " is not a keel database (file is not a database)");
  EXPECT_EQ(read_file(path), garbage);
  EXPECT_FALSE(fs::exists(path.string() + "-wal"));
}

TEST_P(OpenErrorsTest, MissingFolderOrFileIsAClearError) {
  StoreOptions o;
  o.path = tmp_.path() / "no" / "such" / "folder" / "keel.db";
  auto opened = open_sqlite_store(o);
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.status().message().find(o.path.string()), std::string::npos) << opened.status().message();
  o.read_only = true;
  auto read_only = open_sqlite_store(o);
  EXPECT_EQ(read_only.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(read_only.status().message().find(o.path.string()), std::string::npos);
}

TEST_P(OpenErrorsTest, ReadOnlyStoreReadsAndRefusesWrites) {
  std::string sid = new_session("kept");
  ASSERT_TRUE(store_->append_message(sid, "", Message::user("hello"), 0).ok());
  KEEL_ASSERT_OK(store_->cache_put("tool_result", "k", "v"));
  store_.reset();
  ASSERT_EQ(::chmod(db_path().c_str(), 0444), 0);
  std::string before = read_file(db_path());

  StoreOptions o = options();
  o.read_only = true;
  auto opened = open_sqlite_store(o);
  ASSERT_TRUE(opened.ok()) << opened.status().to_string();
  Store& ro = **opened;
  EXPECT_EQ(ro.get_session(sid)->title, "kept");
  EXPECT_EQ(ro.load_messages(sid)->size(), 1u);
  EXPECT_EQ(*ro.cache_get("tool_result", "k"), "v");
  clock_ += 10'000'000;
  EXPECT_EQ(*ro.cache_get("tool_result", "k"), std::nullopt);  // expired: a miss, left in place
  for (Status s : {ro.append_message(sid, "", Message::user("no"), 0).status(), ro.rename_session(sid, "x"),
                   ro.memory_write("", "note", "").status(), ro.cache_put("tool_result", "k", "v"),
                   ro.create_session({}).status()}) {
    EXPECT_EQ(s.code(), ErrorCode::kPermissionDenied) << s.to_string();
    EXPECT_NE(s.message().find("read-only"), std::string::npos) << s.message();
  }
  opened->reset();
  EXPECT_EQ(read_file(db_path()), before);
}

// Runs `check` (returning an exit code) in a child process that cannot write the file: as the
// unprivileged user "nobody" when the test runs as root (root ignores chmod). `dir_mode` is
// given to the database's folder first.
int run_unprivileged(const fs::path& dir, mode_t dir_mode, int (*check)(const std::string&), const std::string& path) {
  if (::chmod(dir.c_str(), dir_mode) != 0) return 91;
  pid_t pid = ::fork();
  if (pid == 0) {
    if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(90);
    ::_exit(check(path));
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::chmod(dir.c_str(), 0700);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

TEST_P(OpenErrorsTest, WriteProtectedFileIsRefusedForWritingButReadsReadOnly) {
  std::string sid = new_session("kept");
  store_.reset();
  // keel leaves the WAL and its index behind on close; fold the WAL in and remove both, as a copy
  // of just the database file would be.
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open_v2(db_path().c_str(), &db, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
  std::filesystem::remove(db_path() + "-wal");
  std::filesystem::remove(db_path() + "-shm");
  ASSERT_EQ(::chmod(db_path().c_str(), 0444), 0);
  // A folder the reader cannot write: the WAL index cannot be made, so even reading fails, clearly.
  int code = run_unprivileged(
      tmp_.path(), 0555,
      [](const std::string& path) -> int {
        StoreOptions o;
        o.path = path;
        auto writable = open_sqlite_store(o);
        if (writable.ok()) return 1;
        if (writable.status().code() != ErrorCode::kPermissionDenied) return 2;
        if (writable.status().message().find(path + " for writing") == std::string::npos) return 3;
        o.read_only = true;
        auto read_only = open_sqlite_store(o);
        if (read_only.ok()) return 4;
        if (read_only.status().message().find(path + "-shm does not exist") == std::string::npos) return 5;
        return 0;
      },
      db_path());
  EXPECT_EQ(code, 0) << "1: opened for writing; 2/3: wrong error; 4: opened read-only without a WAL index; "
                        "5: wrong error; 90: could not become nobody";

  // A writable folder: the read-only store reads.
  code = run_unprivileged(
      tmp_.path(), 0777,
      [](const std::string& path) -> int {
        StoreOptions o;
        o.path = path;
        o.read_only = true;
        auto read_only = open_sqlite_store(o);
        if (!read_only.ok()) return 1;
        auto sessions = (*read_only)->list_sessions({});
        if (!sessions.ok() || sessions->size() != 1 || (*sessions)[0].title != "kept") return 2;
        if ((*read_only)->rename_session((*sessions)[0].id, "x").code() != ErrorCode::kPermissionDenied) return 3;
        return 0;
      },
      db_path());
  EXPECT_EQ(code, 0) << "1: read-only open failed; 2: read failed; 3: a write was not refused";
}

TEST_P(OpenErrorsTest, FullDatabaseFailsWholeWritesAndKeepsEarlierOnes) {
  std::string sid = new_session();
  for (int i = 1; i <= 3; ++i)
    ASSERT_TRUE(store_->append_message(sid, "", Message::user("m" + std::to_string(i)), 0).ok());
  store_.reset();
  int64_t pages = raw_count("PRAGMA page_count");
  ASSERT_GT(pages, 0);
  StoreOptions o = options();
  o.max_page_count = pages + 8;  // about 32 KiB of room
  reopen(o);

  std::string big(200 * 1024, 'x');
  auto huge = store_->append_message(sid, "", Message::user(big), 0);
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), ErrorCode::kResourceExhausted);
  EXPECT_NE(huge.status().message().find("is full"), std::string::npos) << huge.status().message();
  EXPECT_NE(huge.status().message().find(db_path()), std::string::npos) << huge.status().message();

  std::vector<NewMessage> batch = {
      {"", Message::user("small 1"), 0, 0}, {"", Message::user("small 2"), 0, 0}, {"", Message::assistant(big), 0, 0}};
  auto failed = store_->append_messages(sid, batch);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), ErrorCode::kResourceExhausted);

  auto loaded = store_->load_messages(sid);
  ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
  ASSERT_EQ(loaded->size(), 3u);  // none of the batch
  for (int i = 0; i < 3; ++i) EXPECT_EQ((*loaded)[i].message.content, "m" + std::to_string(i + 1));

  auto after = store_->append_message(sid, "", Message::user("still works"), 0);
  ASSERT_TRUE(after.ok()) << after.status().to_string();
  EXPECT_EQ(*after, 4);
}

TEST_P(OpenErrorsTest, InMemoryAndOptionChecks) {
  StoreOptions memory;
  memory.path = ":memory:";
  auto mem = open_sqlite_store(memory);
  ASSERT_TRUE(mem.ok()) << mem.status().to_string();
  auto sid = (*mem)->create_session({});
  ASSERT_TRUE(sid.ok());
  EXPECT_EQ(*(*mem)->append_message(*sid, "", Message::user("x"), 0), 1);

  StoreOptions dup = options();
  dup.cache_scopes.push_back({"tool_result", 1, 1, 1});
  auto refused = open_sqlite_store(dup);
  EXPECT_EQ(refused.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("tool_result"), std::string::npos);
}

// Restores an environment variable when it goes out of scope.
class EnvGuard {
 public:
  explicit EnvGuard(const char* name) : name_(name) {
    const char* v = std::getenv(name);
    had_ = v != nullptr;
    if (had_) old_ = v;
  }
  ~EnvGuard() {
    if (had_) {
      ::setenv(name_, old_.c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  bool had_ = false;
  std::string old_;
};

TEST_P(OpenErrorsTest, DefaultPathUsesKeelHomeThenHome) {
  EnvGuard keel_home("KEEL_HOME");
  EnvGuard home("HOME");
  fs::path kh = tmp_.path() / "kh" / "nested";
  ::setenv("KEEL_HOME", kh.c_str(), 1);
  auto p = default_store_path();
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  EXPECT_EQ(*p, kh / "keel.db");
  EXPECT_TRUE(fs::is_directory(kh));

  ::unsetenv("KEEL_HOME");
  ::setenv("HOME", (tmp_.path() / "home").c_str(), 1);
  auto q = default_store_path();
  ASSERT_TRUE(q.ok()) << q.status().to_string();
  EXPECT_EQ(*q, tmp_.path() / "home" / ".local" / "share" / "keel" / "keel.db");
  EXPECT_TRUE(fs::is_directory(q->parent_path()));

  StoreOptions o;  // empty path: the default
  auto opened = open_sqlite_store(o);
  ASSERT_TRUE(opened.ok()) << opened.status().to_string();
  EXPECT_TRUE(fs::exists(*q));

  ::unsetenv("HOME");
  EXPECT_EQ(default_store_path().status().code(), ErrorCode::kFailedPrecondition);
}

// What opening a SQLite file can run into; postgres_open_test.cpp has the PostgreSQL side.
INSTANTIATE_TEST_SUITE_P(Sqlite, OpenErrorsTest, ::testing::Values(StoreEngine::kSqlite), store_engine_name);

}  // namespace
}  // namespace keel::testing
