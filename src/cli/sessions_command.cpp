// `keel sessions list|show|export|rm` and `keel fork`: reading and managing stored conversations.
// Each command opens the database, calls the Store, prints, and maps errors to exit codes
// through store_output.hpp (0 ok, 1 not found, 2 usage or database error).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/command_table.hpp"
#include "cli/commands.hpp"
#include "cli/session_json.hpp"
#include "cli/store_output.hpp"
#include "core/text/utf8_text.hpp"

namespace keel::cli {
namespace {

using json = nlohmann::ordered_json;

constexpr size_t kToolResultPreview = 400;  // bytes of a tool result (or system prompt) `show` prints

struct ListArgs {
  bool all = false;
  std::optional<std::string> workspace;
  int limit = 50;
  bool json = false;
};

struct ShowArgs {
  std::string id;
  bool json = false;
};

struct ExportArgs {
  std::string id;
  std::string format = "json";
  std::optional<std::string> output;
};

struct RmArgs {
  std::vector<std::string> ids;
};

struct ForkArgs {
  std::string id;
  std::optional<int64_t> at;
};

std::string dump(const json& j, int indent = 2) {
  return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

int check_session_id(const std::string& id) {
  if (looks_like_id(id, "s_")) return kExitOk;
  return report_usage_error("'" + id +
                            "' is not a session id (they look like s_0123456789abcdef; see keel sessions list)");
}

int list_command(const ListArgs& args) {
  SessionFilter filter;
  filter.include_hidden = args.all;
  filter.limit = args.limit;
  if (args.workspace) {
    std::string error;
    filter.workspace = workspace_key(args.workspace, error);
    if (filter.workspace->empty()) return report_usage_error(error);
  }
  int code = 0;
  std::unique_ptr<Store> store = open_store_or_report(code);
  if (!store) return code;
  Result<std::vector<SessionRecord>> sessions = store->list_sessions(filter);
  if (!sessions.ok()) return report_store_error(sessions.status());
  if (args.json) {
    json out = json::array();
    for (const SessionRecord& s : *sessions) out.push_back(session_to_json(s));
    std::printf("%s\n", dump(out).c_str());
    return kExitOk;
  }
  if (sessions->empty()) {
    std::fprintf(stderr, "no sessions%s\n", args.workspace ? " in this workspace" : "");
    return kExitOk;
  }
  std::printf("%-18s  %-16s  %8s  %-20s  %s\n", "ID", "UPDATED", "MESSAGES", "MODEL", "TITLE");
  for (const SessionRecord& s : *sessions) {
    std::string title = (s.hidden ? "[sub-agent] " : "") + one_line(s.title, 60);
    std::printf("%-18s  %-16s  %8lld  %-20s  %s\n", s.id.c_str(), local_time(s.updated_ms).c_str(),
                static_cast<long long>(s.message_count), one_line(s.model, 20).c_str(), title.c_str());
  }
  return kExitOk;
}

// Text of one message for `show`: full for user and assistant, a preview for the rest.
void print_message(const StoredMessage& sm) {
  const Message& m = sm.message;
  std::string header = "[" + std::to_string(sm.seq) + "] " + std::string(role_name(m.role));
  if (m.role == Role::kTool) {
    auto status = m.metadata.find("status");
    header += " " + m.name + " (" + (status == m.metadata.end() ? "ok" : status->second);
    if (!m.tool_call_id.empty()) header += ", call " + m.tool_call_id;
    header += ")";
  }
  if (!sm.run_id.empty()) header += "  run " + sm.run_id;
  if (sm.tokens > 0) header += "  " + std::to_string(sm.tokens) + " tokens";
  std::printf("%s\n", header.c_str());
  std::string body = m.content;
  if ((m.role == Role::kTool || m.role == Role::kSystem) && body.size() > kToolResultPreview) {
    const size_t total = body.size();
    const size_t cut = detail::utf8_char_start(body, kToolResultPreview);  // whole UTF-8 characters
    body.resize(cut);
    body += "\n… (" + std::to_string(total - cut) +
            " more bytes cut; see keel sessions show --json or keel sessions export)";
  }
  if (!m.reasoning.empty()) std::printf("  (reasoning: %zu bytes, in --json)\n", m.reasoning.size());
  if (!body.empty()) std::printf("%s\n", body.c_str());
  for (const ToolCall& c : m.tool_calls) {
    std::printf("  → %s %s\n", c.name.c_str(), one_line(c.arguments, 300).c_str());
  }
  std::printf("\n");
}

int show_command(const ShowArgs& args) {
  if (int bad = check_session_id(args.id)) return bad;
  int code = 0;
  std::unique_ptr<Store> store = open_store_or_report(code);
  if (!store) return code;
  Result<SessionRecord> session = store->get_session(args.id);
  if (!session.ok()) return report_store_error(session.status());
  Result<std::vector<RunRecord>> runs = store->list_runs(args.id);
  if (!runs.ok()) return report_store_error(runs.status());
  Result<std::vector<StoredMessage>> messages = store->load_messages(args.id);
  if (!messages.ok()) return report_store_error(messages.status());

  if (args.json) {
    json out = {{"session", session_to_json(*session)}, {"runs", json::array()}, {"messages", json::array()}};
    for (const RunRecord& r : *runs) out["runs"].push_back(run_to_json(r));
    for (const StoredMessage& m : *messages) out["messages"].push_back(message_to_json(m));
    std::printf("%s\n", dump(out).c_str());
    return kExitOk;
  }
  const SessionRecord& s = *session;
  std::printf("session   %s%s\n", s.id.c_str(), s.hidden ? " (sub-agent)" : "");
  std::printf("title     %s\n", one_line(s.title, 200).c_str());
  std::printf("workspace %s\n", s.workspace.empty() ? "-" : s.workspace.c_str());
  std::printf("model     %s\n", s.model.empty() ? "-" : s.model.c_str());
  std::printf("parent    %s\n", s.parent_id.empty() ? "-" : s.parent_id.c_str());
  std::printf("created   %s\n", local_time(s.created_ms).c_str());
  std::printf("updated   %s\n", local_time(s.updated_ms).c_str());
  std::printf("\nruns (%zu)\n", runs->size());
  for (const RunRecord& r : *runs) {
    std::string outcome;
    if (!r.error.empty())
      outcome = "error: " + first_line(r.error, 100);
    else if (!r.answer.empty())
      outcome = "answer: " + first_line(r.answer, 100);
    const std::string tokens =
        std::to_string(r.usage.prompt_tokens) + "+" + std::to_string(r.usage.completion_tokens) + " tokens";
    std::printf("  %-18s  %-16s  %3d rounds  %-18s  %s  %s\n", r.id.c_str(),
                std::string(run_state_name(r.state)).c_str(), r.rounds, tokens.c_str(),
                local_time(r.started_ms).c_str(), outcome.c_str());
  }
  std::printf("\nmessages (%zu)\n\n", messages->size());
  for (const StoredMessage& m : *messages) print_message(m);
  return kExitOk;
}

int export_command(const ExportArgs& args) {
  if (int bad = check_session_id(args.id)) return bad;
  int code = 0;
  std::unique_ptr<Store> store = open_store_or_report(code);
  if (!store) return code;
  Result<SessionRecord> session = store->get_session(args.id);
  if (!session.ok()) return report_store_error(session.status());
  Result<std::vector<RunRecord>> runs = store->list_runs(args.id);
  if (!runs.ok()) return report_store_error(runs.status());
  std::vector<RunWithTools> with_tools;
  for (RunRecord& r : *runs) {
    Result<std::vector<ToolRunRecord>> tool_runs = store->list_tool_runs(r.id);
    if (!tool_runs.ok()) return report_store_error(tool_runs.status());
    with_tools.push_back({std::move(r), std::move(tool_runs).value()});
  }
  Result<std::vector<StoredMessage>> messages = store->load_messages(args.id);
  if (!messages.ok()) return report_store_error(messages.status());
  std::string text = args.format == "md" ? session_markdown(*session, with_tools, *messages)
                                         : dump(session_document(*session, with_tools, *messages)) + "\n";
  if (Status s = write_output(args.output, text); !s.ok()) return report_usage_error(s.message());
  if (args.output && *args.output != "-")
    std::fprintf(stderr, "exported %s to %s\n", args.id.c_str(), args.output->c_str());
  return kExitOk;
}

int rm_command(const RmArgs& args) {
  for (const std::string& id : args.ids) {
    if (int bad = check_session_id(id)) return bad;  // nothing deleted on a usage error
  }
  int code = 0;
  std::unique_ptr<Store> store = open_store_or_report(code);
  if (!store) return code;
  int result = kExitOk;
  for (const std::string& id : args.ids) {
    Status s = store->delete_session(id);
    if (s.ok()) {
      std::printf("deleted %s\n", id.c_str());
      continue;
    }
    // A missing id does not stop the others; a database error outranks "not found".
    result = std::max(result, report_store_error(s));
  }
  return result;
}

int fork_command(const ForkArgs& args) {
  if (int bad = check_session_id(args.id)) return bad;
  int code = 0;
  std::unique_ptr<Store> store = open_store_or_report(code);
  if (!store) return code;
  Result<std::string> fork = store->fork_session(args.id, args.at);
  if (!fork.ok()) return report_store_error(fork.status());
  std::printf("%s\n", fork->c_str());
  std::fflush(stdout);
  Result<SessionRecord> copy = store->get_session(*fork);
  const long long copied = copy.ok() ? static_cast<long long>(copy->message_count) : 0;
  std::fprintf(stderr, "forked %s (%lld messages) into %s; continue it with: keel run --session %s \"…\"\n",
               args.id.c_str(), copied, fork->c_str(), fork->c_str());
  return kExitOk;
}

}  // namespace

void add_session_commands(CLI::App& app, CommandAction& action) {
  CLI::App* sessions = app.add_subcommand("sessions", command_summary("sessions"));
  sessions->require_subcommand(1);
  sessions->footer(kStoreExitCodesHelp);

  auto list = std::make_shared<ListArgs>();
  CLI::App* list_cmd = sessions->add_subcommand("list", "List sessions, most recently updated first");
  list_cmd->add_flag("--all,-a", list->all, "Include hidden (sub-agent) sessions");
  list_cmd->add_option("--workspace,-w", list->workspace, "Only sessions of this workspace folder");
  list_cmd->add_option("--limit,-n", list->limit, "Most sessions shown (default 50; 0: all)")
      ->check(CLI::NonNegativeNumber);
  list_cmd->add_flag("--json", list->json, "Print a JSON array of session objects");
  list_cmd->footer(kStoreExitCodesHelp);
  on_parsed(list_cmd, action, list, &list_command);

  auto show = std::make_shared<ShowArgs>();
  CLI::App* show_cmd = sessions->add_subcommand("show", "Show a session: its header, runs and messages");
  show_cmd->add_option("id", show->id, "Session id (s_…)")->required();
  show_cmd->add_flag("--json", show->json, R"(Print {"session","runs","messages"} with every field)");
  show_cmd->footer(kStoreExitCodesHelp);
  on_parsed(show_cmd, action, show, &show_command);

  auto exp = std::make_shared<ExportArgs>();
  CLI::App* export_cmd = sessions->add_subcommand("export", "Export a whole session as JSON or a Markdown transcript");
  export_cmd->add_option("id", exp->id, "Session id (s_…)")->required();
  export_cmd->add_option("--format,-f", exp->format, "json (default: session, runs with tool runs, messages) or md")
      ->check(CLI::IsMember({"json", "md"}));
  export_cmd->add_option("--output,-o", exp->output, "Write to this file instead of stdout");
  export_cmd->footer(kStoreExitCodesHelp);
  on_parsed(export_cmd, action, exp, &export_command);

  auto rm = std::make_shared<RmArgs>();
  CLI::App* rm_cmd = sessions->add_subcommand("rm", "Delete sessions with their messages, runs and traces");
  rm_cmd->add_option("ids", rm->ids, "Session ids (s_…)")->required();
  rm_cmd->footer(std::string("A missing id is reported (exit 1) and the others are still deleted.\n") +
                 kStoreExitCodesHelp);
  on_parsed(rm_cmd, action, rm, &rm_command);

  auto fork = std::make_shared<ForkArgs>();
  CLI::App* fork_cmd =
      app.add_subcommand("fork", command_summary("fork"));
  fork_cmd->add_option("id", fork->id, "Session id (s_…)")->required();
  fork_cmd->add_option("--at", fork->at, "Keep messages with seq <= SEQ (default: all)")->check(CLI::NonNegativeNumber);
  fork_cmd->footer(kStoreExitCodesHelp);
  on_parsed(fork_cmd, action, fork, &fork_command);
}

}  // namespace keel::cli
