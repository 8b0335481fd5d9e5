// The real keel binary: `keel models list` (table and JSON) on a folder with good and broken GGUF
// files, and `keel model pull` against a local file server.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "llm/sha256.hpp"
#include "support/cli_runner.hpp"
#include "support/gguf_writer.hpp"
#include "support/range_http_server.hpp"
#include "support/temp_dir.hpp"
#include "support/test_http_socket.hpp"

namespace keel {
namespace {

using testing::CliRun;

CliRun keel(const std::vector<std::string>& args, const std::map<std::string, std::string>& env = {}) {
  testing::CliOptions o;
  o.env = env;
  return testing::run_cli(KEEL_BINARY, args, o);
}

// Serves one download and holds it partway: the answer's head and the first `sent` bytes of `body`
// go out in a single write, then nothing more until release(). wait_until_sent() reports that write.
class HeldDownloadServer {
 public:
  HeldDownloadServer(std::string body, size_t sent) : body_(std::move(body)), sent_(sent) {
    listener_.start([this](testing::TestHttpConnection& c) { serve(c); });
  }
  ~HeldDownloadServer() {
    release();
    listener_.stop();
  }
  HeldDownloadServer(const HeldDownloadServer&) = delete;
  HeldDownloadServer& operator=(const HeldDownloadServer&) = delete;

  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(listener_.port()) + path;
  }

  // True once the first bytes were written to a client; false when that did not happen within `limit`.
  bool wait_until_sent(std::chrono::milliseconds limit) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, limit, [this] { return written_; });
  }
  // Lets the held answer end (the connection then closes without the rest of the body).
  void release() {
    {
      std::lock_guard lock(mutex_);
      released_ = true;
    }
    cv_.notify_all();
  }

 private:
  void serve(testing::TestHttpConnection& c) {
    testing::TestHttpRequest request;
    if (!c.read_request(request)) return;
    std::string answer = "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body_.size()) + "\r\n\r\n";
    answer.append(body_, 0, sent_);
    const bool written = c.send(answer);
    std::unique_lock lock(mutex_);
    written_ = written_ || written;
    cv_.notify_all();
    cv_.wait(lock, [this] { return released_; });
  }

  const std::string body_;
  const size_t sent_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool written_ = false;
  bool released_ = false;
  testing::TestHttpListener listener_;  // last: its threads stop before the members above go away
};

// `keel ARGS...` started in the background (environment as run_cli builds it: PATH, HOME and `env`;
// stdout and stderr to files), so that a test decides when Ctrl-C arrives.
class BackgroundKeel {
 public:
  BackgroundKeel(const std::vector<std::string>& args, const std::map<std::string, std::string>& env) {
    std::vector<std::string> argv_s = {KEEL_BINARY};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_s = {"PATH=/usr/bin:/bin", "HOME=" + capture_.path().string()};
    for (const auto& [k, v] : env) env_s.push_back(k + "=" + v);
    std::vector<char*> envp;
    for (std::string& e : env_s) envp.push_back(e.data());
    envp.push_back(nullptr);
    const std::string out = (capture_.path() / "out").string();
    const std::string err = (capture_.path() / "err").string();

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGTERM);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    if (posix_spawn(&pid_, KEEL_BINARY, &actions, &attr, argv.data(), envp.data()) != 0) pid_ = -1;
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&actions);
  }
  ~BackgroundKeel() {
    if (pid_ > 0 && !reaped_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  BackgroundKeel(const BackgroundKeel&) = delete;
  BackgroundKeel& operator=(const BackgroundKeel&) = delete;

  bool started() const { return pid_ > 0; }
  // Whether the process has ended (it is then reaped and its exit code kept).
  bool exited() {
    if (pid_ <= 0 || reaped_) return true;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) != pid_) return false;
    reaped_ = true;
    exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return true;
  }
  bool interrupt() { return !reaped_ && ::kill(pid_, SIGINT) == 0; }
  // Waits (at most `limit`, then kills it) for the end; exit_code is -1 when killed or signalled.
  testing::CliRun finish(std::chrono::milliseconds limit) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (!exited() && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!exited()) {  // still running past the limit
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
      reaped_ = true;
    }
    testing::CliRun run;
    run.exit_code = exit_code_;
    run.out = testing::read_file(capture_.path() / "out");
    run.err = testing::read_file(capture_.path() / "err");
    return run;
  }
  std::string err_so_far() const { return testing::read_file(capture_.path() / "err"); }

 private:
  testing::TempDir capture_;
  pid_t pid_ = -1;
  bool reaped_ = false;
  int exit_code_ = -1;
};

class ModelsCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::GgufWriter llama;
    llama.kv_string("general.architecture", "llama").kv_string("general.name", "Small Llama");
    llama.kv_u32("llama.context_length", 8192).kv_u32("general.file_type", 15);
    llama.kv_string("tokenizer.chat_template", "{{ messages }}");
    llama.tensor("token_embd.weight", {2048, 600000}, 12);  // 1.2B parameters
    dir_.write("models/llama-small.gguf", llama.bytes());

    testing::GgufWriter qwen;
    qwen.kv_string("general.architecture", "qwen2").kv_u64("qwen2.context_length", 32768);
    qwen.tensor("w", {1000, 135}, 8);  // 135K parameters, Q8_0
    dir_.write("models/qwen-tiny.gguf", qwen.bytes());

    dir_.write("models/broken.gguf", "GGUF\x03");
  }

  std::string models() const { return (dir_.path() / "models").string(); }

  testing::TempDir dir_;
};

TEST_F(ModelsCommandTest, ListShowsATable) {
  CliRun r = keel({"models", "list", "--dir", models()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = testing::lines_of(r.out);
  ASSERT_EQ(lines.size(), 4u) << r.out;
  EXPECT_EQ(lines[0].rfind("NAME", 0), 0u);
  EXPECT_NE(lines[0].find("PARAMS"), std::string::npos);
  EXPECT_EQ(lines[1].rfind("broken.gguf", 0), 0u);
  EXPECT_NE(lines[1].find("error: '" + models() + "/broken.gguf' is truncated at byte 5"), std::string::npos)
      << lines[1];
  EXPECT_EQ(lines[2].rfind("llama-small.gguf", 0), 0u);
  for (const char* cell : {" 1.2B ", " Q4_K_M ", " 8192 ", " yes"}) {
    EXPECT_NE(lines[2].find(cell), std::string::npos) << cell << " in " << lines[2];
  }
  EXPECT_EQ(lines[3].rfind("qwen-tiny.gguf", 0), 0u);
  for (const char* cell : {" 135K ", " Q8_0 ", " 32768 ", " no"}) {
    EXPECT_NE(lines[3].find(cell), std::string::npos) << cell << " in " << lines[3];
  }
}

TEST_F(ModelsCommandTest, ListAsJsonAndFromTheEnvironment) {
  CliRun r = keel({"models", "list", "--json"}, {{"KEEL_MODELS_DIR", models()}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 3u);
  EXPECT_EQ(j[0]["name"], "broken.gguf");
  EXPECT_EQ(j[0]["size"], 5);
  EXPECT_NE(j[0]["error"].get<std::string>().find("truncated"), std::string::npos);
  EXPECT_FALSE(j[0].contains("architecture"));
  EXPECT_EQ(j[1]["name"], "llama-small.gguf");
  EXPECT_EQ(j[1]["architecture"], "llama");
  EXPECT_EQ(j[1]["model_name"], "Small Llama");
  EXPECT_EQ(j[1]["parameters"], 2048ull * 600000);
  EXPECT_EQ(j[1]["quantization"], "Q4_K_M");
  EXPECT_EQ(j[1]["context_length"], 8192);
  EXPECT_EQ(j[1]["chat_template"], true);
  EXPECT_EQ(j[1]["gguf_version"], 3);
  EXPECT_FALSE(j[1].contains("error"));
  EXPECT_EQ(j[2]["quantization"], "Q8_0");
  EXPECT_EQ(j[2]["chat_template"], false);

  CliRun empty = keel({"models", "list", "--dir", (dir_.path() / "none").string()});
  EXPECT_EQ(empty.exit_code, 0);
  EXPECT_EQ(empty.out, "");
  EXPECT_NE(empty.err.find("no models in"), std::string::npos);
  CliRun empty_json = keel({"models", "list", "--json", "--dir", (dir_.path() / "none").string()});
  EXPECT_EQ(empty_json.out, "[]\n");
}

TEST_F(ModelsCommandTest, PullDownloadsVerifiesAndRefusesToOverwrite) {
  testing::GgufWriter w;
  w.kv_string("general.architecture", "phi3").kv_u32("phi3.context_length", 4096);
  w.tensor("x", {3000, 1000}, 1);
  const std::string body = w.bytes(200000);
  const std::string sha = detail::sha256_hex(body);
  testing::RangeHttpServer server;
  server.serve_file("/o/r/resolve/main/phi.gguf", testing::RangeFile{body, {{"X-Linked-Etag", sha}}, -1, -1, false});
  const std::map<std::string, std::string> env = {{"HF_ENDPOINT", server.url("")}, {"KEEL_MODELS_DIR", models()}};

  CliRun r = keel({"model", "pull", "hf:o/r/phi.gguf"}, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("saved " + models() + "/phi.gguf (200.1 KB)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("sha256 " + sha + " verified (X-Linked-Etag)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("phi3 3M F16, context 4096; use it with --model local/phi"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("100% 200.1 KB / 200.1 KB"), std::string::npos) << r.err;  // the one progress line
  EXPECT_EQ(testing::read_file(dir_.path() / "models" / "phi.gguf"), body);

  CliRun again = keel({"model", "pull", "hf:o/r/phi.gguf"}, env);
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.err.find("already exists; pass --force"), std::string::npos) << again.err;

  CliRun named = keel({"model", "pull", server.url("/o/r/resolve/main/phi.gguf"), "--name", "copy", "--sha256",
                       std::string(64, '0')},
                      env);
  EXPECT_EQ(named.exit_code, 1);
  EXPECT_NE(named.err.find("but --sha256 says " + std::string(64, '0')), std::string::npos) << named.err;
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "models" / "copy.gguf"));

  CliRun missing = keel({"model", "pull", "hf:o/r/absent.gguf"}, env);
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("answered HTTP 404"), std::string::npos) << missing.err;

  CliRun usage = keel({"model", "pull", "not-a-source"}, env);
  EXPECT_EQ(usage.exit_code, 2);
  EXPECT_NE(usage.err.find("is not a model source"), std::string::npos) << usage.err;
  EXPECT_EQ(keel({"model", "pull"}, env).exit_code, 2);
}

TEST_F(ModelsCommandTest, CtrlCKeepsThePartAndTheNextPullResumes) {
  using std::chrono::seconds;
  const std::string body(50000, 'm');
  const std::filesystem::path part = dir_.path() / "models" / "m.gguf.part";
  const std::map<std::string, std::string> env = {{"KEEL_MODELS_DIR", models()}};
  {
    HeldDownloadServer held(body, 1000);
    BackgroundKeel pull({"model", "pull", held.url("/m.gguf")}, env);
    ASSERT_TRUE(pull.started()) << "cannot start " << KEEL_BINARY;
    // Ctrl-C goes only once keel holds the first 1000 bytes. They reach it in one piece (one write on
    // loopback), and keel creates the .part when it takes the first body bytes, after installing its
    // Ctrl-C handler. The limits only bound a hang; a slow (sanitized, loaded) machine just waits.
    ASSERT_TRUE(held.wait_until_sent(seconds(60))) << "keel never asked for the file:\n" << pull.err_so_far();
    const auto until = std::chrono::steady_clock::now() + seconds(60);
    while (!std::filesystem::exists(part) && !pull.exited() && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_TRUE(std::filesystem::exists(part)) << "no " << part << " after the first bytes:\n" << pull.err_so_far();
    ASSERT_TRUE(pull.interrupt()) << "keel ended before Ctrl-C:\n" << pull.err_so_far();
    const testing::CliRun r = pull.finish(seconds(60));
    held.release();
    EXPECT_EQ(r.exit_code, 130) << r.err;
    EXPECT_NE(r.err.find("was stopped; the 1000 bytes received are kept"), std::string::npos) << r.err;
    EXPECT_EQ(std::filesystem::file_size(part), 1000u);
  }

  testing::RangeHttpServer server;
  server.serve_file("/m.gguf", testing::RangeFile{body, {}, -1, -1, false});
  CliRun resumed = keel({"model", "pull", server.url("/m.gguf")}, env);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("(50.0 KB, resumed at byte 1000)"), std::string::npos) << resumed.out;
  ASSERT_FALSE(server.requests().empty());
  EXPECT_EQ(server.requests().back().headers.at("range"), "bytes=1000-");
  EXPECT_EQ(testing::read_file(dir_.path() / "models" / "m.gguf"), body);
}

}  // namespace
}  // namespace keel
