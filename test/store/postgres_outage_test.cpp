// The PostgreSQL store through a server restart: a call made while the server is down waits for
// it (up to reconnect_wait_ms) and then goes through; with no wait it fails at once, naming the
// database; a write whose connection the server dropped before the commit runs again, once; a
// health check answers at once while the server is down; what was stored is all there after. A
// connection lost while committing: the store asks the server whether the commit took effect, so
// the write happens once either way.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "store_test_util.hpp"

namespace keel::testing {
namespace {

using Clock = std::chrono::steady_clock;

Result<std::unique_ptr<Store>> open_pg(const std::string& url, int reconnect_wait_ms) {
  PostgresStoreOptions o;
  o.url = url;
  o.pool_size = 2;
  o.connect_timeout_ms = 2000;
  o.reconnect_wait_ms = reconnect_wait_ms;
  return open_postgres_store(o);
}

int64_t ms_since(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

// A server of the suite's own (ScratchPostgres); each test leaves it running and works in
// sessions of its own.
class PostgresOutageTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new ScratchPostgres("outage"); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    url_ = server_->url();
    ASSERT_FALSE(url_.empty()) << "the suite's PostgreSQL server did not start";
  }
  void TearDown() override { EXPECT_EQ(server("resume-if-stopped"), 0); }

  static int server(const char* command) { return server_->control(command); }

