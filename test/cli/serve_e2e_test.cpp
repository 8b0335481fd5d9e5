// `keel serve` as users start it: the real executable on an ephemeral port with the rules model,
// reached over HTTP (API, events, /v1, /mcp, the web UI's files), stopped with Ctrl-C.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "keel/store/sqlite_store.hpp"
#include "server/raw_http_client.hpp"
#include "support/api_harness.hpp"
#include "support/cli_runner.hpp"
#include "support/temp_dir.hpp"

extern char** environ;

namespace keel {
namespace {

using nlohmann::json;

// A `keel serve` process whose stderr is read until it says where it listens.
class ServeProcess {
 public:
  ServeProcess(const std::vector<std::string>& args, const std::map<std::string, std::string>& env) {
    int fds[2];
    if (pipe(fds) != 0) return;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    std::vector<std::string> argv_s = {KEEL_BINARY, "serve"};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_s;
    for (const auto& [k, v] : env) env_s.push_back(k + "=" + v);
    env_s.push_back(std::string("PATH=") + (getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin"));
    std::vector<char*> envp;
    for (auto& e : env_s) envp.push_back(e.data());
    envp.push_back(nullptr);
    if (posix_spawn(&pid_, KEEL_BINARY, &actions, nullptr, argv.data(), envp.data()) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    err_fd_ = fds[0];
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (port_ == 0 && std::chrono::steady_clock::now() < until) {
      pollfd p{err_fd_, POLLIN, 0};
      if (poll(&p, 1, 200) <= 0) continue;
      char buf[4096];
      ssize_t n = read(err_fd_, buf, sizeof(buf));
      if (n <= 0) break;
      err_.append(buf, static_cast<size_t>(n));
      size_t at = err_.find("listening on http://127.0.0.1:");
      if (at != std::string::npos && err_.find('\n', at) != std::string::npos) {
        port_ = static_cast<uint16_t>(std::stoi(err_.substr(at + 30)));
      }
    }
  }
  ~ServeProcess() {
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (err_fd_ >= 0) close(err_fd_);
  }
  uint16_t port() const { return port_; }
  const std::string& err() const { return err_; }
  // Ctrl-C, then the exit code (-1 when it did not exit within 15 s).
  int interrupt() {
    kill(pid_, SIGINT);
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    int status = 0;
    while (std::chrono::steady_clock::now() < until) {
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        reaped_ = true;
        char buf[4096];
        ssize_t n;
        while ((n = read(err_fd_, buf, sizeof(buf))) > 0) err_.append(buf, static_cast<size_t>(n));
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return -1;
  }

 private:
  pid_t pid_ = -1;
  int err_fd_ = -1;
  uint16_t port_ = 0;
  std::string err_;
  bool reaped_ = false;
};

class ServeE2eTest : public ::testing::Test {
 protected:
  std::map<std::string, std::string> env() {
    return {{"HOME", home_.path().string()}, {"KEEL_HOME", (home_.path() / "data").string()}, {"TZ", "UTC"}};
  }
  testing::TempDir home_;
  testing::TempDir ws_;
};

TEST_F(ServeE2eTest, AnAddressOthersCanReachNeedsAToken) {
  testing::CliOptions o;
  o.cwd = ws_.path().string();
  o.env = env();
  testing::CliRun r = testing::run_cli(KEEL_BINARY, {"serve", "--host", "0.0.0.0", "--port", "0"}, o);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("give --token"), std::string::npos) << r.err;
}

TEST_F(ServeE2eTest, ServesTheApiEventsV1McpAndTheUiThenStopsOnCtrlC) {
  ws_.write("notes.txt", "alpha\nbeta\n");
  int64_t proposal = 0;
  std::string public_id;
  {  // A skill's proposal waiting in the workspace, as `keel skills run` would leave it.
    StoreOptions so;
    so.path = home_.path() / "data" / "keel.db";
    std::filesystem::create_directories(so.path.parent_path());
    auto store = open_sqlite_store(so);
    ASSERT_TRUE(store.ok()) << store.status().to_string();
    SkillProposal p;
    p.workspace = std::filesystem::canonical(ws_.path()).string();
    p.skill = "triage";
    p.summary = "label the issue";
    proposal = *(*store)->add_skill_proposal(p);
    public_id = (*store)->get_skill_proposal(proposal)->public_id;
  }
  testing::TempDir web;
  web.write("index.html", "<!doctype html><title>keel</title>");
  web.write("app.js", "export const x = 1;");
  ServeProcess serve({"--port", "0", "-w", ws_.path().string(), "--web-dir", web.path().string(), "--token", "t0k"},
                     env());
  ASSERT_NE(serve.port(), 0) << serve.err();
  const std::string auth = "Authorization: Bearer t0k\r\n";
  auto health = testing::raw_http(serve.port(), "GET", "/api/health", auth);
  ASSERT_TRUE(health);
  EXPECT_EQ(json::parse(health->body)["ok"], true);
  EXPECT_EQ(testing::raw_http(serve.port(), "GET", "/api/health")->status, 401);

  auto created = testing::raw_http(serve.port(), "POST", "/api/sessions", auth, R"({"title":"e2e"})");
  ASSERT_EQ(created->status, 201) << created->body;
  std::string session = json::parse(created->body)["id"];
  testing::SseReader events(serve.port(), "/api/sessions/" + session + "/events?token=t0k");
  ASSERT_EQ(events.status(), 200);
  auto posted = testing::raw_http(serve.port(), "POST", "/api/sessions/" + session + "/messages", auth,
                                  R"({"content":"list the files"})");
  ASSERT_EQ(posted->status, 202) << posted->body;
  auto finished = events.wait_for("run_finished", 20000);
  ASSERT_TRUE(finished);
  EXPECT_NE(finished->data["answer"].get<std::string>().find("notes.txt"), std::string::npos);

  auto skills = testing::raw_http(serve.port(), "GET", "/api/skills", auth);
  ASSERT_EQ(skills->status, 200);
  json listed = json::parse(skills->body);
  ASSERT_EQ(listed["proposals"].size(), 1u) << skills->body;
  EXPECT_EQ(listed["proposals"][0]["summary"], "label the issue");
  EXPECT_EQ(listed["proposals"][0]["id"], public_id);  // never the database's sequential id
  bool extract = false;
  for (const json& e : listed["executable"]) extract = extract || e["id"] == "extract";
  EXPECT_TRUE(extract) << skills->body;
  auto by_number = testing::raw_http(serve.port(), "POST", "/api/skills/proposals/" + std::to_string(proposal), auth,
                                     R"({"decision":"reject"})");
  EXPECT_EQ(by_number->status, 404) << by_number->body;
  auto rejected = testing::raw_http(serve.port(), "POST", "/api/skills/proposals/" + public_id, auth,
                                    R"({"decision":"reject"})");
  ASSERT_EQ(rejected->status, 200) << rejected->body;
  EXPECT_EQ(json::parse(rejected->body)["status"], "rejected");
  auto again = testing::raw_http(serve.port(), "POST", "/api/skills/proposals/" + public_id, auth,
                                 R"({"decision":"approve"})");
  EXPECT_EQ(again->status, 409) << again->body;

  auto models = testing::raw_http(serve.port(), "GET", "/v1/models", auth);
  ASSERT_EQ(models->status, 200);
  EXPECT_EQ(json::parse(models->body)["data"][0]["id"], "keel");

  std::string init = R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",)"
                     R"("capabilities":{},"clientInfo":{"name":"t","version":"1"}}})";
  auto mcp = testing::raw_http(serve.port(), "POST", "/mcp",
                               auth + "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n",
                               init);
  ASSERT_TRUE(mcp);
  EXPECT_EQ(mcp->status, 200) << mcp->body;
  EXPECT_NE(mcp->body.find("\"serverInfo\""), std::string::npos) << mcp->body;

  auto page = testing::raw_http(serve.port(), "GET", "/");
  ASSERT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("<title>keel</title>"), std::string::npos);
  EXPECT_NE(page->header("content-security-policy").find("script-src 'self'"), std::string::npos);
  EXPECT_EQ(testing::raw_http(serve.port(), "GET", "/ui/app.js")->header("content-type"), "text/javascript; charset=utf-8");
  EXPECT_EQ(testing::raw_http(serve.port(), "GET", "/ui/../../etc/passwd")->status, 404);
  EXPECT_EQ(testing::raw_http(serve.port(), "GET", "/ui/%2e%2e/%2e%2e/etc/passwd")->status, 404);

  EXPECT_EQ(serve.interrupt(), 0) << serve.err();
  EXPECT_NE(serve.err().find("stopping"), std::string::npos);
}

}  // namespace
}  // namespace keel
