// keel's MCP server beyond tools: catalogs (resources, templates, prompts, completions), resource
// subscriptions, progress and log messages, and requests to the client (elicitation, sampling)
// answered on another thread, driven through a session's handle() as a transport would.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "keel/tool.hpp"
#include "keel/tool_registry.hpp"
#include "mcp/conformance_fixtures.hpp"
#include "mcp_server/client_requests.hpp"
#include "mcp_server/keel_mcp_handler.hpp"
#include "mcp_server/resource_watch.hpp"
#include "mcp_server/server_catalog.hpp"

namespace keel::mcp {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

json session_request(int id, const std::string& method, json params = json::object()) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}

// Messages a transport would send the client, collected; waits for one by method.
struct Wire {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<json> sent;

  MessageHandler::Notify sink() {
    return [this](const json& m) {
      std::lock_guard lock(mu);
      sent.push_back(m);
      cv.notify_all();
    };
  }
  std::optional<json> wait_for(const std::string& method, std::chrono::milliseconds limit = 5s) {
    std::unique_lock lock(mu);
    std::optional<json> found;
    cv.wait_for(lock, limit, [&] {
      for (const json& m : sent) {
        if (m.value("method", "") == method) {
          found = m;
          return true;
        }
      }
      return false;
    });
    return found;
  }
  std::vector<json> with_method(const std::string& method) {
    std::lock_guard lock(mu);
    std::vector<json> out;
    for (const json& m : sent) {
      if (m.value("method", "") == method) out.push_back(m);
    }
    return out;
  }
};

// A catalog whose one resource changes when the test says so.
class ChangingCatalog final : public ServerCatalog {
 public:
  std::atomic<int> version{1};
  std::atomic<bool> exists{true};
  std::vector<ResourceEntry> resources() const override { return {{"test://changing", "changing", "", "", "text/plain", -1}}; }
  Result<json> read_resource(const std::string& uri) const override {
    if (uri != "test://changing" || !exists) return Status::NotFound("unknown resource " + uri);
    return json::array({{{"uri", uri}, {"text", "version " + std::to_string(version.load())}}});
  }
  Result<std::string> resource_version(const std::string& uri) const override {
    if (uri != "test://changing" || !exists) return Status::NotFound("unknown resource " + uri);
    return std::to_string(version.load());
  }
  Result<std::vector<std::string>> complete(const CompletionQuery& q) const override {
    if (q.ref != "many") return Status::NotFound("no");
    std::vector<std::string> values;
    for (int i = 0; i < 150; ++i) values.push_back("v" + std::to_string(i));
    return values;
  }
};

class McpServerSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    KeelMcpServerOptions options;
    options.tools = &registry_;
    changing_ = std::make_shared<ChangingCatalog>();
    options.catalogs = {test::conformance_fixture_catalog(), changing_};
    options.server_tools = test::conformance_fixture_tools();
    options.watch_interval = 10ms;
    server_ = std::make_unique<KeelMcpServer>(std::move(options));
    session_ = server_->new_session();
  }

  json call(const json& message) {
    std::optional<json> r = session_->handle(message, wire_.sink());
    return r.value_or(json());
  }
  json initialize(json capabilities = json::object()) {
    return call(session_request(0, "initialize", {{"protocolVersion", "2025-11-25"}, {"capabilities", std::move(capabilities)}}));
  }

  ToolRegistry registry_;
  std::shared_ptr<ChangingCatalog> changing_;
  std::unique_ptr<KeelMcpServer> server_;
  std::unique_ptr<MessageHandler> session_;
  Wire wire_;
};

TEST_F(McpServerSessionTest, InitializeDeclaresResourcesPromptsAndCompletions) {
  json caps = initialize()["result"]["capabilities"];
  EXPECT_TRUE(caps["resources"].value("subscribe", false));
  EXPECT_TRUE(caps.contains("prompts"));
  EXPECT_TRUE(caps.contains("completions"));
}

