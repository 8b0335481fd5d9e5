// Test fixture for the AG-UI endpoint: the OpenAI endpoint fixture's server, store, mock model and
// agent factory with POST /agui mounted instead, and helpers to build RunAgentInput bodies and read
// the AG-UI event stream.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/agui_endpoint.hpp"
#include "api/openai_endpoint_fixture.hpp"  // call(), reply(), parse_sse()

namespace keel::testing {

// The AG-UI events of a stream body, in order; a block that is not "data: {json}" fails the test.
inline std::vector<nlohmann::json> agui_events(std::string_view body) {
  std::vector<nlohmann::json> out;
  for (const ChunkEvent& e : parse_sse(body)) {
    if (e.comment) continue;
    nlohmann::json event = nlohmann::json::parse(e.text, nullptr, false);
    if (event.is_discarded() || !event.is_object() || !event.contains("type")) {
      ADD_FAILURE() << "not an AG-UI event: " << e.text;
      continue;
    }
    out.push_back(std::move(event));
  }
  return out;
}

// The events' types, with runs of TEXT_MESSAGE_CONTENT shown once (how a model's text is cut into
// pieces is the backend's business).
inline std::vector<std::string> agui_types(const std::vector<nlohmann::json>& events) {
  std::vector<std::string> types;
  for (const nlohmann::json& e : events) {
    const std::string type = e["type"].get<std::string>();
    if (type == "TEXT_MESSAGE_CONTENT" && !types.empty() && types.back() == type) continue;
    types.push_back(type);
  }
  return types;
}

// The events of one type.
inline std::vector<nlohmann::json> agui_of(const std::vector<nlohmann::json>& events, std::string_view type) {
  std::vector<nlohmann::json> out;
  for (const nlohmann::json& e : events) {
    if (e["type"] == type) out.push_back(e);
  }
  return out;
}

// The text of the TEXT_MESSAGE_CONTENT events of message `id`, joined.
inline std::string agui_text(const std::vector<nlohmann::json>& events, const std::string& id) {
  std::string text;
  for (const nlohmann::json& e : events) {
    if (e["type"] == "TEXT_MESSAGE_CONTENT" && e["messageId"] == id) text += e["delta"].get<std::string>();
  }
  return text;
}

// A message as an AG-UI client sends it.
inline nlohmann::json agui_user(std::string id, std::string text) {
  return {{"id", std::move(id)}, {"role", "user"}, {"content", std::move(text)}};
}
inline nlohmann::json agui_assistant(std::string id, std::string text, nlohmann::json calls = nullptr) {
  nlohmann::json m = {{"id", std::move(id)}, {"role", "assistant"}, {"content", std::move(text)}};
  if (!calls.is_null()) m["toolCalls"] = std::move(calls);
  return m;
}
inline nlohmann::json agui_tool(std::string id, std::string call_id, std::string content) {
  return {{"id", std::move(id)}, {"role", "tool"}, {"toolCallId", std::move(call_id)}, {"content", std::move(content)}};
}

// A RunAgentInput for `thread` with `messages`.
inline nlohmann::json agui_input(std::string thread, nlohmann::json messages, std::string run = "run-1") {
  return {{"threadId", std::move(thread)},
          {"runId", std::move(run)},
          {"state", nlohmann::json::object()},
          {"messages", std::move(messages)},
          {"tools", nlohmann::json::array()},
          {"context", nlohmann::json::array()},
          {"forwardedProps", nlohmann::json::object()}};
}

// The session id the stream's first STATE_SNAPSHOT names.
inline std::string agui_session(const std::vector<nlohmann::json>& events) {
  for (const nlohmann::json& e : events) {
    if (e["type"] == "STATE_SNAPSHOT") return e["snapshot"]["keel"].value("session_id", "");
  }
  return "";
}

class AguiEndpointFixture : public OpenAiEndpointFixture {
 protected:
  void mount(const api::ApiAccess& access) override {
    api::AguiEndpointOptions options;
    options.workspaces = {dir_.path().string()};
    if (approvals_wait_) {
      options.pending = &pending_;
      options.approval_timeout = approval_timeout_;
      options.asker = forwarding_;
    }
    ASSERT_TRUE(api::mount_agui_endpoint(*http_, *factory_, *workers_, *store_, access, options).ok());
  }

  // Set before start(): calls that need approval wait on pending_ (as under keel serve).
  bool approvals_wait_ = false;
  std::chrono::milliseconds approval_timeout_ = std::chrono::seconds(20);
  api::PendingInput pending_;
  // Set as the agents' asker (asker_) by tests that ask questions, before start().
  std::shared_ptr<api::ForwardingAsker> forwarding_ = std::make_shared<api::ForwardingAsker>();

  // POST /agui with `body` (sent as is) and `extra` header lines.
  std::optional<RawHttpResponse> post(std::string_view body, std::string_view extra = "") {
    std::string headers = "Content-Type: application/json\r\nAccept: text/event-stream\r\n";
    headers.append(extra);
    return raw_http(http_->port(), "POST", "/agui", headers, body, 20000);
  }
  std::optional<RawHttpResponse> post(const char* body, std::string_view extra = "") {
    return post(std::string_view(body), extra);
  }
  std::optional<RawHttpResponse> post(const nlohmann::json& body, std::string_view extra = "") {
    return post(std::string_view(body.dump()), extra);
  }

  // Sends POST /agui with `body` on a connection of its own and reads the answer's head, which must
  // be 200; the stream is then the caller's to read (read_chunk) or to drop (the client leaves).
  std::unique_ptr<RawHttpClient> open_stream(const std::string& body) {
    auto client = std::make_unique<RawHttpClient>(http_->port());
    std::string request = "POST /agui HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n";
    request.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n\r\n").append(body);
    auto head = client->ok() && client->send(request) ? client->read_head(10000) : std::nullopt;
    if (!head || head->status != 200) {
      ADD_FAILURE() << "POST /agui did not answer 200";
      return nullptr;
    }
    return client;
  }

  // The stored conversation of `session` as "role: content" lines (the system prompt left out).
  std::vector<std::string> stored(const std::string& session) {
    std::vector<std::string> out;
    auto messages = store_->load_messages(session);
    if (!messages.ok()) {
      ADD_FAILURE() << messages.status().to_string();
      return out;
    }
    for (const StoredMessage& m : *messages) {
      if (m.message.role == Role::kSystem) continue;
      out.push_back(std::string(role_name(m.message.role)) + ": " + m.message.content);
    }
    return out;
  }
};

}  // namespace keel::testing
