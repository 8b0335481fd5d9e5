// `keel chat`: a read-eval-print loop on a persistent session. Each line is the next turn of the
// conversation (streamed like `keel run`); lines starting with '/' are commands.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "cli/agent_setup.hpp"
#include "cli/command_table.hpp"
#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "keel/core/token_counter.hpp"

namespace keel::cli {
namespace {

constexpr const char* kHelp =
    "Type a message to talk to the agent. Commands:\n"
    "  /help     this help\n"
    "  /history  the conversation so far\n"
    "  /tokens   tokens the conversation takes, by kind of message\n"
    "  /compact  compact the context before the next turn\n"
    "  /clear    start a new conversation (the old one stays in `keel sessions list`)\n"
    "  /exit     leave (Ctrl-D too)\n";

struct ChatArgs {
  AgentFlags flags;
  std::optional<std::string> session;
};

void print_history(Store& store, const std::string& session_id) {
  Result<std::vector<StoredMessage>> messages = store.load_messages(session_id);
  if (!messages.ok()) {
    std::fprintf(stderr, "keel: %s\n", messages.status().message().c_str());
    return;
  }
  for (const auto& m : *messages) {
    const Message& msg = m.message;
    if (msg.role == Role::kUser) std::printf("you> %s\n", msg.content.c_str());
    if (msg.role == Role::kAssistant && !msg.content.empty()) std::printf("keel> %s\n", msg.content.c_str());
    for (const auto& c : msg.tool_calls) std::printf("  → %s %s\n", c.name.c_str(), c.arguments.c_str());
  }
}

void print_tokens(Store& store, const std::string& session_id) {
  Result<std::vector<StoredMessage>> messages = store.load_messages(session_id);
  if (!messages.ok()) {
    std::fprintf(stderr, "keel: %s\n", messages.status().message().c_str());
    return;
  }
  EstimatingTokenCounter counter;
  std::vector<Message> history;
  for (auto& m : *messages) history.push_back(std::move(m.message));
  TokenBreakdown b = count_breakdown(counter, history, {});
  std::printf("tokens (estimated): system %zu, user %zu, assistant %zu, tool results %zu; total %zu in %zu messages\n",
              b.system, b.user, b.assistant, b.tool_results, b.total(), history.size());
}

int chat(const ChatArgs& args) {
  std::stop_token stop = install_interrupt_handler();
  AgentFlags flags = args.flags;
  if (args.session && !flags.workspace) flags.workspace = assembly::stored_workspace(*args.session);
  Result<std::unique_ptr<CliAgent>> cli = CliAgent::create(flags);
  if (!cli.ok()) return usage_failure(false, cli.status().message());
  CliAgent& c = **cli;
  std::string session_id = args.session.value_or("");
  if (!session_id.empty()) {
    Result<SessionRecord> s = c.store()->get_session(session_id);
    if (!s.ok()) return c.fail("not_found", s.status().message(), kExitNotFound);
    std::fprintf(stderr, "keel: continuing session %s (%s)\n", s->id.c_str(), s->title.c_str());
    print_history(*c.store(), session_id);
  }
  bool tty = isatty(STDIN_FILENO) != 0;
  if (tty) std::fprintf(stderr, "keel chat — /help for commands, /exit to leave\n");
  int last = kExitOk;
  std::string line;
  for (;;) {
    if (stop.stop_requested()) return 130;
    if (tty) {
      std::fprintf(stderr, "you> ");
      std::fflush(stderr);
    }
    if (!std::getline(std::cin, line)) break;
    std::string_view t = line;
    while (!t.empty() && (t.back() == ' ' || t.back() == '\r')) t.remove_suffix(1);
    if (t.empty()) continue;
    if (t == "/exit" || t == "/quit") break;
    if (t == "/help") {
      std::fputs(kHelp, stderr);
      continue;
    }
    if (t == "/clear") {
      session_id.clear();
      std::fprintf(stderr, "keel: new conversation\n");
      continue;
    }
    if (t == "/history" || t == "/tokens" || t == "/compact") {
      if (session_id.empty()) {
        std::fprintf(stderr, "keel: nothing said yet\n");
      } else if (t == "/history") {
        print_history(*c.store(), session_id);
      } else if (t == "/tokens") {
        print_tokens(*c.store(), session_id);
      } else {
        c.request_compaction();
        std::fprintf(stderr, "keel: the context will be compacted before the next turn\n");
      }
      continue;
    }
    if (t.front() == '/') {
      std::fprintf(stderr, "keel: unknown command %s; /help lists them\n", std::string(t).c_str());
      continue;
    }
    Result<RunOutcome> outcome =
        session_id.empty() ? c.agent().run(t, stop) : c.agent().continue_session(session_id, t, stop);
    if (!outcome.ok()) return c.fail("usage", outcome.status().message(), kExitUsage);
    session_id = outcome->session_id;
    last = exit_code_for(*outcome);
    if (last == 130) return last;
  }
  if (!session_id.empty()) std::fprintf(stderr, "keel: session %s saved\n", session_id.c_str());
  return last == 130 ? last : kExitOk;
}

}  // namespace

void add_chat_command(CLI::App& app, CommandAction& action) {
  auto args = std::make_shared<ChatArgs>();
  CLI::App* cmd = app.add_subcommand("chat", command_summary("chat"));
  cmd->add_option("--session,-s", args->session, "Continue this session (see keel sessions list)");
  cmd->add_option("--model,-m", args->flags.model, "Model, as for keel run");
  cmd->add_option("--base-url", args->flags.base_url, "OpenAI-compatible base URL");
  cmd->add_option("--api-key", args->flags.api_key, "API key (default: $OPENAI_API_KEY)");
  cmd->add_option("--workspace,-w", args->flags.workspace,
                  "Folder the tools are confined to (default: current directory)");
  cmd->add_option("--max-rounds", args->flags.max_rounds, "Tool rounds per turn (default 20)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--max-tokens", args->flags.max_tokens, kMaxTokensHelp)->check(CLI::PositiveNumber);
  cmd->add_option("--max-cost", args->flags.max_cost, kMaxCostHelp)->check(CLI::PositiveNumber);
  cmd->add_flag("--yes,-y", args->flags.yes, kYesHelp);
  cmd->add_option("--approve-mode", args->flags.approve_mode, kApproveModeHelp);
  cmd->add_option("--sandbox", args->flags.sandbox, kSandboxHelp);
  cmd->add_flag("--no-stream", args->flags.no_stream, "Ask the backend for whole replies");
  cmd->add_option("--record", args->flags.record, kRecordHelp);
  cmd->callback([&action, args] { action = [args] { return chat(*args); }; });
}

}  // namespace keel::cli
