// The Streamable HTTP client transport against the scriptable MCP test server: answers (JSON, SSE,
// arrays), session and protocol headers, error mapping, resumption with Last-Event-ID, timeouts,
// cancellation, parallel sends, the listen stream and ending the session.
#include "mcp/http_client_transport.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "mcp/http_test_inbox.hpp"
#include "support/mcp_http_test_server.hpp"

namespace keel::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

const json kProgress = {
    {"jsonrpc", "2.0"}, {"method", "notifications/progress"}, {"params", {{"progressToken", "p"}, {"progress", 1}}}};

class StreamableHttpTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(server_.running()); }

  std::unique_ptr<mcp::Transport> connect() {
    mcp::HttpServerSpec spec;
    spec.url = server_.url();
    spec.headers["Authorization"] = "Bearer t0ken";
    spec.connect_timeout_ms = 2000;
    std::unique_ptr<mcp::Transport> t = mcp::make_streamable_http_transport(spec);
    const Status started = t->start(inbox_.callbacks(), 1s);
    EXPECT_TRUE(started.ok()) << started.to_string();
    return t;
  }

  // Answers initialize with session `session`, notifications with 202, other requests with {}.
  void serve_session(const std::string& session) {
    server_.set_responder([session](const McpRecordedRequest& r) {
      if (r.method == "DELETE") return mcp_status_reply(200);
      if (!r.message.contains("id")) return mcp_status_reply(202);
      if (r.message.value("method", "") == "initialize") {
        return mcp_json_reply(mcp_result(r.message, {{"protocolVersion", "2025-11-25"}}),
                              {{"Mcp-Session-Id", session}});
      }
      return mcp_json_reply(mcp_result(r.message, json::object()));
    });
  }

  McpHttpTestServer server_;
  HttpTestInbox inbox_;
};

TEST_F(StreamableHttpTest, JsonAnswerIsDeliveredWithTheProtocolHeaders) {
  server_.set_responder([](const McpRecordedRequest& r) {
    return mcp_json_reply(mcp_result(r.message, {{"tools", json::array()}}));
  });
  auto t = connect();
  const json request = mcp_request(1, "tools/list");
  const Status sent = t->send(request, inbox_.awaiting(1));
  ASSERT_TRUE(sent.ok()) << sent.to_string();
  const std::vector<json> messages = inbox_.messages();
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0], json::parse(R"({"jsonrpc":"2.0","id":1,"result":{"tools":[]}})"));
  const std::vector<McpRecordedRequest> requests = server_.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].target, "/mcp");
  EXPECT_EQ(requests[0].message, request);
  EXPECT_EQ(requests[0].header("content-type"), "application/json");
  EXPECT_EQ(requests[0].header("accept"), "application/json, text/event-stream");
  EXPECT_EQ(requests[0].header("authorization"), "Bearer t0ken");
  EXPECT_EQ(requests[0].headers.count("mcp-session-id"), 0u);
  EXPECT_EQ(requests[0].headers.count("mcp-protocol-version"), 0u);
  EXPECT_EQ(t->describe(), "http: " + server_.url());
  EXPECT_TRUE(inbox_.garbage().empty());
}

TEST_F(StreamableHttpTest, SseAnswerDeliversTheNotificationThenTheResponse) {
  server_.set_responder([](const McpRecordedRequest& r) {
    return mcp_sse_reply({{0, ": keep-alive\n\n"},
                          {0, "id: p0\ndata:\n\n"},  // a priming event: no message, not garbage
                          {0, mcp_sse_event(kProgress, "e1")},
                          {50, mcp_sse_event(mcp_result(r.message, {{"content", json::array()}}), "e2")}});
  });
  auto t = connect();
  const Status sent = t->send(mcp_request(7, "tools/call"), inbox_.awaiting(7));
  ASSERT_TRUE(sent.ok()) << sent.to_string();
  const std::vector<json> messages = inbox_.messages();
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0], kProgress);
  EXPECT_EQ(messages[1], json::parse(R"({"jsonrpc":"2.0","id":7,"result":{"content":[]}})"));
  EXPECT_TRUE(inbox_.garbage().empty());
}

