// Helpers of the executable-skill tests: skills built in code, and a model that answers by rule
// (so skills running in parallel each get their own reply) and records every request.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "keel/executable_skill.hpp"
#include "keel/llm_client.hpp"

namespace keel::testing {

// What one request looked like.
struct SkillRequest {
  std::string system;  // the first (system) message
  std::string user;    // the first user message
  std::vector<Message> messages;
  int round = 0;
  std::optional<int> max_tokens;
  int64_t timeout_ms = 0;
};

// The skill a request is for, read from the system prompt ("You carry out the skill \"ID\"").
inline std::string skill_of(const SkillRequest& r) {
  const std::string marker = "the skill \"";
  size_t b = r.system.find(marker);
  if (b == std::string::npos) return {};
  b += marker.size();
  return r.system.substr(b, r.system.find('"', b) - b);
}

// Thread-safety: complete() may run on several threads at once; the responder is called outside
// the lock, so it may block.
class RuleModel final : public LlmClient {
 public:
  using Responder = std::function<Result<ModelReply>(const SkillRequest&, const CallOptions&)>;
  explicit RuleModel(Responder responder, std::string name = "rule-model")
      : responder_(std::move(responder)), name_(std::move(name)) {}

  Result<ModelReply> complete(const ModelRequest& request, const CallOptions& options) override {
    SkillRequest r;
    request.for_each_message([&](const Message& m) { r.messages.push_back(m); });
    if (!r.messages.empty()) r.system = r.messages.front().content;
    if (r.messages.size() > 1) r.user = r.messages[1].content;
    r.round = request.round;
    r.max_tokens = request.sampling.max_tokens;
    r.timeout_ms = options.timeout_ms;
    {
      std::lock_guard l(mu_);
      requests_.push_back(r);
    }
    return responder_(r, options);
  }
  std::string describe() const override { return name_; }

  std::vector<SkillRequest> requests() const {
    std::lock_guard l(mu_);
    return requests_;
  }
  size_t calls() const {
    std::lock_guard l(mu_);
    return requests_.size();
  }
  // Requests for skill `id`, in arrival order.
  std::vector<SkillRequest> requests_for(const std::string& id) const {
    std::vector<SkillRequest> out;
    for (const SkillRequest& r : requests()) {
      if (skill_of(r) == id) out.push_back(r);
    }
    return out;
  }

 private:
  Responder responder_;
  std::string name_;
  mutable std::mutex mu_;
  std::vector<SkillRequest> requests_;
};

inline Result<ModelReply> text_reply(std::string text) {
  ModelReply r;
  r.text = std::move(text);
  r.finish_reason = "stop";
  return r;
}

// A skill whose output is an object with the string members `fields` (all required).
inline ExecutableSkill object_skill(const std::string& id, const std::vector<std::string>& fields,
                                    const std::vector<std::string>& depends = {}) {
  nlohmann::json schema = {{"type", "object"}, {"properties", nlohmann::json::object()}, {"required", fields}};
  for (const std::string& f : fields) schema["properties"][f] = {{"type", "string"}};
  ExecutableSkill s;
  s.manifest.id = id;
  s.manifest.description = "test skill " + id;
  s.manifest.output_schema = schema.dump();
  s.manifest.depends = depends;
  s.instructions = "Instructions of " + id + ".";
  return s;
}

}  // namespace keel::testing
