// What `keel run`, `keel resume`, `keel chat` and `keel mcp serve`'s run_agent share: the
// assembled agent (keel/assembly.hpp) and how the CLI presents it.
#pragma once

#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "cli/json_events.hpp"
#include "keel/agent.hpp"
#include "keel/assembly.hpp"
#include "keel/config.hpp"
#include "keel/store/store.hpp"

namespace keel::cli {

// The flags the agent commands have in common.
struct AgentFlags {
  std::optional<std::string> model, base_url, api_key, workspace;
  std::optional<int> max_rounds;
  std::optional<int64_t> max_tokens;  // --max-tokens: the run's token cap
  std::optional<double> max_cost;     // --max-cost: the run's cost cap
  bool yes = false;        // approve every call that would be asked about
  std::optional<std::string> approve_mode;  // every tool's approval mode for this run (auto|confirm|deny)
  std::optional<std::string> sandbox;       // the shell sandbox of this run (workspace-write|read-only|off)
  bool json = false;       // JSON Lines events on stdout
  bool no_stream = false;  // whole replies
  bool ephemeral = false;  // no database
  bool quiet = false;      // no output on stdout/stderr and nobody asked (keel mcp serve's run_agent)
  std::optional<std::string> record;  // --record FILE: every model exchange goes to this cassette
};

// An assembled agent (keel/assembly.hpp) with the CLI's presentation: text or JSON Lines output,
// the rules-model notice, and the approver (--yes, the terminal, or nobody).
// Thread-safety: one command at a time.
class CliAgent {
 public:
  // Errors are configuration or database problems (exit 2), already formatted for the user.
  static Result<std::unique_ptr<CliAgent>> create(const AgentFlags& flags);

  Agent& agent() { return assembled_->agent(); }
  // The next turn starts by compacting the context (chat's /compact).
  void request_compaction() { assembled_->agent().request_compaction(); }
  Store* store() { return assembled_->store(); }
  const KeelConfig& config() const { return assembled_->config(); }
  const std::string& workspace() const { return assembled_->workspace(); }
  // What the assembly layer built (tests compare it with keel serve's).
  const assembly::AssembledAgent& assembled() const { return *assembled_; }
  // Writes a run_failed line (--json) and "keel: message" on stderr; returns `exit_code`.
  int fail(const std::string& kind, const std::string& message, int exit_code) const;

 private:
  CliAgent() = default;
  std::unique_ptr<assembly::AssembledAgent> assembled_;
  std::unique_ptr<JsonEventsPlugin> json_out_;
};

// A usage error before any agent exists: JSON line when asked for, message on stderr, exit 2.
int usage_failure(bool json, const std::string& message);

}  // namespace keel::cli