TEST_F(StreamableHttpTest, EventDataThatIsNotJsonIsGarbage) {
  server_.set_responder([](const McpRecordedRequest& r) {
    return mcp_sse_reply({{0, "data: {not json\n\n"}, {0, mcp_sse_event(mcp_result(r.message, json::object()))}});
  });
  auto t = connect();
  ASSERT_TRUE(t->send(mcp_request(1, "ping"), inbox_.awaiting(1)).ok());
  const std::vector<std::string> garbage = inbox_.garbage();
  ASSERT_EQ(garbage.size(), 1u);
  EXPECT_NE(garbage[0].find("not JSON"), std::string::npos) << garbage[0];
  EXPECT_NE(garbage[0].find("{not json"), std::string::npos) << garbage[0];
  EXPECT_TRUE(inbox_.has_response(1));
}

TEST_F(StreamableHttpTest, ArrayAnswerIsDeliveredElementByElement) {
  server_.set_responder([](const McpRecordedRequest& r) {
    return mcp_json_reply(json::array({kProgress, mcp_result(r.message, {{"n", 2}})}));
  });
  auto t = connect();
  ASSERT_TRUE(t->send(mcp_request(3, "tools/call"), inbox_.awaiting(3)).ok());
  const std::vector<json> messages = inbox_.messages();
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0], kProgress);
  EXPECT_EQ(messages[1]["result"]["n"], 2);
}

TEST_F(StreamableHttpTest, JsonRpcErrorResponseIsAMessageNotAFailure) {
  server_.set_responder([](const McpRecordedRequest& r) {
    json error = {
        {"jsonrpc", "2.0"}, {"id", r.message["id"]}, {"error", {{"code", -32601}, {"message", "no such method"}}}};
    return mcp_json_reply(error);
  });
  auto t = connect();
  const Status sent = t->send(mcp_request(4, "nope"), inbox_.awaiting(4));
  ASSERT_TRUE(sent.ok()) << sent.to_string();
  ASSERT_EQ(inbox_.messages().size(), 1u);
  EXPECT_EQ(inbox_.messages()[0]["error"]["code"], -32601);
}

TEST_F(StreamableHttpTest, SessionIdIsCapturedAndSentOnLaterRequests) {
  serve_session("sess-42");
  auto t = connect();
  ASSERT_TRUE(t->send(mcp_request(1, "initialize"), inbox_.awaiting(1)).ok());
  mcp::SendOptions notify;
  ASSERT_TRUE(t->send(mcp_notification("notifications/initialized"), notify).ok());
  ASSERT_TRUE(t->send(mcp_request(2, "tools/list"), inbox_.awaiting(2)).ok());
  const std::vector<McpRecordedRequest> requests = server_.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0].headers.count("mcp-session-id"), 0u);
  EXPECT_EQ(requests[1].header("mcp-session-id"), "sess-42");
  EXPECT_EQ(requests[2].header("mcp-session-id"), "sess-42");
}

TEST_F(StreamableHttpTest, ProtocolVersionHeaderIsSentAfterItIsSet) {
  serve_session("s");
  auto t = connect();
  ASSERT_TRUE(t->send(mcp_request(1, "initialize"), inbox_.awaiting(1)).ok());
  t->set_protocol_version("2025-11-25");
  ASSERT_TRUE(t->send(mcp_request(2, "tools/list"), inbox_.awaiting(2)).ok());
  const std::vector<McpRecordedRequest> requests = server_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].headers.count("mcp-protocol-version"), 0u);
  EXPECT_EQ(requests[1].header("mcp-protocol-version"), "2025-11-25");
}

TEST_F(StreamableHttpTest, NotificationAnsweredWith202OrAnEmpty200IsDone) {
  std::atomic<int> calls{0};
  server_.set_responder([&calls](const McpRecordedRequest&) {
    return ++calls == 1 ? mcp_status_reply(202, "", "") : mcp_status_reply(200, "", "");
  });
  auto t = connect();
  mcp::SendOptions options;
  options.timeout = 2s;
  EXPECT_TRUE(t->send(mcp_notification("notifications/initialized"), options).ok());
  EXPECT_TRUE(t->send(mcp_notification("notifications/cancelled"), options).ok());
  EXPECT_EQ(server_.requests().size(), 2u);
  EXPECT_TRUE(inbox_.messages().empty());
  EXPECT_TRUE(inbox_.garbage().empty());
}

