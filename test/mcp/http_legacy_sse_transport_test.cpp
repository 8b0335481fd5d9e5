// The legacy HTTP+SSE client transport against the scriptable MCP test server: the endpoint
// event, POSTed messages answered on the event stream, the stream ending, and a bad or missing
// endpoint. Also the endpoint URL resolution it relies on.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mcp/http_client_transport.hpp"
#include "mcp/http_endpoint_url.hpp"
#include "mcp/http_test_inbox.hpp"
#include "support/mcp_http_test_server.hpp"

namespace keel::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

class LegacySseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.running());
    endpoint_event_ = "event: endpoint\ndata: /messages?session=abc\n\n";
    server_.set_responder([this](const McpRecordedRequest& r) { return legacy_route(r); });
  }

  // The legacy server: the event stream announces the endpoint; a POSTed request is answered on it.
  McpHttpReply legacy_route(const McpRecordedRequest& r) {
    if (r.method == "GET" && r.target == "/sse") {
      McpHttpReply stream = mcp_sse_reply({{0, ": hello\n\n"}, {0, endpoint_event_}});
      stream.channel = channel_;
      return stream;
    }
    if (r.method == "POST" && r.target == "/messages?session=abc") {
      if (r.message.contains("id")) channel_->push(mcp_sse_event(mcp_result(r.message, {{"ok", true}})));
      return mcp_status_reply(202, "Accepted");
    }
    return mcp_status_reply(404, "no route");
  }

  std::unique_ptr<mcp::Transport> make() {
    mcp::HttpServerSpec spec;
    spec.url = server_.url("/sse");
    spec.headers["Authorization"] = "Bearer legacy";
    return mcp::make_legacy_sse_transport(spec);
  }

  std::string endpoint_event_;
  std::shared_ptr<McpStreamChannel> channel_ = std::make_shared<McpStreamChannel>();
  McpHttpTestServer server_;
  HttpTestInbox inbox_;
};

TEST_F(LegacySseTest, PostedRequestIsAnsweredOnTheEventStream) {
  auto t = make();
  const Status started = t->start(inbox_.callbacks(), 5s);
  ASSERT_TRUE(started.ok()) << started.to_string();
  EXPECT_EQ(t->describe(), "http+sse: " + server_.url("/sse"));
  const json request = mcp_request(1, "initialize");
  const Status sent = t->send(request, inbox_.awaiting(1));
  ASSERT_TRUE(sent.ok()) << sent.to_string();
  ASSERT_TRUE(inbox_.wait_for_messages(1));
  EXPECT_EQ(inbox_.messages()[0], json::parse(R"({"jsonrpc":"2.0","id":1,"result":{"ok":true}})"));

  const std::vector<McpRecordedRequest> requests = server_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].method, "GET");
  EXPECT_EQ(requests[0].header("accept"), "text/event-stream");
  EXPECT_EQ(requests[0].header("authorization"), "Bearer legacy");
  EXPECT_EQ(requests[1].method, "POST");
  EXPECT_EQ(requests[1].header("content-type"), "application/json");
  EXPECT_EQ(requests[1].header("authorization"), "Bearer legacy");
  EXPECT_EQ(requests[1].message, request);

  const auto start = Clock::now();
  t->close(100ms);
  EXPECT_LE(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count(), 1000);
  EXPECT_TRUE(inbox_.closed().empty());  // a close() the client asked for is not reported
  EXPECT_TRUE(inbox_.garbage().empty());
}

// Hands out "token-1", "token-2", ... one per challenge answered, and records the challenges.
class CountingAuthorizer final : public mcp::HttpAuthorizer {
 public:
  std::string access_token() override {
    std::lock_guard lock(mu_);
    return issued_ == 0 ? "" : "token-" + std::to_string(issued_);
  }
  Status answer_challenge(long status, std::string_view www_authenticate, std::stop_token) override {
    std::lock_guard lock(mu_);
    challenges.push_back(std::to_string(status) + " " + std::string(www_authenticate));
    if (refuse) return Status::Unauthenticated("no sign-in stored; run keel mcp login legacy");
    ++issued_;
    return Status::Ok();
  }
  std::vector<std::string> challenges;
  bool refuse = false;

 private:
  std::mutex mu_;
  int issued_ = 0;
};

// OAuth on the legacy transport: the event stream and the messages get the token the authorizer
// obtains when the server answers 401 with a Bearer challenge, and a token the server stops taking
// is renewed on the message's 401; an operator's own Authorization header would win (as above).
TEST_F(LegacySseTest, AServersOAuthChallengeIsAnsweredOnTheStreamAndTheMessages) {
  std::string accepted = "token-1";
  std::mutex mu;
  server_.set_responder([&, this](const McpRecordedRequest& r) {
    std::string wanted;
    {
      std::lock_guard lock(mu);
      wanted = "Bearer " + accepted;
    }
    if (r.header("authorization") != wanted) {
      return mcp_status_reply(
          401, R"({"error":"invalid_token"})", "application/json",
          {{"WWW-Authenticate",
            "Bearer resource_metadata=\"" + server_.url("/.well-known/oauth-protected-resource/sse") + "\""}});
    }
    return legacy_route(r);
  });
  auto authorizer = std::make_shared<CountingAuthorizer>();
  mcp::HttpServerSpec spec;
  spec.url = server_.url("/sse");
  spec.authorizer = authorizer;
  auto t = mcp::make_legacy_sse_transport(spec);
  const Status started = t->start(inbox_.callbacks(), 5s);
  ASSERT_TRUE(started.ok()) << started.to_string();
  ASSERT_EQ(authorizer->challenges.size(), 1u);
  EXPECT_NE(authorizer->challenges[0].find("401 Bearer resource_metadata="), std::string::npos)
      << authorizer->challenges[0];

  {
    std::lock_guard lock(mu);
    accepted = "token-2";  // the server stops taking the first token
  }
  ASSERT_TRUE(t->send(mcp_request(1, "initialize"), inbox_.awaiting(1)).ok());
  ASSERT_TRUE(inbox_.wait_for_messages(1));
  EXPECT_EQ(authorizer->challenges.size(), 2u);
  const std::vector<McpRecordedRequest> requests = server_.requests();
  ASSERT_EQ(requests.size(), 4u);  // GET 401, GET, POST 401, POST
  EXPECT_EQ(requests[0].header("authorization"), "");
  EXPECT_EQ(requests[1].header("authorization"), "Bearer token-1");
  EXPECT_EQ(requests[2].header("authorization"), "Bearer token-1");
  EXPECT_EQ(requests[3].header("authorization"), "Bearer token-2");
  EXPECT_EQ(requests[3].method, "POST");
  t->close(100ms);
}