  static inline ScratchPostgres* server_ = nullptr;
  std::string url_;
};

TEST_F(PostgresOutageTest, WithoutAWaitACallFailsAtOnceNamingTheDatabaseAndTheNextOneReconnects) {
  auto store = open_pg(url_, 0);
  ASSERT_TRUE(store.ok()) << store.status().to_string();
  auto sid = (*store)->create_session({});
  ASSERT_TRUE(sid.ok());
  ASSERT_TRUE((*store)->append_message(*sid, "", Message::user("before"), 0).ok());
  StoreHealth up = (*store)->health();
  EXPECT_EQ(up.engine, "postgres");
  EXPECT_TRUE(up.reachable);
  EXPECT_EQ(up.schema_version, 9);
  EXPECT_EQ(up.connections, 2);

  ASSERT_EQ(server("halt"), 0);
  StoreHealth down_health = (*store)->health();
  EXPECT_FALSE(down_health.reachable);
  EXPECT_NE(down_health.error.find("lost the connection"), std::string::npos) << down_health.error;
  const auto asked = Clock::now();
  auto down = (*store)->append_message(*sid, "", Message::user("lost?"), 0);
  ASSERT_FALSE(down.ok());
  EXPECT_LT(ms_since(asked), 3000);
  EXPECT_EQ(down.status().code(), ErrorCode::kUnavailable) << down.status().to_string();
  EXPECT_NE(down.status().message().find(url_.substr(0, url_.rfind('/'))), std::string::npos)
      << down.status().message();

  ASSERT_EQ(server("resume"), 0);
  auto appended = (*store)->append_message(*sid, "", Message::user("after"), 0);
  ASSERT_TRUE(appended.ok()) << appended.status().to_string();
  EXPECT_EQ(*appended, 2);
  auto messages = (*store)->load_messages(*sid);
  ASSERT_TRUE(messages.ok()) << messages.status().to_string();
  ASSERT_EQ(messages->size(), 2u);
  EXPECT_EQ((*messages)[0].message.content, "before");
  EXPECT_EQ((*messages)[1].message.content, "after");
}

TEST_F(PostgresOutageTest, CallsMadeWhileTheServerIsDownWaitForItAndGoThrough) {
  auto store = open_pg(url_, 20000);
  ASSERT_TRUE(store.ok()) << store.status().to_string();
  auto sid = (*store)->create_session({});
  ASSERT_TRUE(sid.ok());
  ASSERT_TRUE((*store)->append_message(*sid, "", Message::user("before"), 0).ok());

  ASSERT_EQ(server("halt"), 0);
  // The health check does not wait: it says at once that the database is not answering.
  const auto probed = Clock::now();
  StoreHealth down_health = (*store)->health();
  EXPECT_FALSE(down_health.reachable);
  EXPECT_LT(ms_since(probed), 3000);

  std::thread back([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    EXPECT_EQ(server("resume"), 0);
  });
  const auto asked = Clock::now();
  std::atomic<bool> read_ok{false};
  std::thread reader([&] { read_ok = (*store)->load_messages(*sid).ok(); });  // a read pauses too
  auto appended = (*store)->append_message(*sid, "", Message::user("during"), 0);
  reader.join();
  back.join();
  ASSERT_TRUE(appended.ok()) << appended.status().to_string();
  EXPECT_GE(ms_since(asked), 1000);  // it waited for the server rather than failing
  EXPECT_TRUE(read_ok);
  EXPECT_EQ(*appended, 2);
  auto messages = (*store)->load_messages(*sid);
  ASSERT_TRUE(messages.ok()) << messages.status().to_string();
  ASSERT_EQ(messages->size(), 2u);
  EXPECT_EQ((*messages)[1].message.content, "during");
  EXPECT_TRUE((*store)->health().reachable);
}

TEST_F(PostgresOutageTest, AWaitThatRunsOutSaysHowLongItWaited) {
  auto store = open_pg(url_, 400);
  ASSERT_TRUE(store.ok()) << store.status().to_string();
  auto sid = (*store)->create_session({});
  ASSERT_TRUE(sid.ok());
  ASSERT_EQ(server("halt"), 0);
  const auto asked = Clock::now();
  auto down = (*store)->append_message(*sid, "", Message::user("lost?"), 0);
  ASSERT_FALSE(down.ok());
  EXPECT_GE(ms_since(asked), 300);
  EXPECT_EQ(down.status().code(), ErrorCode::kUnavailable);
  EXPECT_NE(down.status().message().find("within 400 ms"), std::string::npos) << down.status().message();
  ASSERT_EQ(server("resume"), 0);
  auto messages = (*store)->load_messages(*sid);
  ASSERT_TRUE(messages.ok()) << messages.status().to_string();
  EXPECT_TRUE(messages->empty());  // the failed write left nothing behind
}

TEST_F(PostgresOutageTest, AWriteTheServerDroppedBeforeItsCommitRunsAgainOnce) {
  // The store's connections carry a name of their own, so the test can end exactly their sessions.
  const std::string url = url_ + "?application_name=keel_outage_test";
  auto store = open_pg(url, 20000);
  ASSERT_TRUE(store.ok()) << store.status().to_string();
  auto sid = (*store)->create_session({});
  ASSERT_TRUE(sid.ok());
  int attempts = 0;
  Status written = (*store)->write_together([&]() -> Status {
    ++attempts;
    KEEL_TRY((*store)->append_message(*sid, "", Message::user("first"), 0).status());
    if (attempts == 1) {
      // What a restart does to a session in the middle of a transaction (SIGTERM: "terminating
      // connection due to administrator command").
      KEEL_TRY(run_postgres_sql(url_, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                                      "application_name = 'keel_outage_test' AND state = 'idle in transaction'"));
      std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the goodbye reaches the socket
    }
    return (*store)->append_message(*sid, "", Message::user("second"), 0).status();
  });
  ASSERT_TRUE(written.ok()) << written.to_string();
  EXPECT_EQ(attempts, 2);
  auto messages = (*store)->load_messages(*sid);
  ASSERT_TRUE(messages.ok()) << messages.status().to_string();
  ASSERT_EQ(messages->size(), 2u);  // each once: the first attempt left nothing
  EXPECT_EQ((*messages)[0].message.content, "first");
  EXPECT_EQ((*messages)[1].message.content, "second");
  EXPECT_EQ((*messages)[1].seq, 2);
}

// A TCP relay to the tests' server that, when armed, cuts the connection on which a COMMIT
// passes: after relaying it (the server commits; its reply is lost) or instead of relaying it.
class CommitCutter {
 public:
  enum class Cut { kNone, kAfterCommit, kBeforeCommit };

  explicit CommitCutter(uint16_t server_port) : server_port_(server_port) {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (::bind(listener_, reinterpret_cast<sockaddr*>(&a), len) != 0 || ::listen(listener_, 16) != 0 ||
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      return;
    }
    port_ = ntohs(a.sin_port);
    accepter_ = std::thread([this] { accept_loop(); });
  }
  ~CommitCutter() {
    ::shutdown(listener_, SHUT_RDWR);
    ::close(listener_);
    accepter_.join();
    std::lock_guard lock(mu_);
    for (int fd : fds_) ::shutdown(fd, SHUT_RDWR);
    for (auto& t : pumps_) t.join();
    for (int fd : fds_) ::close(fd);
  }
  uint16_t port() const { return port_; }
  void arm(Cut cut) { cut_ = cut; }
  int cuts() const { return cuts_; }

