// keel_tool_defer_bench: what lazy tool loading saves. Builds a 100-tool MCP server's tools (shaped
// like a large hosted server's: a sentence or two of description, three to six arguments with
// their own descriptions) next to keel's built-in set, and prints the tokens a model request
// carries up front (system prompt + tool definitions) with the MCP tools offered and deferred, as
// the estimating token counter counts them.
//
//   keel_tool_defer_bench [--tools N]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "keel/core/deferred_tools.hpp"
#include "keel/core/prompt_builder.hpp"
#include "keel/core/token_counter.hpp"

namespace {

const char* const kNouns[] = {"issue", "pull_request", "branch", "commit", "release", "workflow", "label", "comment",
                              "review", "repository"};
const char* const kVerbs[] = {"get", "list", "create", "update", "search", "close", "merge", "delete", "assign", "lock"};

keel::ToolSpec server_tool(int i, bool deferred) {
  const std::string noun = kNouns[i % 10];
  const std::string verb = kVerbs[(i / 10) % 10];
  nlohmann::json props = nlohmann::json::object();
  props["owner"] = {{"type", "string"}, {"description", "Repository owner (user or organization)"}};
  props["repo"] = {{"type", "string"}, {"description", "Repository name"}};
  const int extra = 1 + i % 4;
  for (int k = 0; k < extra; ++k) {
    props["field_" + std::to_string(k)] = {
        {"type", k % 2 == 0 ? "string" : "integer"},
        {"description", "The " + noun + "'s field " + std::to_string(k) + ", as the API names it; see the API reference"}};
  }
  keel::ToolSpec s;
  s.name = "github__" + verb + "_" + noun + "_" + std::to_string(i);
  s.description = "(MCP server github) " + verb + " a " + noun + " in a GitHub repository. Use it when the user asks to " +
                  verb + " " + noun + "s; returns the " + noun + " as JSON with its number, title, state and URL.";
  s.parameters_schema =
      nlohmann::json{{"type", "object"}, {"properties", props}, {"required", nlohmann::json::array({"owner", "repo"})}}.dump();
  s.deferred = deferred;
  return s;
}

keel::ToolSpec builtin(const char* name, const char* description) {
  keel::ToolSpec s;
  s.name = name;
  s.description = description;
  s.parameters_schema = R"({"type":"object","properties":{"path":{"type":"string"}},"required":["path"]})";
  return s;
}

struct UpFront {
  size_t prompt = 0;
  size_t tools = 0;
};

UpFront measure(int n, bool deferred) {
  std::vector<keel::ToolSpec> tools = {builtin("fs_read", "Read a file of the workspace"),
                                       builtin("fs_write", "Write a file of the workspace"),
                                       builtin("fs_list", "List a folder of the workspace"),
                                       builtin("tool_search", "Search the available tools by words")};
  for (int i = 0; i < n; ++i) tools.push_back(server_tool(i, deferred));
  keel::SystemPromptParts parts;
  parts.tools = tools;
  const keel::EstimatingTokenCounter counter;
  UpFront out;
  out.prompt = counter.count(keel::build_system_prompt(parts));
  for (const keel::ToolSpec& t : keel::offered_tools(tools, {})) out.tools += counter.count_tool(t);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int n = 100;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--tools") == 0) n = std::atoi(argv[i + 1]);
  }
  if (n < 1) {
    std::fprintf(stderr, "usage: keel_tool_defer_bench [--tools N]  (N >= 1)\n");
    return 2;
  }
  const UpFront offered = measure(n, false);
  const UpFront deferred = measure(n, true);
  std::printf("MCP tools: %d (plus 4 built-in)\n", n);
  std::printf("%-10s %14s %18s %14s\n", "mode", "system prompt", "tool definitions", "total");
  std::printf("%-10s %14zu %18zu %14zu\n", "offered", offered.prompt, offered.tools, offered.prompt + offered.tools);
  std::printf("%-10s %14zu %18zu %14zu\n", "deferred", deferred.prompt, deferred.tools, deferred.prompt + deferred.tools);
  std::printf("deferred sends %.1f%% of the tokens up front\n",
              100.0 * static_cast<double>(deferred.prompt + deferred.tools) /
                  static_cast<double>(offered.prompt + offered.tools));
  return 0;
}
