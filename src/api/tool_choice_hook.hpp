// api/tool_choice_hook.hpp — a client's tool_choice, applied to the first model call of a run
// only: forcing a tool on every call would loop, and the client chose for its next step.
//
//   agent.add_hooks(std::make_shared<FirstCallToolChoice>("required"));
//
// Thread-safety: one object per run; the run calls the hooks one at a time.
#pragma once

#include <string>

#include "keel/hooks.hpp"

namespace keel::api {

class FirstCallToolChoice final : public Hooks {
 public:
  // `choice`: "", "auto", "none", "required" or a tool's name (ModelRequest::tool_choice).
  explicit FirstCallToolChoice(std::string choice) : choice_(std::move(choice)) {}
  void on_process_prompts(RunContext&, ModelRequest& request) override {
    if (used_) return;
    used_ = true;
    request.tool_choice = choice_;
  }

 private:
  std::string choice_;
  bool used_ = false;
};

}  // namespace keel::api