TEST_F(McpServerSessionTest, ListsAndReadsResourcesFromEveryCatalog) {
  initialize();
  json list = call(session_request(1, "resources/list"))["result"]["resources"];
  std::vector<std::string> uris;
  for (const json& r : list) uris.push_back(r["uri"]);
  EXPECT_NE(std::find(uris.begin(), uris.end(), "test://static-text"), uris.end());
  EXPECT_NE(std::find(uris.begin(), uris.end(), "test://changing"), uris.end());
  json read = call(session_request(2, "resources/read", {{"uri", "test://template/42/data"}}));
  EXPECT_NE(read["result"]["contents"][0]["text"].get<std::string>().find("Data for ID: 42"), std::string::npos);
  json missing = call(session_request(3, "resources/read", {{"uri", "test://nothing"}}));
  EXPECT_EQ(missing["error"]["code"], -32002);
  EXPECT_EQ(missing["error"]["data"]["uri"], "test://nothing");
  EXPECT_EQ(call(session_request(4, "resources/read"))["error"]["code"], -32602);
  json templates = call(session_request(5, "resources/templates/list"))["result"]["resourceTemplates"];
  ASSERT_EQ(templates.size(), 1u);
  EXPECT_EQ(templates[0]["uriTemplate"], "test://template/{id}/data");
}

TEST_F(McpServerSessionTest, PromptsNeedTheirRequiredArguments) {
  initialize();
  json list = call(session_request(1, "prompts/list"))["result"]["prompts"];
  EXPECT_EQ(list.size(), 5u);  // the four prompts of 2025-11-25 and the multi round-trip one
  json got = call(session_request(2, "prompts/get", {{"name", "test_prompt_with_arguments"}, {"arguments", {{"arg1", "a"}, {"arg2", "b"}}}}));
  EXPECT_EQ(got["result"]["messages"][0]["content"]["text"], "Prompt with arguments: arg1='a', arg2='b'");
  json missing = call(session_request(3, "prompts/get", {{"name", "test_prompt_with_arguments"}, {"arguments", {{"arg1", "a"}}}}));
  EXPECT_EQ(missing["error"]["code"], -32602);
  EXPECT_NE(missing["error"]["message"].get<std::string>().find("arg2"), std::string::npos);
  EXPECT_EQ(call(session_request(4, "prompts/get", {{"name", "test_prompt_with_arguments"}, {"arguments", {{"arg1", 7}}}}))["error"]["code"],
            -32602);
  EXPECT_EQ(call(session_request(5, "prompts/get", {{"name", "nope"}}))["error"]["code"], -32602);
}

TEST_F(McpServerSessionTest, CompletionsAreFilteredAndCapped) {
  initialize();
  json c = call(session_request(1, "completion/complete", {{"ref", {{"type", "ref/prompt"}, {"name", "test_prompt_with_arguments"}}},
                                                   {"argument", {{"name", "arg1"}, {"value", "par"}}}}));
  EXPECT_EQ(c["result"]["completion"]["values"], json({"paris", "park", "party"}));
  json many = call(session_request(2, "completion/complete",
                           {{"ref", {{"type", "ref/resource"}, {"uri", "many"}}}, {"argument", {{"name", "x"}, {"value", ""}}}}));
  EXPECT_EQ(many["result"]["completion"]["values"].size(), 100u);
  EXPECT_EQ(many["result"]["completion"]["total"], 150);
  EXPECT_TRUE(many["result"]["completion"]["hasMore"]);
  EXPECT_EQ(call(session_request(3, "completion/complete", {{"ref", {{"type", "ref/other"}}}}))["error"]["code"], -32602);
}

TEST_F(McpServerSessionTest, LogMessagesOnlyAfterTheClientSetsALevel) {
  initialize();
  call(session_request(1, "tools/call", {{"name", "test_tool_with_logging"}}));
  EXPECT_TRUE(wire_.with_method("notifications/message").empty());
  call(session_request(2, "logging/setLevel", {{"level", "warning"}}));
  call(session_request(3, "tools/call", {{"name", "test_tool_with_logging"}}));
  EXPECT_TRUE(wire_.with_method("notifications/message").empty()) << "info is below warning";
  call(session_request(4, "logging/setLevel", {{"level", "debug"}}));
  call(session_request(5, "tools/call", {{"name", "test_tool_with_logging"}}));
  EXPECT_EQ(wire_.with_method("notifications/message").size(), 4u);  // three from the tool, one call line
}

