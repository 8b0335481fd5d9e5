// The WebAssembly host's entry points: JSON in, JSON out, for the JavaScript package (js/keel).
//
// keel_call(request) takes {"op", ...} and answers a JSON object; the answer's text stays valid
// until the next call. keel_start(n) and keel_step(n, event) are start and step without the
// envelope, read and written without a document (the calls of every step; see below). Machines
// live in a table under integer handles the package holds:
//   {"op":"version"}                          -> {"version"}
//   {"op":"create","spec":{...}}              -> {"machine": n} | {"error"}   (HostedMachine::create)
//   {"op":"start","machine":n}                -> a decision (HostedMachine::start)
//   {"op":"step","machine":n,"event":{...}}   -> a decision | {"action":"error","error"}
//   {"op":"guidance","machine":n,"text":"..."} / {"op":"compact","machine":n} -> {"ok":true}
//   {"op":"state","machine":n}                -> HostedMachine::state()
//   {"op":"free","machine":n}                 -> {"ok":true}
// and, for a host that runs a local model in the page (js/keel/wllama_model.mjs), the prompt text
// and the tool-call grammar the native in-process backend would use (keel/core/chat_template.hpp,
// keel/core/gbnf_grammar.hpp):
//   {"op":"render_chat","template":"..." | "family":"chatml","messages":[...],"tools":[...],
//    "add_generation_prompt":true,"add_bos":false}
//       -> {"prompt","family","recognised","stop":[...]}
//   {"op":"tool_grammar","template":"..." | "family":"chatml","tools":[...],"choice":"auto"|"required",
//    "max_calls":16,"max_string_chars":0}
//       -> {"gbnf","triggers":[...],"family","recognised","open","close"}
// Messages are chat_message_from_json's form, tools tool_spec_from_json's ({name, description,
// parameters}). The core does not run Jinja: a template picks its family by its markers
// (detect_chat_family), and one that matches none is written as ChatML ("recognised": false), as
// the native backend does for a model without a template. "family" names one directly.
// Anything unreadable is answered {"error": "..."}; no exception leaves this file.
#include <emscripten/emscripten.h>

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "keel/core/chat_template.hpp"
#include "keel/core/gbnf_grammar.hpp"
#include "keel/core/hosted_machine.hpp"
#include "keel/core/json_codec.hpp"

