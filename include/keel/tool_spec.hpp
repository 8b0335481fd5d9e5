// keel/tool_spec.hpp — what the core and the model know about a tool: its name, its JSON Schema,
// the execution metadata that drives batching, approvals, timeouts and caching (seed 000's
// tool-meta table) and the postconditions its ok outputs must meet.
//
// Thread-safety: plain value.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "keel/core/postcondition.hpp"

namespace keel {

enum class Risk { kLow, kMedium, kHigh };

// "low", "medium", "high".
std::string_view risk_name(Risk risk);

struct ToolSpec {
  std::string name;         // unique in a registry; [A-Za-z0-9_.-], at most 64 characters
  std::string description;  // one or two sentences the model reads
  // JSON Schema (draft 7) of the arguments object, as JSON text.
  std::string parameters_schema = R"({"type":"object","properties":{}})";
  bool read_only = false;         // never changes anything outside keel
  bool concurrency_safe = false;  // may run in parallel with other concurrency-safe calls
  Risk risk = Risk::kLow;         // kHigh needs approval before it runs
  int timeout_ms = 30000;         // per-call timeout in milliseconds
  int timeout_floor_ms = 1000;    // no configured timeout goes below this (slow hosts)
  bool cacheable = false;         // ok results may be reused for identical arguments for the cache TTL
                                  // (the store's tool_result scope), across runs and processes
  // Finishes in microseconds and never waits (no network, no child process, no lock held by
  // others): a read-only bounded call alone in its group runs on the agent's thread, without a
  // hand-off to a worker. One that ever takes longer than a few milliseconds goes back to the
  // workers (and their timeouts) for the executor's lifetime.
  bool bounded = false;
  // Contracts on an ok output (keel/core/postcondition.hpp), checked by the agent in order; a
  // failure gets one corrective retry, a second failure of the same tool fails the run. Empty:
  // any ok output is accepted.
  std::vector<Postcondition> postconditions = {};
  // The caller of the run executes it, not keel (a client's own tool, offered through an API
  // endpoint): a round that calls it ends the run once keel's own calls of that round have run,
  // and its calls are handed back (Finish::client_calls, RunOutcome::client_calls). The caller's
  // results continue the conversation in a later run. No approval applies: the caller decides.
  bool client_side = false;
  // Not offered to the model up front (its schema costs context): the system prompt says how many
  // such tools there are, and a tool_search result that names one, or a call of it, loads it into
  // the next model calls (keel/core/deferred_tools.hpp). Calls of it are accepted either way.
  bool deferred = false;
  // JSON Schema of an ok result, for a tool whose result text is one JSON object: an MCP client of
  // keel's server gets it as the tool's outputSchema and the object itself as structuredContent.
  // Empty: the result is free text.
  std::string output_schema = {};

  // The timeout a call actually gets: max(timeout_ms, timeout_floor_ms).
  int effective_timeout_ms() const { return timeout_ms > timeout_floor_ms ? timeout_ms : timeout_floor_ms; }
};

// Whether `a` and `b` show a model the same tool: name, description and parameters schema (what
// a request sends and what its tokens are counted from). For caches of rendered or counted tools.
inline bool same_definition(const ToolSpec& a, const ToolSpec& b) {
  return a.name == b.name && a.description == b.description && a.parameters_schema == b.parameters_schema;
}

// The execution metadata of a ToolSpec, for make_tool_spec().
struct ToolTraits {
  bool read_only = false;  // a read-only tool is also concurrency-safe
  Risk risk = Risk::kLow;
  int timeout_ms = 30000;
  bool cacheable = false;
};

// A spec in one call:
//   keel::ToolTraits t;
//   t.read_only = true;
//   keel::ToolSpec spec = keel::make_tool_spec("fs_read", "Read a file", schema, t);
ToolSpec make_tool_spec(std::string name, std::string description, std::string schema, ToolTraits traits);

}  // namespace keel