TEST_F(StreamableHttpTest, NotFoundWithASessionMeansTheSessionExpired) {
  serve_session("old-session");
  auto t = connect();
  ASSERT_TRUE(t->send(mcp_request(1, "initialize"), inbox_.awaiting(1)).ok());
  server_.set_responder([](const McpRecordedRequest&) { return mcp_status_reply(404, "unknown session"); });
  const Status expired = t->send(mcp_request(2, "tools/list"), inbox_.awaiting(2));
  EXPECT_EQ(expired.code(), ErrorCode::kUnavailable);
  EXPECT_NE(expired.message().find("MCP session expired"), std::string::npos) << expired.message();
  EXPECT_NE(expired.message().find("old-session"), std::string::npos) << expired.message();
  // The session is forgotten: the next request (a new initialize) carries none.
  (void)t->send(mcp_request(3, "initialize"), inbox_.awaiting(3));
  const std::vector<McpRecordedRequest> requests = server_.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[1].header("mcp-session-id"), "old-session");
  EXPECT_EQ(requests[2].headers.count("mcp-session-id"), 0u);
}

TEST_F(StreamableHttpTest, UnauthorizedAndForbiddenAreUnauthenticated) {
  std::atomic<int> calls{0};
  server_.set_responder([&calls](const McpRecordedRequest&) {
    if (++calls == 1) {
      return mcp_status_reply(401, R"({"error":"invalid_token"})", "application/json",
                              {{"WWW-Authenticate", R"(Bearer resource_metadata="http://a/.well-known/x")"}});
    }
    return mcp_status_reply(403, "forbidden");
  });
  auto t = connect();
  const Status unauthorized = t->send(mcp_request(1, "initialize"), inbox_.awaiting(1));
  EXPECT_EQ(unauthorized.code(), ErrorCode::kUnauthenticated);
  EXPECT_NE(unauthorized.message().find(R"(WWW-Authenticate: Bearer resource_metadata="http://a/.well-known/x")"),
            std::string::npos)
      << unauthorized.message();
  EXPECT_NE(unauthorized.message().find("HTTP 401 (WWW"), std::string::npos) << unauthorized.message();
  EXPECT_NE(unauthorized.message().find("\"): invalid_token"), std::string::npos) << unauthorized.message();
  const Status forbidden = t->send(mcp_request(2, "initialize"), inbox_.awaiting(2));
  EXPECT_EQ(forbidden.code(), ErrorCode::kUnauthenticated);
  EXPECT_NE(forbidden.message().find("HTTP 403: forbidden"), std::string::npos) << forbidden.message();
}

TEST_F(StreamableHttpTest, OtherErrorsMapToInvalidArgumentOrUnavailable) {
  std::atomic<int> calls{0};
  server_.set_responder([&calls](const McpRecordedRequest&) {
    if (++calls == 1) {
      return mcp_status_reply(
          400, R"({"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad Request: no session"}})",
          "application/json");
    }
    return mcp_status_reply(503, "overloaded");
  });
  auto t = connect();
  const Status bad = t->send(mcp_request(1, "tools/list"), inbox_.awaiting(1));
  EXPECT_EQ(bad.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(bad.message().find("HTTP 400: Bad Request: no session"), std::string::npos) << bad.message();
  const Status down = t->send(mcp_request(2, "tools/list"), inbox_.awaiting(2));
  EXPECT_EQ(down.code(), ErrorCode::kUnavailable);
  EXPECT_NE(down.message().find("HTTP 503: overloaded"), std::string::npos) << down.message();
  EXPECT_TRUE(inbox_.messages().empty());  // an error body is not a message

  const std::string url = server_.url();
  server_.stop();  // now nothing listens on the port
  const Status refused = t->send(mcp_request(3, "tools/list"), inbox_.awaiting(3, 2s));
  EXPECT_EQ(refused.code(), ErrorCode::kUnavailable) << refused.to_string();
}

TEST_F(StreamableHttpTest, StreamClosedAfterAPrimingEventIsResumedWithLastEventIdAfterRetry) {
  server_.set_responder([](const McpRecordedRequest& r) {
    if (r.method == "GET") {
      json response = {{"jsonrpc", "2.0"}, {"id", 2}, {"result", {{"resumed", true}}}};
      return mcp_sse_reply({{0, mcp_sse_event(response, "e2")}});
    }
    if (r.message.value("method", "") == "initialize") {
      return mcp_json_reply(mcp_result(r.message, json::object()), {{"Mcp-Session-Id", "s1"}});
    }
    return mcp_sse_reply({{0, "id: e1\nretry: 300\ndata:\n\n"}});  // then a graceful close
  });
  auto t = connect();
  ASSERT_TRUE(t->send(mcp_request(1, "initialize"), inbox_.awaiting(1)).ok());
  t->set_protocol_version("2025-11-25");
  const Status sent = t->send(mcp_request(2, "tools/call"), inbox_.awaiting(2, 10s));
  ASSERT_TRUE(sent.ok()) << sent.to_string();
  EXPECT_TRUE(inbox_.has_response(2));
  const std::vector<McpRecordedRequest> requests = server_.requests();
  ASSERT_EQ(requests.size(), 3u);
  const McpRecordedRequest& get = requests[2];
  EXPECT_EQ(get.method, "GET");
  EXPECT_EQ(get.target, "/mcp");
  EXPECT_EQ(get.header("last-event-id"), "e1");
  EXPECT_EQ(get.header("accept"), "text/event-stream");
  EXPECT_EQ(get.header("mcp-session-id"), "s1");
  EXPECT_EQ(get.header("mcp-protocol-version"), "2025-11-25");
  EXPECT_EQ(get.header("authorization"), "Bearer t0ken");
  const int64_t waited = ms_between(requests[1].finished, get.received);
  EXPECT_GE(waited, 300) << "reconnected before the server's retry delay";
  EXPECT_LE(waited, 2300);
  const std::vector<std::string> logs = inbox_.logs();
  ASSERT_EQ(logs.size(), 1u);
  EXPECT_NE(logs[0].find("resuming from event e1 after 300 ms"), std::string::npos) << logs[0];
}

TEST_F(StreamableHttpTest, BrokenStreamIsResumedToo) {
  server_.set_responder([](const McpRecordedRequest& r) {
    if (r.method == "GET") return mcp_sse_reply({{0, mcp_sse_event(mcp_result(json{{"id", 5}}, {{"ok", 1}}), "b2")}});
    return mcp_sse_reply({{0, "retry: 50\n"}, {0, mcp_sse_event(kProgress, "b1")}}, McpStreamEnd::kDrop);
  });
  auto t = connect();
  const Status sent = t->send(mcp_request(5, "tools/call"), inbox_.awaiting(5));
  ASSERT_TRUE(sent.ok()) << sent.to_string();
  const std::vector<json> messages = inbox_.messages();
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0], kProgress);
  EXPECT_EQ(messages[1]["id"], 5);
  ASSERT_EQ(server_.requests().size(), 2u);
  EXPECT_EQ(server_.requests()[1].header("last-event-id"), "b1");
}

TEST_F(StreamableHttpTest, StreamEndingWithoutAnEventIdCannotBeResumed) {
  server_.set_responder([](const McpRecordedRequest&) { return mcp_sse_reply({{0, mcp_sse_event(kProgress)}}); });
  auto t = connect();
  const Status sent = t->send(mcp_request(1, "tools/call"), inbox_.awaiting(1));
  EXPECT_EQ(sent.code(), ErrorCode::kUnavailable);
  EXPECT_NE(sent.message().find("the server closed the stream before answering"), std::string::npos) << sent.message();
  EXPECT_EQ(inbox_.messages().size(), 1u);   // the notification still arrived
  EXPECT_EQ(server_.requests().size(), 1u);  // and nothing was resumed
}

TEST_F(StreamableHttpTest, ResumptionIsBounded) {
  server_.set_responder([](const McpRecordedRequest& r) {
    if (r.method == "GET") return mcp_sse_reply({});  // an empty stream, closed at once
    return mcp_sse_reply({{0, "id: x1\nretry: 10\ndata:\n\n"}});
  });
  auto t = connect();
  const Status sent = t->send(mcp_request(1, "tools/call"), inbox_.awaiting(1));
  EXPECT_EQ(sent.code(), ErrorCode::kUnavailable);
  EXPECT_NE(sent.message().find("6 times in a row"), std::string::npos) << sent.message();
  EXPECT_EQ(server_.requests().size(), 6u);  // the POST and 5 resumptions
}

TEST_F(StreamableHttpTest, SilentServerTimesOutCloseToTheTimeout) {
  server_.set_responder([](const McpRecordedRequest& r) {
    if (r.message.value("method", "") == "slow/head") {
      McpHttpReply never = mcp_status_reply(200);
      never.delay_ms = 60000;
      return never;
    }
    return mcp_sse_reply({}, McpStreamEnd::kHold);  // a stream that never says anything
  });
  auto t = connect();
  for (const char* method : {"slow/head", "slow/stream"}) {
    const auto start = Clock::now();
    const Status sent = t->send(mcp_request(1, method), inbox_.awaiting(1, 400ms));
    const int64_t elapsed = ms_between(start, Clock::now());
    EXPECT_EQ(sent.code(), ErrorCode::kDeadlineExceeded) << method << ": " << sent.to_string();
    EXPECT_NE(sent.message().find("within 400 ms"), std::string::npos) << sent.message();
    EXPECT_GE(elapsed, 400) << method;
    EXPECT_LE(elapsed, 3000) << method;
  }
}

TEST_F(StreamableHttpTest, StopTokenCancelsPromptly) {
  server_.set_responder([](const McpRecordedRequest&) { return mcp_sse_reply({}, McpStreamEnd::kHold); });
  auto t = connect();
  std::stop_source stop;
  Clock::time_point stopped_at;
  std::thread stopper([&] {
    ASSERT_TRUE(server_.wait_for_requests(1, 5s));
    std::this_thread::sleep_for(100ms);
    stopped_at = Clock::now();
    stop.request_stop();
  });
  mcp::SendOptions options = inbox_.awaiting(1, 30s);
  options.stop = stop.get_token();
  const Status sent = t->send(mcp_request(1, "tools/call"), options);
  const Clock::time_point returned = Clock::now();
  stopper.join();
  EXPECT_EQ(sent.code(), ErrorCode::kCancelled) << sent.to_string();
  const int64_t latency = ms_between(stopped_at, returned);
  EXPECT_LE(latency, 1000) << "cancellation took " << latency << " ms";
  std::printf("cancellation latency: %lld ms\n", static_cast<long long>(latency));
}

TEST_F(StreamableHttpTest, ParallelSendsAllGetTheirResponsesOverReusedConnections) {
  constexpr int kParallel = 4;
  std::atomic<int> arrived{0};
  std::atomic<bool> barrier{true};
  server_.set_responder([&](const McpRecordedRequest& r) {
    ++arrived;
    // Each answer waits until all requests are in flight: serialised sends would time out here.
    const auto until = Clock::now() + 5s;
    while (barrier.load() && arrived.load() < kParallel && Clock::now() < until) std::this_thread::sleep_for(2ms);
    if (barrier.load() && arrived.load() < kParallel) return mcp_status_reply(500, "requests were not parallel");
    return mcp_sse_reply({{0, mcp_sse_event(mcp_result(r.message, {{"id", r.message["id"]}}))}});
  });
  auto t = connect();
  std::vector<Status> results(kParallel);
  std::vector<std::thread> threads;
  for (int i = 0; i < kParallel; ++i) {
    threads.emplace_back(
        [&, i] { results[i] = t->send(mcp_request(i + 1, "tools/call"), inbox_.awaiting(i + 1, 10s)); });
  }
  for (std::thread& thread : threads) thread.join();
  for (int i = 0; i < kParallel; ++i) {
    EXPECT_TRUE(results[i].ok()) << i << ": " << results[i].to_string();
    EXPECT_TRUE(inbox_.has_response(i + 1)) << i;
  }
  barrier = false;
  const size_t connections = server_.connections_accepted();
  EXPECT_EQ(connections, static_cast<size_t>(kParallel));
  for (int i = 0; i < kParallel; ++i) {
    ASSERT_TRUE(t->send(mcp_request(10 + i, "tools/call"), inbox_.awaiting(10 + i)).ok());
  }
  EXPECT_EQ(server_.connections_accepted(), connections) << "sequential sends opened new connections";
}

TEST_F(StreamableHttpTest, ListenStreamAnswered405IsQuiet) {
  server_.set_responder([](const McpRecordedRequest&) { return mcp_status_reply(405, "no GET here"); });
  auto t = connect();
  t->open_listen_stream();
  ASSERT_TRUE(server_.wait_for_requests(1, 5s));
  std::this_thread::sleep_for(300ms);
  const std::vector<McpRecordedRequest> requests = server_.requests();
  ASSERT_EQ(requests.size(), 1u);  // no retries
  EXPECT_EQ(requests[0].method, "GET");
  EXPECT_EQ(requests[0].header("accept"), "text/event-stream");
  t->close(100ms);
  EXPECT_EQ(server_.requests().size(), 1u);  // no session: no DELETE
  EXPECT_TRUE(inbox_.closed().empty());
  EXPECT_TRUE(inbox_.garbage().empty());
  EXPECT_TRUE(inbox_.logs().empty());
}

TEST_F(StreamableHttpTest, ListenStreamDeliversServerMessagesReconnectsAndEndsAtClose) {
  std::atomic<int> gets{0};
  server_.set_responder([&gets](const McpRecordedRequest&) {
    if (++gets == 1) return mcp_sse_reply({{0, "retry: 100\n" + mcp_sse_event(kProgress, "L1")}});
    return mcp_sse_reply({}, McpStreamEnd::kHold);
  });
  auto t = connect();
  t->open_listen_stream();
  ASSERT_TRUE(inbox_.wait_for_messages(1));
  ASSERT_TRUE(server_.wait_for_requests(2, 5s));
  EXPECT_EQ(inbox_.messages()[0], kProgress);
  const std::vector<McpRecordedRequest> requests = server_.requests();
  EXPECT_EQ(requests[0].headers.count("last-event-id"), 0u);
  EXPECT_EQ(requests[1].header("last-event-id"), "L1");
  // The client waits `retry` from the moment it sees the stream end; the server notes `finished`
  // once its last write returns, which on a loaded machine can come some milliseconds later.
  EXPECT_GE(ms_between(requests[0].finished, requests[1].received), 80);
  const auto start = Clock::now();
  t->close(100ms);
  EXPECT_LE(ms_between(start, Clock::now()), 1000) << "close() waited for the held stream";
  EXPECT_TRUE(inbox_.closed().empty());
}

TEST_F(StreamableHttpTest, CloseEndsTheSessionWithDeleteOnce) {
  serve_session("s-del");
  auto t = connect();
  ASSERT_TRUE(t->send(mcp_request(1, "initialize"), inbox_.awaiting(1)).ok());
  t->close(1s);
  t->close(1s);
  const std::vector<McpRecordedRequest> requests = server_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[1].method, "DELETE");
  EXPECT_EQ(requests[1].header("mcp-session-id"), "s-del");
  EXPECT_EQ(requests[1].header("authorization"), "Bearer t0ken");
  const Status after = t->send(mcp_request(2, "tools/list"), inbox_.awaiting(2));
  EXPECT_EQ(after.code(), ErrorCode::kUnavailable);
  EXPECT_EQ(server_.requests().size(), 2u);
}

TEST_F(StreamableHttpTest, CloseAbandonsASendInFlight) {
  server_.set_responder([](const McpRecordedRequest&) { return mcp_sse_reply({}, McpStreamEnd::kHold); });
  auto t = connect();
  Status sent;
  std::thread sender([&] { sent = t->send(mcp_request(1, "tools/call"), inbox_.awaiting(1, 30s)); });
  ASSERT_TRUE(server_.wait_for_requests(1, 5s));
  t->close(100ms);
  sender.join();
  EXPECT_EQ(sent.code(), ErrorCode::kCancelled) << sent.to_string();
  EXPECT_TRUE(inbox_.closed().empty());
}

TEST(StreamableHttpSpecTest, BadUrlOrHeaderIsRejectedAtStart) {
  HttpTestInbox inbox;
  mcp::HttpServerSpec spec;
  spec.url = "ftp://127.0.0.1/mcp";
  EXPECT_EQ(mcp::make_streamable_http_transport(spec)->start(inbox.callbacks(), 1s).code(),
            ErrorCode::kInvalidArgument);
  spec.url = "http://127.0.0.1:1/mcp";
  spec.headers["X-Evil"] = "a\r\nInjected: yes";
  const Status bad_header = mcp::make_streamable_http_transport(spec)->start(inbox.callbacks(), 1s);
  EXPECT_EQ(bad_header.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(bad_header.message().find("X-Evil"), std::string::npos) << bad_header.message();
}

}  // namespace
}  // namespace keel::testing