 private:
  void accept_loop() {
    for (;;) {
      int client = ::accept(listener_, nullptr, nullptr);
      if (client < 0) return;
      int server = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      a.sin_port = htons(server_port_);
      if (::connect(server, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        ::close(client);
        ::close(server);
        continue;
      }
      std::lock_guard lock(mu_);
      fds_.push_back(client);
      fds_.push_back(server);
      auto cut_here = std::make_shared<std::atomic<bool>>(false);  // this connection's replies stop
      pumps_.emplace_back([this, client, server, cut_here] { pump(client, server, true, *cut_here); });
      pumps_.emplace_back([this, client, server, cut_here] { pump(server, client, false, *cut_here); });
    }
  }

  void pump(int from, int to, bool from_client, std::atomic<bool>& cut_here) {
    char buf[65536];
    for (;;) {
      const ssize_t n = ::recv(from, buf, sizeof buf, 0);
      if (n <= 0 || cut_here) break;
      const bool commit = from_client && cut_ != Cut::kNone && memmem(buf, static_cast<size_t>(n), "COMMIT", 7) != nullptr;
      if (commit) {
        const Cut cut = cut_.exchange(Cut::kNone);
        cut_here = true;  // the server's reply to the COMMIT never reaches the client
        ++cuts_;
        if (cut == Cut::kAfterCommit) {
          (void)::send(to, buf, static_cast<size_t>(n), MSG_NOSIGNAL);
          std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the server commits
        }
        break;
      }
      if (::send(to, buf, static_cast<size_t>(n), MSG_NOSIGNAL) != n) break;
    }
    ::shutdown(from, SHUT_RDWR);
    ::shutdown(to, SHUT_RDWR);
  }

  uint16_t server_port_;
  uint16_t port_ = 0;
  int listener_ = -1;
  std::atomic<Cut> cut_{Cut::kNone};
  std::atomic<int> cuts_{0};
  std::thread accepter_;
  std::mutex mu_;
  std::vector<int> fds_;
  std::vector<std::thread> pumps_;
};

// `url` (postgresql://user@127.0.0.1:PORT/...) with PORT replaced; the old port in *old.
std::string with_port(const std::string& url, uint16_t port, uint16_t* old) {
  const size_t host = url.find("127.0.0.1:");
  const size_t start = host + 10;
  const size_t end = url.find('/', start);
  *old = static_cast<uint16_t>(std::stoi(url.substr(start, end - start)));
  return url.substr(0, start) + std::to_string(port) + url.substr(end);
}

class PostgresLostCommitTest : public ::testing::TestWithParam<CommitCutter::Cut> {};

TEST_P(PostgresLostCommitTest, AWriteWhoseCommitReplyWasLostHappensOnce) {
  auto schema = PostgresSchema::create();
  ASSERT_TRUE(schema.ok()) << schema.status().to_string();
  uint16_t server_port = 0;
  std::string url = with_port(schema->url(), 1, &server_port);
  CommitCutter cutter(server_port);
  ASSERT_NE(cutter.port(), 0);
  url = with_port(schema->url(), cutter.port(), &server_port);
  auto store = open_pg(url, 10000);
  ASSERT_TRUE(store.ok()) << store.status().to_string();
  auto sid = (*store)->create_session({});
  ASSERT_TRUE(sid.ok());

  cutter.arm(GetParam());
  int attempts = 0;
  Status written = (*store)->write_together([&]() -> Status {
    ++attempts;
    return (*store)->append_message(*sid, "", Message::user("once"), 0).status();
  });
  ASSERT_TRUE(written.ok()) << written.to_string();
  EXPECT_EQ(cutter.cuts(), 1);
  // Committed before the cut: not run again. Cut before the server saw COMMIT: run again.
  EXPECT_EQ(attempts, GetParam() == CommitCutter::Cut::kAfterCommit ? 1 : 2);
  auto messages = (*store)->load_messages(*sid);
  ASSERT_TRUE(messages.ok()) << messages.status().to_string();
  ASSERT_EQ(messages->size(), 1u);
  EXPECT_EQ((*messages)[0].message.content, "once");
}

INSTANTIATE_TEST_SUITE_P(Cuts, PostgresLostCommitTest,
                         ::testing::Values(CommitCutter::Cut::kAfterCommit, CommitCutter::Cut::kBeforeCommit),
                         [](const ::testing::TestParamInfo<CommitCutter::Cut>& info) {
                           return info.param == CommitCutter::Cut::kAfterCommit ? std::string("AfterTheServerGotIt")
                                                                                 : std::string("BeforeItLeft");
                         });

}  // namespace
}  // namespace keel::testing
