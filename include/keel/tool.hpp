// keel/tool.hpp — a tool the model can call.
//
// A tool has a ToolSpec (name, JSON Schema, metadata) and an execute() that receives arguments
// already validated against that schema. Failure is a value: return a Status whose message tells
// the model what went wrong and how to correct the call; it becomes an error result in the
// conversation, never an exception.
//
//   auto tool = keel::make_tool(spec, [](const nlohmann::json& args, const keel::ToolContext&)
//                                        -> keel::Result<std::string> { return "42"; });
//
// Thread-safety: execute() of a tool whose spec says concurrency_safe may run on several threads
// at once; other tools are never run concurrently with themselves.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <stop_token>
#include <string>

#include "keel/core/run_budget.hpp"
#include "keel/result.hpp"
#include "keel/tool_spec.hpp"

namespace keel {

// What a running tool may know about its call.
struct ToolContext {
  std::stop_token stop;        // requested on timeout or abort; long-running tools poll it
  std::string workspace_root;  // absolute, canonical; tools that touch files stay inside it
  std::string call_id;         // the ToolCall::id being answered
  std::string session_id;      // the calling run's stored session; empty without a store
  std::string run_id;          // the calling run
  int depth = 0;               // 0 for a top-level agent, 1 for its sub-agents, ...
  // What the calling run may still spend on model calls (RunBudget): a tool that runs a model
  // itself (spawn_agent) keeps within it, and reports what it spent through add_model_usage, so
  // that it counts in the caller's budget. Unset add_model_usage: nothing is counted.
  RunBudget budget_left;
  std::function<void(const Usage&)> add_model_usage;
};

class Tool {
 public:
  virtual ~Tool() = default;
  virtual const ToolSpec& spec() const = 0;
  // Runs the tool. `args` is a JSON object that already passed the spec's schema.
  virtual Result<std::string> execute(const nlohmann::json& args, const ToolContext& ctx) = 0;
};

using ToolFunction = std::function<Result<std::string>(const nlohmann::json&, const ToolContext&)>;

// A Tool from a spec and a function. An exception the function throws becomes an Internal error
// naming the tool ("tool NAME failed: ..."), so a function need not catch what it cannot handle.
std::unique_ptr<Tool> make_tool(ToolSpec spec, ToolFunction fn);

}  // namespace keel