namespace {

using keel::Result;
using nlohmann::json;

constexpr const char* kKeelVersion = "0.1.0";

std::map<int, std::unique_ptr<keel::HostedMachine>>& machines() {
  static std::map<int, std::unique_ptr<keel::HostedMachine>> table;
  return table;
}

json error(std::string message) {
  return {{"error", std::move(message)}};
}

// The prompt family a request names ("family") or its template implies ("template"); ChatML when
// neither says (recognised = false).
Result<std::pair<keel::ChatFamily, bool>> family_of(const json& req) {
  if (req.contains("family") && !req["family"].is_null()) {
    if (!req["family"].is_string()) return keel::Status::InvalidArgument("'family' must be a string");
    const std::string name = req["family"].get<std::string>();
    std::optional<keel::ChatFamily> f = keel::chat_family_from_name(name);
    if (!f) return keel::Status::InvalidArgument("unknown family '" + name + "' (chatml, llama3, mistral or gemma)");
    return std::pair{*f, true};
  }
  if (req.contains("template") && !req["template"].is_null()) {
    if (!req["template"].is_string()) return keel::Status::InvalidArgument("'template' must be a string");
    std::optional<keel::ChatFamily> f = keel::detect_chat_family(req["template"].get<std::string>());
    if (f) return std::pair{*f, true};
  }
  return std::pair{keel::ChatFamily::kChatML, false};
}

Result<std::vector<keel::ToolSpec>> tools_of(const json& req) {
  if (!req.contains("tools") || req["tools"].is_null()) return std::vector<keel::ToolSpec>();
  return keel::tool_specs_from_json(req["tools"], "tools");
}

json render_chat(const json& req) {
  auto family = family_of(req);
  if (!family.ok()) return error(family.status().message());
  auto tools = tools_of(req);
  if (!tools.ok()) return error(tools.status().message());
  if (!req.contains("messages")) return error("'render_chat' needs a 'messages' array");
  auto messages = keel::chat_messages_from_json(req["messages"], "messages");
  if (!messages.ok()) return error(messages.status().message());
  for (const char* flag : {"add_generation_prompt", "add_bos"}) {
    if (req.contains(flag) && !req[flag].is_boolean()) {
      return error(std::string("'") + flag + "' must be true or false");
    }
  }
  keel::ChatRenderOptions options;
  options.tools = *tools;
  options.add_generation_prompt = req.value("add_generation_prompt", true);
  options.add_bos = req.value("add_bos", false);
  return {{"prompt", keel::render_chat(family->first, *messages, options)},
          {"family", std::string(keel::chat_family_name(family->first))},
          {"recognised", family->second},
          {"stop", keel::stop_strings(family->first)}};
}

json tool_grammar(const json& req) {
  auto family = family_of(req);
  if (!family.ok()) return error(family.status().message());
  auto tools = tools_of(req);
  if (!tools.ok()) return error(tools.status().message());
  if (req.contains("choice") && !req["choice"].is_string()) return error("'choice' must be \"auto\" or \"required\"");
  const std::string choice = req.value("choice", std::string("auto"));
  if (choice != "auto" && choice != "required") return error("'choice' must be \"auto\" or \"required\"");
  if (req.contains("max_calls") && !req["max_calls"].is_number_integer()) return error("'max_calls' must be 1 to 16");
  const int64_t max_calls = req.value("max_calls", int64_t{16});
  if (max_calls < 1 || max_calls > 16) return error("'max_calls' must be 1 to 16");
  if (req.contains("max_string_chars") && !req["max_string_chars"].is_number_integer()) {
    return error("'max_string_chars' must be a whole number (0: no limit)");
  }
  const int64_t max_string_chars = req.value("max_string_chars", int64_t{0});
  const keel::CallSyntax syntax = keel::call_syntax(family->first);
  Result<keel::ToolGrammar> g =
      keel::tool_call_grammar(*tools, syntax, choice == "auto" ? keel::ToolChoice::kAuto : keel::ToolChoice::kRequired,
                              static_cast<int>(max_calls), max_string_chars);
  if (!g.ok()) return error(g.status().message());
  return {{"gbnf", g->gbnf},
          {"triggers", g->triggers},
          {"family", std::string(keel::chat_family_name(family->first))},
          {"recognised", family->second},
          {"open", syntax.trigger()},
          {"close", syntax.calls_close.empty() ? syntax.close : syntax.calls_close}};
}

json no_machine(int handle) {
  return error("no machine " + std::to_string(handle) + " (freed or never created)");
}

json dispatch(const json& req) {
  if (!req.is_object() || !req.contains("op") || !req["op"].is_string()) return error("a request needs a string 'op'");
  const std::string op = req["op"].get<std::string>();
  if (op == "version") return {{"version", kKeelVersion}};
  if (op == "create") {
    static int next_handle = 0;
    auto m = keel::HostedMachine::create(req.contains("spec") ? req["spec"] : json());
    if (!m.ok()) return error(m.status().message());
    int handle = ++next_handle;
    machines()[handle] = std::make_unique<keel::HostedMachine>(std::move(*m));
    return {{"machine", handle}};
  }
  if (op == "render_chat") return render_chat(req);
  if (op == "tool_grammar") return tool_grammar(req);
  if (!req.contains("machine") || !req["machine"].is_number_integer())
    return error("'" + op + "' needs a 'machine' handle");
  auto it = machines().find(req["machine"].get<int>());
  if (it == machines().end()) return no_machine(req["machine"].get<int>());
  keel::HostedMachine& m = *it->second;
  if (op == "start") return m.start();
  if (op == "step") return m.step(req.contains("event") ? req["event"] : json());
  if (op == "state") return m.state();
  if (op == "guidance") {
    if (!req.contains("text") || !req["text"].is_string()) return error("'guidance' needs a string 'text'");
    m.add_guidance(req["text"].get<std::string>());
    return {{"ok", true}};
  }
  if (op == "compact") {
    m.request_compaction();
    return {{"ok", true}};
  }
  if (op == "free") {
    machines().erase(it);
    return {{"ok", true}};
  }
  return error("unknown op '" + op + "'");
}

}  // namespace

extern "C" EMSCRIPTEN_KEEPALIVE const char* keel_call(const char* request) {
  static std::string answer;
  try {
    json req = json::parse(request ? request : "", nullptr, false);
    answer = req.is_discarded() ? error("the request is not JSON").dump() : dispatch(req).dump();
  } catch (const std::exception& e) {
    answer = error(std::string("internal error: ") + e.what()).dump();
  }
  return answer.c_str();
}

namespace {

// decide(machine) for the machine `handle` names, or {"error"} when it names none; the answer stays
// valid until the next call.
template <typename Decide>
const char* machine_answer(int handle, Decide decide) {
  static std::string answer;
  try {
    auto it = machines().find(handle);
    answer = it == machines().end() ? no_machine(handle).dump() : decide(*it->second);
  } catch (const std::exception& e) {
    answer = error(std::string("internal error: ") + e.what()).dump();
  }
  return answer.c_str();
}

}  // namespace

// The calls of every step, without an envelope or a document: the first decision of machine
// `handle`, and its next one for `event` (event_from_json's form, as text). The answer is the
// decision's text, as HostedMachine writes it, or {"error"} for a handle that names no machine; it
// stays valid until the next call.
extern "C" EMSCRIPTEN_KEEPALIVE const char* keel_start(int handle) {
  return machine_answer(handle, [](keel::HostedMachine& m) { return m.start_text(); });
}

extern "C" EMSCRIPTEN_KEEPALIVE const char* keel_step(int handle, const char* event) {
  return machine_answer(handle, [&](keel::HostedMachine& m) { return m.step_text(event ? event : ""); });
}