TEST_F(LegacySseTest, NoTokenToBeHadFailsTheStartWithTheAuthorizersReason) {
  server_.set_responder([](const McpRecordedRequest&) {
    return mcp_status_reply(401, "", "text/plain", {{"WWW-Authenticate", "Bearer"}});
  });
  auto authorizer = std::make_shared<CountingAuthorizer>();
  authorizer->refuse = true;
  mcp::HttpServerSpec spec;
  spec.url = server_.url("/sse");
  spec.authorizer = authorizer;
  auto t = mcp::make_legacy_sse_transport(spec);
  const Status started = t->start(inbox_.callbacks(), 5s);
  ASSERT_FALSE(started.ok());
  EXPECT_EQ(started.code(), ErrorCode::kUnauthenticated);
  EXPECT_NE(started.message().find("keel mcp login legacy"), std::string::npos) << started.message();
  EXPECT_EQ(server_.requests().size(), 1u);
}

TEST_F(LegacySseTest, StreamDropIsReportedOnceAsUnavailable) {
  auto t = make();
  ASSERT_TRUE(t->start(inbox_.callbacks(), 5s).ok());
  channel_->end(McpStreamEnd::kDrop);
  ASSERT_TRUE(inbox_.wait_for_closed());
  const std::vector<Status> closed = inbox_.closed();
  ASSERT_EQ(closed.size(), 1u);
  EXPECT_EQ(closed[0].code(), ErrorCode::kUnavailable);
  EXPECT_NE(closed[0].message().find("the event stream of " + server_.url("/sse")), std::string::npos)
      << closed[0].message();
  t->close(100ms);
  EXPECT_EQ(inbox_.closed().size(), 1u);
}

TEST_F(LegacySseTest, EndpointOnAnotherOriginIsRefused) {
  endpoint_event_ = "event: endpoint\ndata: http://198.51.100.7:8080/messages\n\n";
  auto t = make();
  const Status started = t->start(inbox_.callbacks(), 5s);
  EXPECT_EQ(started.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(started.message().find("another origin"), std::string::npos) << started.message();
  EXPECT_EQ(t->send(mcp_request(1, "initialize"), inbox_.awaiting(1)).code(), ErrorCode::kUnavailable);
  EXPECT_EQ(server_.requests().size(), 1u);
}

TEST_F(LegacySseTest, NoEndpointEventTimesOut) {
  endpoint_event_.clear();
  auto t = make();
  const auto start = Clock::now();
  const Status started = t->start(inbox_.callbacks(), 300ms);
  const int64_t elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
  EXPECT_EQ(started.code(), ErrorCode::kDeadlineExceeded);
  EXPECT_NE(started.message().find("no endpoint event within 300 ms"), std::string::npos) << started.message();
  EXPECT_GE(elapsed, 300);
  EXPECT_LE(elapsed, 3000);
  EXPECT_TRUE(inbox_.closed().empty());
}

TEST_F(LegacySseTest, RefusedStreamFailsStart) {
  server_.set_responder([](const McpRecordedRequest&) {
    return mcp_status_reply(401, "", "", {{"WWW-Authenticate", "Bearer"}});
  });
  auto t = make();
  const Status started = t->start(inbox_.callbacks(), 5s);
  EXPECT_EQ(started.code(), ErrorCode::kUnauthenticated);
  EXPECT_NE(started.message().find("HTTP 401 (WWW-Authenticate: Bearer)"), std::string::npos) << started.message();
}

TEST(EndpointUrlTest, ResolvesPathsAndRelativeReferencesOnTheSameOrigin) {
  using mcp::detail::resolve_endpoint_url;
  EXPECT_EQ(resolve_endpoint_url("http://127.0.0.1:8000/sse", "/messages?sessionId=1").value(),
            "http://127.0.0.1:8000/messages?sessionId=1");
  EXPECT_EQ(resolve_endpoint_url("http://host:81/a/sse", "messages").value(), "http://host:81/a/messages");
  EXPECT_EQ(resolve_endpoint_url("http://Host/sse", "http://host:80/m").value(), "http://host:80/m");
  EXPECT_EQ(resolve_endpoint_url("https://h/sse", "//h/m?x=1").value(), "https://h/m?x=1");
}

TEST(EndpointUrlTest, RefusesOtherOriginsAndNonUrls) {
  using mcp::detail::resolve_endpoint_url;
  for (const char* reference :
       {"http://other:8000/m", "https://127.0.0.1:8000/m", "http://127.0.0.1:8001/m", "//evil/m", "", "/m\nx"}) {
    const Result<std::string> r = resolve_endpoint_url("http://127.0.0.1:8000/sse", reference);
    EXPECT_FALSE(r.ok()) << reference;
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument) << reference;
  }
}

}  // namespace
}  // namespace keel::testing
