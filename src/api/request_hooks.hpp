// api/request_hooks.hpp — what a client's request (/v1, /agui) sets on the model calls of its
// run: its sampling settings on every call, its tool_choice on the first call only (forcing a tool
// on every call would loop, and the client chose for its next step), its context notes with the
// task.
//
//   agent.add_hooks(std::make_shared<ClientSampling>(request.sampling));
//   agent.add_hooks(std::make_shared<FirstCallToolChoice>("required"));
//   agent.add_hooks(std::make_shared<ClientContext>("city: Paris"));
//
// Thread-safety: one object per run; the run calls the hooks one at a time.
#pragma once

#include <string>
#include <utility>

#include "keel/hooks.hpp"

namespace keel::api {

// Every sampling field the client set, on every model call (max_tokens caps each call, not the run).
class ClientSampling final : public Hooks {
 public:
  explicit ClientSampling(SamplingParams sampling) : sampling_(std::move(sampling)) {}
  void on_process_prompts(RunContext&, ModelRequest& request) override {
    SamplingParams& s = request.sampling;
    if (sampling_.temperature) s.temperature = sampling_.temperature;
    if (sampling_.top_p) s.top_p = sampling_.top_p;
    if (sampling_.top_k) s.top_k = sampling_.top_k;
    if (sampling_.seed) s.seed = sampling_.seed;
    if (sampling_.max_tokens) s.max_tokens = sampling_.max_tokens;
    if (!sampling_.stop.empty()) s.stop = sampling_.stop;
  }

 private:
  SamplingParams sampling_;
};

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

// Notes the client sends with its request (AG-UI's `context`) reach the model after the task.
class ClientContext final : public Hooks {
 public:
  explicit ClientContext(std::string notes) : notes_(std::move(notes)) {}
  void on_prompt_submitted(RunContext&, const std::string&, PromptActions& actions) override {
    if (notes_.empty()) return;
    if (!actions.context.empty()) actions.context.append("\n\n");
    actions.context.append("Context from the application:\n").append(notes_);
  }

 private:
  std::string notes_;
};

}  // namespace keel::api
