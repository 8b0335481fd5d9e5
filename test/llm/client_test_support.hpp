// Shared helpers of the OpenAI client tests: a small conversation and client options tuned for a
// fast suite (10 ms backoff, short timeouts) pointing at a MockLlmServer.
#pragma once

#include <chrono>
#include <vector>

#include "keel/openai_client.hpp"
#include "support/mock_llm_server.hpp"

namespace keel::testing {

struct Conversation {
  std::vector<Message> history{Message::system("You are terse."), Message::user("Say hello.")};
  std::vector<ToolSpec> tools;

  Conversation() {
    ToolSpec spec;
    spec.name = "read_file";
    spec.description = "Reads a file.";
    tools.push_back(spec);
  }

  ModelRequest request(bool tools_enabled = true) const {
    ModelRequest r;
    r.history = history;
    r.tools = tools;
    r.tools_enabled = tools_enabled;
    return r;
  }
};

inline OpenAiOptions fast_options(const MockLlmServer& server) {
  OpenAiOptions o;
  o.base_url = server.base_url() + "/";  // the trailing slash must be stripped
  o.api_key = "sk-test";
  o.model = "mock-model";
  o.connect_timeout_ms = 2000;
  o.request_timeout_ms = 5000;
  o.stream_idle_timeout_ms = 2000;
  o.retry.initial_delay_ms = 10;
  o.retry.max_delay_ms = 2000;
  return o;
}

inline int64_t elapsed_ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace keel::testing
