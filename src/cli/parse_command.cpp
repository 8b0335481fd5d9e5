// `keel parse`: runs the universal tool-call parser on a model's raw output and prints what keel
// understood, as one JSON object. For people debugging their model's output, and for tests.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/command_table.hpp"
#include "cli/commands.hpp"
#include "keel/core/universal_parser.hpp"

namespace keel::cli {
namespace {

using ParseJson = nlohmann::json;  // keys sorted, as keel parse prints them

bool read_all(const std::string& path, std::string& out) {
  if (path == "-") {
    out.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    return true;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

// Tools in the OpenAI `tools` array format.
Result<std::vector<ToolSpec>> load_tools(const std::string& path) {
  std::string text;
  if (!read_all(path, text)) return Status::NotFound("cannot read tools file '" + path + "'");
  ParseJson doc = ParseJson::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_array()) {
    return Status::InvalidArgument(path + ": expected a JSON array of {\"type\": \"function\", \"function\": {...}}");
  }
  std::vector<ToolSpec> out;
  for (const auto& t : doc) {
    const ParseJson* fn = t.is_object() && t.contains("function") ? &t["function"] : &t;
    if (!fn->is_object() || !fn->contains("name") || !(*fn)["name"].is_string()) {
      return Status::InvalidArgument(path + ": every tool needs function.name");
    }
    ToolSpec s;
    s.name = (*fn)["name"].get<std::string>();
    if (fn->contains("description") && (*fn)["description"].is_string()) s.description = (*fn)["description"];
    if (fn->contains("parameters")) s.parameters_schema = (*fn)["parameters"].dump();
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

int parse_command(const ParseArgs& args) {
  if (args.list_formats) {
    for (const auto& [name, description] : UniversalToolCallParser::formats()) {
      std::printf("%-16s %s\n", name.c_str(), description.c_str());
    }
    return kExitOk;
  }
  auto parser = UniversalToolCallParser::create(args.format);
  if (!parser.ok()) {
    std::fprintf(stderr, "keel: %s\n", parser.status().message().c_str());
    return kExitUsage;
  }
  std::vector<ToolSpec> tools;
  if (args.tools) {
    auto loaded = load_tools(*args.tools);
    if (!loaded.ok()) {
      std::fprintf(stderr, "keel: %s\n", loaded.status().message().c_str());
      return kExitUsage;
    }
    tools = std::move(loaded).value();
  }
  std::string input;
  if (!read_all(args.input, input)) {
    std::fprintf(stderr, "keel: cannot read '%s'\n", args.input.c_str());
    return kExitUsage;
  }
  ParseOutcome out = (*parser)->parse_full(input, tools);
  ParseJson calls = ParseJson::array();
  for (const auto& c : out.calls) {
    ParseJson call = {{"name", c.name}, {"arguments", ParseJson::parse(c.arguments, nullptr, false)}};
    if (!c.id.empty()) call["id"] = c.id;
    calls.push_back(std::move(call));
  }
  ParseJson result = {{"format", out.format},   {"content", out.content}, {"reasoning", out.reasoning},
                 {"tool_calls", calls},     {"repairs", out.repairs},
                 {"error", out.error ? ParseJson(*out.error) : ParseJson(nullptr)}};
  std::printf("%s\n", result.dump(2, ' ', false, ParseJson::error_handler_t::replace).c_str());
  return out.error ? kExitRunFailed : kExitOk;
}

void add_parse_command(CLI::App& app, CommandAction& action) {
  auto parse = std::make_shared<ParseArgs>();
  CLI::App* cmd = app.add_subcommand("parse", command_summary("parse"));
  cmd->add_option("input", parse->input, "File with the model output, or - for stdin (default -)");
  cmd->add_option("--format,-f", parse->format, "auto (default) or a format from --list-formats");
  cmd->add_option("--tools", parse->tools, "Tool definitions as an OpenAI tools array (JSON file)");
  cmd->add_flag("--list-formats", parse->list_formats, "List the supported formats and exit");
  on_parsed(cmd, action, parse, &parse_command);
}

}  // namespace keel::cli
