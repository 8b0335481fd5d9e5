// `keel template render|inspect`: what a local model receives, from its own chat template.
#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/command_table.hpp"
#include "cli/commands.hpp"
#include "keel/gguf_info.hpp"
#include "keel/model_chat_template.hpp"

namespace keel::cli {
namespace {

struct TemplateArgs {
  std::string template_file, gguf, messages, tools;
  bool add_generation_prompt = false;
  std::string bos, eos;
  bool json = false;
};

Result<std::string> read_text(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("cannot read " + what + " " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Result<ModelChatTemplate> load_template(const TemplateArgs& a) {
  if (a.template_file.empty() == a.gguf.empty()) {
    return Status::InvalidArgument("give one of --template FILE.jinja or --gguf FILE");
  }
  if (!a.template_file.empty()) {
    KEEL_ASSIGN_OR_RETURN(std::string text, read_text(a.template_file, "the template"));
    return ModelChatTemplate::parse(std::move(text), a.template_file);
  }
  KEEL_ASSIGN_OR_RETURN(GgufInfo info, read_gguf_info(a.gguf));
  if (info.chat_template.empty()) {
    return Status::InvalidArgument(a.gguf + " has no chat template (tokenizer.chat_template); keel would use a built-in format");
  }
  return ModelChatTemplate::parse(std::move(info.chat_template), a.gguf);
}

Result<nlohmann::ordered_json> read_json_file(const std::string& path, const std::string& what) {
  KEEL_ASSIGN_OR_RETURN(std::string text, read_text(path, what));
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_array()) return Status::InvalidArgument(what + " " + path + " is not a JSON array");
  return j;
}

int fail(const Status& s) {
  std::cerr << "keel: " << s.message() << "\n";
  return kExitUsage;
}

int render_command(const TemplateArgs& a) {
  Result<ModelChatTemplate> t = load_template(a);
  if (!t.ok()) return fail(t.status());
  Result<nlohmann::ordered_json> messages = read_json_file(a.messages, "the messages file");
  if (!messages.ok()) return fail(messages.status());
  nlohmann::ordered_json vars = {{"messages", *messages},
                                 {"bos_token", a.bos},
                                 {"eos_token", a.eos},
                                 {"add_generation_prompt", a.add_generation_prompt}};
  if (!a.tools.empty()) {
    Result<nlohmann::ordered_json> tools = read_json_file(a.tools, "the tools file");
    if (!tools.ok()) return fail(tools.status());
    vars["tools"] = *tools;
  }
  Result<std::string> prompt = t->render_json(vars.dump());
  if (!prompt.ok()) return fail(prompt.status());
  std::cout << *prompt;
  return kExitOk;
}

int inspect_command(const TemplateArgs& a) {
  Result<ModelChatTemplate> t = load_template(a);
  if (!t.ok()) return fail(t.status());
  TemplateCallFormat f = derive_call_format(*t, a.bos, a.eos);
  const CallSyntax& s = f.syntax;
  nlohmann::ordered_json out = {{"template", t->name()},
                                {"writes_calls", f.writes_calls},
                                {"describes_tools", f.describes_tools},
                                {"grammar", f.grammar},
                                {"end_of_turn", f.end_of_turn},
                                {"sample_call", f.sample}};
  if (f.grammar) {
    out["syntax"] = {{"style", s.name_first ? "name-first" : s.list ? "json-list" : "json-object"},
                     {"calls_open", s.calls_open},
                     {"open", s.open},
                     {"name_close", s.name_close},
                     {"arguments_key", s.arguments_key},
                     {"close", s.close},
                     {"calls_close", s.calls_close},
                     {"trigger", s.trigger()}};
  }
  if (!f.note.empty()) out["note"] = f.note;
  if (a.json) {
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << "template      " << t->name() << "\n";
  std::cout << "end of turn   " << f.end_of_turn << "\n";
  std::cout << "tools         " << (f.describes_tools ? "described by the template" : "ignored by the template (keel describes them)") << "\n";
  if (!f.writes_calls) {
    std::cout << "calls         not written by the template: " << f.note << "\n";
    return kExitOk;
  }
  std::cout << "sample call   " << f.sample << "\n";
  if (f.grammar) {
    std::cout << "call format   " << out["syntax"]["style"].get<std::string>() << ", grammar from " << s.trigger() << "\n";
  } else {
    std::cout << "call format   no grammar (" << f.note << "); replies read by the universal parser\n";
  }
  return kExitOk;
}

}  // namespace

void add_template_commands(CLI::App& app, CommandAction& action) {
  CLI::App* cmd = app.add_subcommand("template", command_summary("template"));
  cmd->require_subcommand(1);
  auto args = std::make_shared<TemplateArgs>();
  auto source = [args](CLI::App* sub) {
    sub->add_option("--template", args->template_file, "A Jinja chat template file");
    sub->add_option("--gguf", args->gguf, "A GGUF file whose tokenizer.chat_template is used");
    sub->add_option("--bos", args->bos, "The text of bos_token");
    sub->add_option("--eos", args->eos, "The text of eos_token");
  };
  CLI::App* render = cmd->add_subcommand("render", "Print the exact prompt the template renders");
  source(render);
  render->add_option("--messages", args->messages, "A JSON array of messages (OpenAI's shape)")->required();
  render->add_option("--tools", args->tools, "A JSON array of tools ({\"type\":\"function\",\"function\":{...}})");
  render->add_flag("--add-generation-prompt", args->add_generation_prompt, "End with the assistant turn's opening");
  render->callback([&action, args] { action = [args] { return render_command(*args); }; });
  CLI::App* inspect = cmd->add_subcommand("inspect", "Print the call format derived from the template");
  source(inspect);
  inspect->add_flag("--json", args->json, "Print JSON");
  inspect->callback([&action, args] { action = [args] { return inspect_command(*args); }; });
}

}  // namespace keel::cli
