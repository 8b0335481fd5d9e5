// keel/tool_executor.hpp — runs one round's batch of tool calls.
//
// Arguments are parsed and validated against each tool's JSON Schema first; invalid arguments
// become an error result naming the problem, never a crash. Concurrency-safe calls run in parallel
// on a fixed thread pool (no thread per call); the others run one at a time in call order. Every
// call has its own timeout (ToolSpec::effective_timeout_ms); a failure or timeout never cancels
// the other calls (all results are kept, like Promise.allSettled), and results come back in call
// order. A timed-out tool gets its stop token requested and is abandoned if it does not return.
//
// Scheduling: calls are taken in order; a run of consecutive concurrency-safe calls forms one
// parallel group, and every other call runs alone after the group before it has ended, so a read
// that follows a write sees the write. All calls run on the pool (also the sequential ones, so the
// thread calling run_batch() can enforce their timeouts). A call's timeout counts from the moment
// a worker starts it. An abandoned call keeps its worker busy until the tool returns; the pool
// then adds a worker (up to max_threads) so later batches are not starved. Tool output is made
// valid UTF-8 (invalid bytes become U+FFFD) so it can always be sent to a model as JSON, and the
// values of known secrets in it are redacted (ToolExecutorOptions::redactor).
//
// Thread-safety: run_batch() may be called from one thread at a time. The callbacks are invoked
// on the thread that called run_batch(), one at a time, never after run_batch() returns: on_start
// when a worker has started the call (not for calls that never run: invalid arguments, unknown
// tool, cancelled before starting), on_finish exactly once for every call, after its on_start.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "keel/core/secret_redactor.hpp"
#include "keel/message.hpp"
#include "keel/tool_registry.hpp"

namespace keel {

struct ToolExecutorOptions {
  int threads = 4;             // pool size for concurrency-safe calls; >= 1
  std::string workspace_root;  // passed to tools in ToolContext (absolute)
  // Cap on workers, including those added to replace workers stuck in abandoned (timed-out)
  // calls; raised to `threads` when smaller.
  int max_threads = 16;
  // On destruction, how long to wait for abandoned calls that are still running before their
  // workers are detached (left to finish in the background).
  int shutdown_grace_ms = 2000;
  // Replaces secrets' values in every result (output and error text) before callbacks or the
  // caller see it, so they never reach a model, an event or the store. nullptr: nothing redacted.
  std::shared_ptr<const SecretRedactor> redactor;
};

struct BatchCallbacks {
  std::function<void(const ToolCall&)> on_start;                      // a call begins
  std::function<void(const ToolCall&, const ToolResult&)> on_finish;  // a call ended
};

// Who runs a batch: handed to every tool in its ToolContext.
struct ToolRunScope {
  std::string session_id;  // the run's stored session; empty without a store
  std::string run_id;
  int depth = 0;  // sub-agent nesting depth of the calling agent
  RunBudget budget_left;  // what the calls may still spend on model calls (ToolContext::budget_left)
};

class ToolExecutor {
 public:
  // `registry` must outlive the executor.
  ToolExecutor(const ToolRegistry& registry, ToolExecutorOptions options);
  ~ToolExecutor();
  ToolExecutor(const ToolExecutor&) = delete;
  ToolExecutor& operator=(const ToolExecutor&) = delete;

  // Runs `calls` and returns one result per call, in call order. Unknown tools get an error
  // result. When `stop` is requested, running calls are cancelled and pending ones are not started
  // (status kCancelled).
  std::vector<ToolResult> run_batch(std::span<const ToolCall> calls, const BatchCallbacks& callbacks,
                                    std::stop_token stop, const ToolRunScope& scope = {});

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace keel