TEST_F(McpServerSessionTest, ProgressOnlyWithAToken) {
  initialize();
  call(session_request(1, "tools/call", {{"name", "test_tool_with_progress"}}));
  EXPECT_TRUE(wire_.with_method("notifications/progress").empty());
  call(session_request(2, "tools/call", {{"name", "test_tool_with_progress"}, {"_meta", {{"progressToken", "p1"}}}}));
  std::vector<json> progress = wire_.with_method("notifications/progress");
  ASSERT_EQ(progress.size(), 3u);
  EXPECT_EQ(progress[0]["params"]["progressToken"], "p1");
  EXPECT_EQ(progress[2]["params"]["progress"], 100);
}

TEST_F(McpServerSessionTest, ElicitationIsAskedOfTheClientAndItsAnswerReturned) {
  initialize({{"elicitation", json::object()}});
  auto result = std::async(std::launch::async, [&] {
    return call(session_request(1, "tools/call", {{"name", "test_elicitation"}, {"arguments", {{"message", "who?"}}}}));
  });
  std::optional<json> asked = wire_.wait_for("elicitation/create");
  ASSERT_TRUE(asked.has_value());
  EXPECT_EQ((*asked)["params"]["message"], "who?");
  // The answer arrives as another message, on another thread, as a transport delivers it.
  EXPECT_FALSE(session_->handle({{"jsonrpc", "2.0"}, {"id", (*asked)["id"]},
                                 {"result", {{"action", "accept"}, {"content", {{"username", "ada"}}}}}},
                                [](const json&) {}));
  json r = result.get();
  EXPECT_FALSE(r["result"].value("isError", false)) << r.dump();
  EXPECT_NE(r["result"]["content"][0]["text"].get<std::string>().find("ada"), std::string::npos);
}

TEST_F(McpServerSessionTest, RequestsNeedTheClientsCapability) {
  initialize();  // no sampling capability
  json r = call(session_request(1, "tools/call", {{"name", "test_sampling"}, {"arguments", {{"prompt", "hi"}}}}));
  EXPECT_TRUE(r["result"].value("isError", false));
  EXPECT_NE(r["result"]["content"][0]["text"].get<std::string>().find("sampling capability"), std::string::npos);
  EXPECT_TRUE(wire_.with_method("sampling/createMessage").empty());
}

TEST_F(McpServerSessionTest, ACancelledCallStopsWaitingForTheClient) {
  initialize({{"sampling", json::object()}});
  auto result = std::async(std::launch::async, [&] {
    return call(session_request(9, "tools/call", {{"name", "test_sampling"}, {"arguments", {{"prompt", "hi"}}}}));
  });
  ASSERT_TRUE(wire_.wait_for("sampling/createMessage").has_value());
  session_->handle({{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 9}}}},
                   [](const json&) {});
  json r = result.get();
  EXPECT_TRUE(r["result"].value("isError", false));
  EXPECT_NE(r["result"]["content"][0]["text"].get<std::string>().find("cancelled"), std::string::npos);
  EXPECT_EQ(wire_.with_method("notifications/cancelled").size(), 1u) << "the client is told keel stopped waiting";
}

TEST_F(McpServerSessionTest, ASubscribedResourceThatChangesIsReportedOnTheOutbox) {
  initialize();
  Wire outbox;
  session_->set_outbox(outbox.sink());
  EXPECT_EQ(call(session_request(1, "resources/subscribe", {{"uri", "test://missing"}}))["error"]["code"], -32002);
  EXPECT_TRUE(call(session_request(2, "resources/subscribe", {{"uri", "test://changing"}})).contains("result"));
  changing_->version = 2;
  std::optional<json> updated = outbox.wait_for("notifications/resources/updated");
  ASSERT_TRUE(updated.has_value());
  EXPECT_EQ((*updated)["params"]["uri"], "test://changing");
  EXPECT_TRUE(call(session_request(3, "resources/unsubscribe", {{"uri", "test://changing"}})).contains("result"));
  session_.reset();  // a session that ends drops its subscriptions; the watch outlives it safely
  changing_->version = 3;
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(outbox.with_method("notifications/resources/updated").size(), 1u);
}

