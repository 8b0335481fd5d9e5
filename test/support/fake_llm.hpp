// Test helper: an LlmClient that replays scripted replies and records what it was asked.
#pragma once

#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "keel/llm_client.hpp"

namespace keel::testing {

// What one request looked like, copied for assertions after the run.
struct RecordedRequest {
  std::vector<Message> messages;  // history + appended, in send order
  std::vector<std::string> tools; // tool names offered
  bool tools_enabled = true;
  int round = 0;
};

// Thread-safety: all methods lock; safe to inspect from the test thread after a run.
class FakeLlm final : public LlmClient {
 public:
  void push(Result<ModelReply> reply);
  void push_text(std::string text);
  void push_call(std::string name, std::string arguments_json);
  // Called before each reply is returned (e.g. to block until stopped).
  void set_before_reply(std::function<void(const CallOptions&)> fn);

  Result<ModelReply> complete(const ModelRequest& request, const CallOptions& options) override;
  std::string describe() const override { return "fake"; }

  std::vector<RecordedRequest> requests() const;

 private:
  mutable std::mutex mu_;
  std::deque<Result<ModelReply>> script_;
  std::vector<RecordedRequest> requests_;
  std::function<void(const CallOptions&)> before_reply_;
};

}  // namespace keel::testing
