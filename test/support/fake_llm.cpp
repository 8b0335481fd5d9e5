#include "support/fake_llm.hpp"

namespace keel::testing {

void FakeLlm::push(Result<ModelReply> reply) {
  std::lock_guard<std::mutex> l(mu_);
  script_.push_back(std::move(reply));
}

void FakeLlm::push_text(std::string text) {
  ModelReply r;
  r.text = std::move(text);
  r.finish_reason = "stop";
  push(std::move(r));
}

void FakeLlm::push_call(std::string name, std::string arguments_json) {
  ModelReply r;
  r.tool_calls.push_back({"", std::move(name), std::move(arguments_json)});
  r.finish_reason = "tool_calls";
  push(std::move(r));
}

void FakeLlm::set_before_reply(std::function<void(const CallOptions&)> fn) {
  std::lock_guard<std::mutex> l(mu_);
  before_reply_ = std::move(fn);
}

Result<ModelReply> FakeLlm::complete(const ModelRequest& request, const CallOptions& options) {
  std::function<void(const CallOptions&)> before;
  Result<ModelReply> reply = Status::Unavailable("fake model script exhausted");
  {
    std::lock_guard<std::mutex> l(mu_);
    RecordedRequest rec;
    request.for_each_message([&](const Message& m) { rec.messages.push_back(m); });
    for (const auto& t : request.tools) rec.tools.push_back(t.name);
    rec.tools_enabled = request.tools_enabled;
    rec.round = request.round;
    requests_.push_back(std::move(rec));
    if (!script_.empty()) {
      reply = std::move(script_.front());
      script_.pop_front();
    }
    before = before_reply_;
  }
  if (before) before(options);
  if (options.stop.stop_requested()) return Status::Cancelled("stopped");
  if (reply.ok() && options.on_text && !reply->text.empty()) options.on_text(reply->text);
  return reply;
}

std::vector<RecordedRequest> FakeLlm::requests() const {
  std::lock_guard<std::mutex> l(mu_);
  return requests_;
}

}  // namespace keel::testing
