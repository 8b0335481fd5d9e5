// Shared helpers of the context pipeline tests: histories shaped like AgentMachine's, a counter
// with exact arithmetic (one token per byte) and a validity check (no orphaned tool message, no
// unanswered call).
#pragma once

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "keel/core/context_manager.hpp"
#include "keel/core/token_counter.hpp"
#include "keel/message.hpp"

namespace keel::testing_ctx {

// One token per byte, `overhead` per message.
class ByteCounter final : public TokenCounter {
 public:
  explicit ByteCounter(size_t overhead = 0) : overhead_(overhead) {}
  size_t count(std::string_view text) const override { return text.size(); }
  size_t per_message_overhead() const override { return overhead_; }

 private:
  size_t overhead_;
};

inline std::shared_ptr<const TokenCounter> bytes(size_t overhead = 0) {
  return std::make_shared<ByteCounter>(overhead);
}

inline Message task(std::string text) {
  Message m = Message::user(std::move(text));
  m.metadata["kind"] = "task";
  return m;
}

inline std::vector<Message> start(std::string system = "SYS", std::string task_text = "TASK") {
  return {Message::system(std::move(system)), task(std::move(task_text))};
}

inline Message result(std::string id, std::string name, std::string content, std::string status = "ok") {
  Message m;
  m.role = Role::kTool;
  m.tool_call_id = std::move(id);
  m.name = std::move(name);
  m.content = std::move(content);
  m.metadata["status"] = std::move(status);
  return m;
}

// Appends one tool round: an assistant call per result, then the results. Returns the call ids.
inline std::vector<std::string> add_round(std::vector<Message>& h, int round, const std::vector<std::string>& results,
                                          const std::string& tool = "fs_read", const std::string& status = "ok") {
  std::vector<ToolCall> calls;
  std::vector<std::string> ids;
  for (size_t i = 0; i < results.size(); ++i) {
    std::string id = "call_" + std::to_string(round) + "_" + std::to_string(i + 1);
    calls.push_back({id, tool, "{\"n\":" + std::to_string(round) + "}"});
    ids.push_back(id);
  }
  Message a = Message::assistant("", calls);
  a.metadata["round"] = std::to_string(round);
  h.push_back(std::move(a));
  for (size_t i = 0; i < results.size(); ++i) h.push_back(result(ids[i], tool, results[i], status));
  return ids;
}

inline std::string lines(size_t bytes, const std::string& first = "first line of output") {
  std::string s = first + "\n";
  while (s.size() < bytes) s += "more output here.\n";
  return s.substr(0, bytes);
}

// Every call answered right after its assistant message; every tool message answers such a call.
inline ::testing::AssertionResult valid_history(const std::vector<Message>& h) {
  for (size_t i = 0; i < h.size(); ++i) {
    if (h[i].role == Role::kTool) return ::testing::AssertionFailure() << "orphaned tool message at " << i;
    if (h[i].role != Role::kAssistant || h[i].tool_calls.empty()) continue;
    std::set<std::string> wanted;
    for (const ToolCall& c : h[i].tool_calls) wanted.insert(c.id);
    size_t j = i + 1;
    for (; j < h.size() && h[j].role == Role::kTool; ++j) {
      if (wanted.erase(h[j].tool_call_id) == 0) return ::testing::AssertionFailure() << "stray result at " << j;
    }
    if (!wanted.empty()) return ::testing::AssertionFailure() << "unanswered call " << *wanted.begin() << " at " << i;
    i = j - 1;
  }
  return ::testing::AssertionSuccess();
}

inline size_t total_tokens(const TokenCounter& c, const std::vector<Message>& h) {
  return count_breakdown(c, h, {}).total();
}

}  // namespace keel::testing_ctx