// A high-risk tool with no policy: the client's user is asked, when the client can show it.
class McpServerApprovalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ToolTraits traits;
    traits.risk = Risk::kHigh;
    ASSERT_TRUE(registry_
                    .add(make_tool(make_tool_spec("danger", "Deletes things", R"({"type":"object","properties":{}})", traits),
                                   [this](const json&, const ToolContext&) -> Result<std::string> {
                                     ++runs_;
                                     return std::string("deleted");
                                   }))
                    .ok());
    KeelMcpServerOptions options;
    options.tools = &registry_;
    options.approval_timeout = 5s;
    server_ = std::make_unique<KeelMcpServer>(std::move(options));
    session_ = server_->new_session();
  }

  // Calls danger, answering the approval question with `answer` (nullopt: the client declared no
  // elicitation capability).
  json call_danger(std::optional<json> answer) {
    Wire wire;
    json caps = answer ? json{{"elicitation", json::object()}} : json::object();
    session_->handle(session_request(0, "initialize", {{"protocolVersion", "2025-11-25"}, {"capabilities", caps}}),
                     wire.sink());
    auto result = std::async(std::launch::async, [&] {
      return session_->handle(session_request(1, "tools/call", {{"name", "danger"}}), wire.sink()).value_or(json());
    });
    if (answer) {
      std::optional<json> asked = wire.wait_for("elicitation/create");
      EXPECT_TRUE(asked.has_value());
      if (asked) {
        EXPECT_NE((*asked)["params"]["message"].get<std::string>().find("danger"), std::string::npos);
        session_->handle({{"jsonrpc", "2.0"}, {"id", (*asked)["id"]}, {"result", *answer}}, [](const json&) {});
      }
    }
    return result.get()["result"];
  }

  ToolRegistry registry_;
  std::atomic<int> runs_{0};
  std::unique_ptr<KeelMcpServer> server_;
  std::unique_ptr<MessageHandler> session_;
};

TEST_F(McpServerApprovalTest, TheClientsUserAllowsTheCall) {
  json r = call_danger(json{{"action", "accept"}, {"content", {{"allow", true}}}});
  EXPECT_FALSE(r.value("isError", true)) << r.dump();
  EXPECT_EQ(r["content"][0]["text"], "deleted");
  EXPECT_EQ(runs_, 1);
}

TEST_F(McpServerApprovalTest, AnythingButAnExplicitAllowRefuses) {
  for (const json& answer : {json{{"action", "accept"}, {"content", {{"allow", false}}}},
                             json{{"action", "accept"}, {"content", {{"allow", "yes"}}}},
                             json{{"action", "decline"}}, json{{"action", "cancel"}}}) {
    session_ = server_->new_session();
    json r = call_danger(answer);
    EXPECT_TRUE(r.value("isError", false)) << answer.dump();
    EXPECT_NE(r["content"][0]["text"].get<std::string>().find("did not allow it"), std::string::npos) << r.dump();
  }
  EXPECT_EQ(runs_, 0);
}

TEST_F(McpServerApprovalTest, AClientThatCannotAskIsRefusedWithHowToAllow) {
  json r = call_danger(std::nullopt);
  EXPECT_TRUE(r.value("isError", false));
  std::string text = r["content"][0]["text"];
  EXPECT_NE(text.find("high-risk"), std::string::npos) << text;
  EXPECT_NE(text.find("keel approvals add"), std::string::npos) << text;
  EXPECT_EQ(runs_, 0);
}

TEST(McpServerRedaction, SecretsInResourcesAndPromptsAreReplaced) {
  ToolRegistry registry;
  KeelMcpServerOptions options;
  options.tools = &registry;
  options.catalogs = {test::conformance_fixture_catalog()};
  // The fixtures' own words stand in for a secret's value here.
  options.redactor = std::make_shared<SecretRedactor>(std::vector<Secret>{{"FIXTURE_TOKEN", "static text resource"}});
  KeelMcpServer server(std::move(options));
  auto session = server.new_session();
  auto ask = [&](json m) { return session->handle(m, [](const json&) {}).value_or(json()); };
  ask(session_request(0, "initialize", {{"protocolVersion", "2025-11-25"}}));
  std::string text = ask(session_request(1, "resources/read", {{"uri", "test://static-text"}}))["result"]["contents"][0]["text"];
  EXPECT_EQ(text.find("static text resource"), std::string::npos) << text;
  EXPECT_NE(text.find("FIXTURE_TOKEN"), std::string::npos) << text;
}

