// `keel memory list|search|rm`: the notes agents keep with memory_write. list and search show the
// workspace's notes plus the shared ones (notes without a workspace).
#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/command_table.hpp"
#include "cli/commands.hpp"
#include "cli/store_output.hpp"
#include "keel/memory_tools.hpp"

namespace keel::cli {
namespace {

using nlohmann::json;

struct MemoryQueryArgs {
  std::string query;  // search only
  std::optional<std::string> workspace;
  int limit = 0;  // set from the command's default
  bool json = false;
};

struct MemoryRmArgs {
  std::string id;
};

json note_to_json(const MemoryNote& n) {
  return {{"id", n.id},     {"workspace", n.workspace},   {"text", n.text},
          {"tags", n.tags}, {"created_ms", n.created_ms}, {"updated_ms", n.updated_ms}};
}

std::string dump(const json& j) {
  return j.dump(2, ' ', false, json::error_handler_t::replace);
}

void print_note_row(const MemoryNote& n, const std::string& score) {
  const std::string scope = n.workspace.empty() ? "shared" : "here";
  std::printf("%6lld  %-16s  %-6s  %s%-20s  %s\n", static_cast<long long>(n.id), local_time(n.updated_ms).c_str(),
              scope.c_str(), score.c_str(), one_line(n.tags, 20).c_str(), one_line(n.text, 100).c_str());
}

int list_or_search(const MemoryQueryArgs& args, bool search) {
  std::string error;
  const std::string workspace = workspace_key(args.workspace, error);
  if (workspace.empty()) return report_usage_error(error);
  if (search && args.query.find_first_not_of(" \t\r\n") == std::string::npos) {
    return report_usage_error("the search query is empty");
  }
  int code = 0;
  std::unique_ptr<Store> store = open_store_or_report(code);
  if (!store) return code;

  std::vector<MemoryNote> notes;
  std::vector<double> scores;
  if (search) {
    Result<std::vector<MemoryHit>> hits = memory_search_with_shared(*store, workspace, args.query, args.limit);
    if (!hits.ok()) return report_store_error(hits.status());
    for (MemoryHit& h : *hits) {
      notes.push_back(std::move(h.note));
      scores.push_back(h.score);
    }
  } else {
    Result<std::vector<MemoryNote>> listed = memory_list_with_shared(*store, workspace, args.limit);
    if (!listed.ok()) return report_store_error(listed.status());
    notes = std::move(listed).value();
  }

  if (args.json) {
    json out = json::array();
    for (size_t i = 0; i < notes.size(); ++i) {
      json j = note_to_json(notes[i]);
      if (search) j["score"] = scores[i];
      out.push_back(std::move(j));
    }
    std::printf("%s\n", dump(out).c_str());
    return kExitOk;
  }
  if (notes.empty()) {
    std::fprintf(stderr, "no notes %s %s (or shared)\n", search ? "match in" : "yet for", workspace.c_str());
    return kExitOk;
  }
  std::printf("%6s  %-16s  %-6s  %s%-20s  %s\n", "ID", "UPDATED", "SCOPE", search ? "SCORE   " : "", "TAGS", "TEXT");
  for (size_t i = 0; i < notes.size(); ++i) {
    std::string score;
    if (search) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "%6.2f  ", scores[i]);
      score = buf;
    }
    print_note_row(notes[i], score);
  }
  return kExitOk;
}

int rm_command(const MemoryRmArgs& args) {
  int64_t id = 0;
  const char* end = args.id.data() + args.id.size();
  auto [ptr, ec] = std::from_chars(args.id.data(), end, id);
  if (ec != std::errc() || ptr != end || id <= 0) {
    return report_usage_error("'" + args.id + "' is not a note id (a positive number; see keel memory list)");
  }
  int code = 0;
  std::unique_ptr<Store> store = open_store_or_report(code);
  if (!store) return code;
  if (Status s = store->memory_remove(id); !s.ok()) return report_store_error(s);
  std::printf("deleted note %lld\n", static_cast<long long>(id));
  return kExitOk;
}

}  // namespace

void add_memory_commands(CLI::App& app, CommandAction& action) {
  CLI::App* memory = app.add_subcommand("memory", command_summary("memory"));
  memory->require_subcommand(1);
  const std::string footer =
      std::string("Notes of the workspace and shared notes (those without a workspace) are shown.\n") +
      kStoreExitCodesHelp;
  memory->footer(footer);

  auto list = std::make_shared<MemoryQueryArgs>();
  list->limit = 50;
  CLI::App* list_cmd = memory->add_subcommand("list", "List notes, most recently updated first");
  list_cmd->add_option("--workspace,-w", list->workspace, "Workspace folder (default: current directory)");
  list_cmd->add_option("--limit,-n", list->limit, "Most notes shown (default 50; 0: all)")
      ->check(CLI::NonNegativeNumber);
  list_cmd->add_flag("--json", list->json, "Print a JSON array of note objects");
  list_cmd->footer(footer);
  list_cmd->callback([&action, list]() { action = [list]() { return list_or_search(*list, false); }; });

  auto search = std::make_shared<MemoryQueryArgs>();
  search->limit = 10;
  CLI::App* search_cmd = memory->add_subcommand("search", "Find notes matching any word of QUERY, best first");
  search_cmd->add_option("query", search->query, "Words to look for")->required();
  search_cmd->add_option("--workspace,-w", search->workspace, "Workspace folder (default: current directory)");
  search_cmd->add_option("--limit,-n", search->limit, "Most notes shown (default 10)")->check(CLI::PositiveNumber);
  search_cmd->add_flag("--json", search->json, "Print a JSON array of note objects with their score");
  search_cmd->footer(footer);
  search_cmd->callback([&action, search]() { action = [search]() { return list_or_search(*search, true); }; });

  auto rm = std::make_shared<MemoryRmArgs>();
  CLI::App* rm_cmd = memory->add_subcommand("rm", "Delete a note");
  rm_cmd->add_option("id", rm->id, "Note id (from keel memory list)")->required();
  rm_cmd->footer(kStoreExitCodesHelp);
  rm_cmd->callback([&action, rm]() { action = [rm]() { return rm_command(*rm); }; });
}

}  // namespace keel::cli