TEST(ResourceWatch, ReportsEachChangeOnceAndAVanishedResourceOnce) {
  std::atomic<int> version{1};
  std::atomic<bool> exists{true};
  ResourceWatch watch(
      [&](const std::string&) -> Result<std::string> {
        if (!exists) return Status::NotFound("gone");
        return std::to_string(version.load());
      },
      std::chrono::hours(1));  // the test polls by hand
  std::vector<std::string> seen;
  ASSERT_TRUE(watch.subscribe(1, "a", [&](const std::string& uri) { seen.push_back(uri); }).ok());
  watch.poll();
  EXPECT_TRUE(seen.empty());
  version = 2;
  watch.poll();
  watch.poll();
  EXPECT_EQ(seen.size(), 1u);
  exists = false;
  watch.poll();
  watch.poll();
  EXPECT_EQ(seen.size(), 2u);
  watch.drop(1);
  EXPECT_EQ(watch.size(), 0u);
  exists = false;
  EXPECT_EQ(watch.subscribe(2, "b", nullptr).code(), ErrorCode::kNotFound);
}

TEST(ClientRequests, ATimeoutTellsTheClientAndAnErrorAnswerIsAborted) {
  ClientRequests requests;
  Wire wire;
  Result<json> late = requests.ask("roots/list", json::object(), wire.sink(), 20ms, std::stop_token());
  EXPECT_EQ(late.status().code(), ErrorCode::kDeadlineExceeded);
  ASSERT_EQ(wire.with_method("notifications/cancelled").size(), 1u);
  EXPECT_FALSE(requests.resolve({{"id", wire.with_method("roots/list")[0]["id"]}, {"result", json::object()}}))
      << "an answer after the timeout is not taken";
  EXPECT_EQ(requests.waiting(), 0u);

  std::thread answer([&] {
    std::optional<json> asked;
    for (int i = 0; i < 500 && !asked; ++i) {
      auto all = wire.with_method("sampling/createMessage");
      if (!all.empty()) asked = all[0];
      else std::this_thread::sleep_for(2ms);
    }
    if (asked) requests.resolve({{"id", (*asked)["id"]}, {"error", {{"code", -1}, {"message", "user said no"}}}});
  });
  Result<json> refused = requests.ask("sampling/createMessage", json::object(), wire.sink(), 5s, std::stop_token());
  answer.join();
  EXPECT_EQ(refused.status().code(), ErrorCode::kAborted);
  EXPECT_NE(refused.status().message().find("user said no"), std::string::npos);
}

TEST(UriTemplate, MatchesSegmentsAndReservedPaths) {
  auto m = match_uri_template("test://template/{id}/data", "test://template/123/data");
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->at("id"), "123");
  EXPECT_FALSE(match_uri_template("test://template/{id}/data", "test://template/1/2/data").has_value());
  EXPECT_FALSE(match_uri_template("test://template/{id}/data", "test://template//data").has_value());
  EXPECT_FALSE(match_uri_template("test://template/{id}/data", "test://template/1/datax").has_value());
  auto path = match_uri_template("file://{+path}", "file:///ws/src/a.cpp");
  ASSERT_TRUE(path.has_value());
  EXPECT_EQ(path->at("path"), "/ws/src/a.cpp");
  auto session = match_uri_template("keel://sessions/{id}", "keel://sessions/abc");
  ASSERT_TRUE(session.has_value());
  EXPECT_EQ(session->at("id"), "abc");
  EXPECT_FALSE(match_uri_template("keel://sessions/{id}", "keel://memory/abc").has_value());
  EXPECT_FALSE(match_uri_template("keel://sessions/{id}", "keel://sessions/a/b").has_value());
}

}  // namespace
}  // namespace keel::mcp
