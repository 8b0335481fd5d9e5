// keel::ModelChatTemplate: a model's Jinja chat template, run by llama.cpp's engine (common/jinja).
#include "keel/model_chat_template.hpp"

#include <nlohmann/json.hpp>

#if KEEL_HAS_JINJA
#include <ctime>
#include <exception>

#include <jinja/lexer.h>
#include <jinja/parser.h>
#include <jinja/runtime.h>
#include <json.h>  // llama.cpp common/json.h (common_json)
#endif

namespace keel {

using OrderedJson = nlohmann::ordered_json;

namespace {

// Tool-call arguments as transformers passes them: the object when the text is one, else the text.
OrderedJson arguments_value(const std::string& text) {
  if (text.empty()) return OrderedJson::object();
  OrderedJson parsed = OrderedJson::parse(text, nullptr, false);
  if (!parsed.is_discarded() && parsed.is_object()) return parsed;
  return text;
}

OrderedJson messages_value(std::span<const Message> messages) {
  OrderedJson out = OrderedJson::array();
  for (const Message& m : messages) {
    OrderedJson j = {{"role", std::string(role_name(m.role))}, {"content", m.content}};
    if (m.role == Role::kAssistant && !m.reasoning.empty()) j["reasoning_content"] = m.reasoning;
    if (!m.tool_calls.empty()) {
      OrderedJson calls = OrderedJson::array();
      for (const ToolCall& c : m.tool_calls) {
        calls.push_back({{"id", c.id},
                         {"type", "function"},
                         {"function", {{"name", c.name}, {"arguments", arguments_value(c.arguments)}}}});
      }
      j["tool_calls"] = std::move(calls);
    }
    if (m.role == Role::kTool) {
      j["tool_call_id"] = m.tool_call_id;
      j["name"] = m.name;
    }
    out.push_back(std::move(j));
  }
  return out;
}

OrderedJson tools_value(std::span<const ToolSpec> tools) {
  OrderedJson out = OrderedJson::array();
  for (const ToolSpec& t : tools) {
    OrderedJson params = OrderedJson::parse(t.parameters_schema, nullptr, false);
    if (params.is_discarded()) params = OrderedJson::object();
    out.push_back({{"type", "function"},
                   {"function", {{"name", t.name}, {"description", t.description}, {"parameters", std::move(params)}}}});
  }
  return out;
}

}  // namespace

std::string chat_template_messages_json(std::span<const Message> messages) { return messages_value(messages).dump(); }
std::string chat_template_tools_json(std::span<const ToolSpec> tools) { return tools_value(tools).dump(); }

#if KEEL_HAS_JINJA

struct ModelChatTemplate::Impl {
  std::string name;
  std::string source;
  jinja::program program;
};

namespace {

size_t line_of(const std::string& source, size_t pos) {
  size_t line = 1;
  for (size_t i = 0; i < pos && i < source.size(); ++i) line += source[i] == '\n' ? 1 : 0;
  return line;
}

// The line a parser error is on. The error names only the token, so the tokens are parsed in ever
// shorter prefixes: the shortest prefix that fails the same way ends at the culprit.
size_t parser_error_line(const std::string& source, const jinja::lexer_result& tokens, const std::string& what) {
  auto fails_alike = [&](size_t n) {
    jinja::lexer_result prefix{{tokens.tokens.begin(), tokens.tokens.begin() + static_cast<std::ptrdiff_t>(n)}, tokens.source};
    try {
      (void)jinja::parse_from_tokens(prefix);
    } catch (const std::exception& e) {
      return what == e.what();
    }
    return false;
  };
  size_t lo = 1, hi = tokens.tokens.size();
  if (hi == 0 || !fails_alike(hi)) return 0;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (fails_alike(mid)) hi = mid;
    else lo = mid + 1;
  }
  return line_of(source, tokens.tokens[lo - 1].pos);
}

// The line a lexer error is on: the error shows the source around its position ("...text...",
// newlines as ↵) with a caret under it.
size_t lexer_error_line(const std::string& source, const std::string& what) {
  size_t open = what.find("\n...");
  size_t caret = what.rfind('^');
  if (open == std::string::npos || caret == std::string::npos || caret < open) return 0;
  size_t body = open + 4;
  size_t end = what.find("...\n", body);
  size_t caret_line = what.rfind('\n', caret);
  if (end == std::string::npos || caret_line == std::string::npos) return 0;
  std::string shown = what.substr(body, end - body);
  for (size_t at; (at = shown.find("\xE2\x86\xB5")) != std::string::npos;) shown.replace(at, 3, "\n");
  size_t start = source.find(shown);
  size_t offset = caret - caret_line - 1;  // the caret line starts with three spaces for "..."
  if (start == std::string::npos || offset < 3) return 0;
  return line_of(source, start + offset - 3);
}

std::string syntax_error(const std::string& name, size_t line, const std::string& what) {
  return "chat template " + name + ": " + (line > 0 ? "line " + std::to_string(line) + ": " : std::string()) +
         "syntax error: " + what.substr(0, what.find('\n'));
}

// A run-time error: the engine says "While executing X at line N, column M in source: ... Error: Y".
std::string render_error(const std::string& name, const std::string& what) {
  std::string line;
  if (size_t at = what.rfind(" at line "); at != std::string::npos) {
    size_t end = what.find(',', at);
    if (end != std::string::npos) line = what.substr(at + 4, end - at - 4) + ": ";
  }
  std::string message = what;
  if (size_t at = message.rfind("Error: "); at != std::string::npos) message = message.substr(at + 7);
  while (!message.empty() && (message.front() == '\n' || message.front() == ' ')) message.erase(0, 1);
  return "chat template " + name + ": " + line + message;
}

}  // namespace

bool chat_template_engine_available() { return true; }

Result<ModelChatTemplate> ModelChatTemplate::parse(std::string source, std::string name) {
  auto impl = std::make_shared<Impl>();
  impl->name = std::move(name);
  impl->source = std::move(source);
  jinja::lexer_result tokens;
  try {
    jinja::lexer lexer;
    tokens = lexer.tokenize(impl->source);
  } catch (const std::exception& e) {
    return Status::InvalidArgument(syntax_error(impl->name, lexer_error_line(impl->source, e.what()), e.what()));
  }
  try {
    impl->program = jinja::parse_from_tokens(tokens);
  } catch (const std::exception& e) {
    return Status::InvalidArgument(syntax_error(impl->name, parser_error_line(impl->source, tokens, e.what()), e.what()));
  }
  return ModelChatTemplate(std::move(impl));
}

namespace {

// Runs the template on `variables`, and on `marked` (variables whose text counts as the messages').
Result<jinja::string> run_template(const ModelChatTemplate::Impl& t, std::string_view variables, std::string_view marked,
                                   int64_t now_seconds) {
  try {
    common_json plain = common_json::parse(std::string(variables));
    if (!plain.is_object()) {
      return Status::InvalidArgument("chat template " + t.name + ": the variables must be one JSON object");
    }
    jinja::context ctx(t.source);
    if (now_seconds > 0) ctx.current_time = static_cast<std::time_t>(now_seconds);
    jinja::global_from_json(ctx, plain, false);
    if (!marked.empty()) jinja::global_from_json(ctx, common_json::parse(std::string(marked)), true);
    jinja::runtime runtime(ctx);
    jinja::value results = runtime.execute(t.program);
    return jinja::runtime::gather_string_parts(results)->as_string();
  } catch (const common_json_error& e) {
    return Status::InvalidArgument("chat template " + t.name + ": the variables are not JSON: " + e.what());
  } catch (const std::exception& e) {
    return Status::InvalidArgument(render_error(t.name, e.what()));
  }
}

}  // namespace

Result<std::string> ModelChatTemplate::render_json(std::string_view variables_json, int64_t now_seconds) const {
  KEEL_ASSIGN_OR_RETURN(jinja::string out, run_template(*impl_, variables_json, {}, now_seconds));
  return out.str();
}

Result<std::vector<ModelChatTemplate::Part>> ModelChatTemplate::render_parts(const ChatTemplateInputs& in) const {
  KEEL_ASSIGN_OR_RETURN(std::string variables, variables_json(in, false));
  KEEL_ASSIGN_OR_RETURN(std::string messages, variables_json(in, true));
  KEEL_ASSIGN_OR_RETURN(jinja::string out, run_template(*impl_, variables, messages, in.now_seconds));
  std::vector<Part> parts;
  for (const jinja::string_part& p : out.parts) {
    if (p.val.empty()) continue;
    if (!parts.empty() && parts.back().from_messages == p.is_input) parts.back().text.append(p.val);
    else parts.push_back({p.val, p.is_input});
  }
  return parts;
}

#else  // no engine in this build

struct ModelChatTemplate::Impl {
  std::string name;
  std::string source;
};

bool chat_template_engine_available() { return false; }

Result<ModelChatTemplate> ModelChatTemplate::parse(std::string, std::string name) {
  return Status::Unavailable("chat template " + name +
                             ": this keel was built without llama.cpp's Jinja engine (KEEL_JINJA_SOURCE_DIR)");
}

Result<std::string> ModelChatTemplate::render_json(std::string_view, int64_t) const {
  return Status::Unavailable("this keel was built without llama.cpp's Jinja engine");
}

Result<std::vector<ModelChatTemplate::Part>> ModelChatTemplate::render_parts(const ChatTemplateInputs&) const {
  return Status::Unavailable("this keel was built without llama.cpp's Jinja engine");
}

#endif

Result<std::string> ModelChatTemplate::variables_json(const ChatTemplateInputs& in, bool messages_only) const {
  constexpr auto kReplace = OrderedJson::error_handler_t::replace;  // invalid UTF-8 never throws
  if (messages_only) return OrderedJson{{"messages", messages_value(in.messages)}}.dump(-1, ' ', false, kReplace);
  OrderedJson vars = {{"bos_token", in.bos_token}, {"eos_token", in.eos_token}, {"add_generation_prompt", in.add_generation_prompt}};
  if (!in.tools.empty()) vars["tools"] = tools_value(in.tools);
  if (in.enable_thinking) vars["enable_thinking"] = *in.enable_thinking;
  if (!in.extra_json.empty()) {
    OrderedJson extra = OrderedJson::parse(in.extra_json, nullptr, false);
    if (extra.is_discarded() || !extra.is_object()) {
      return Status::InvalidArgument("chat template " + name() + ": the extra variables must be one JSON object");
    }
    for (auto& [k, v] : extra.items()) vars[k] = v;
  }
  return vars.dump(-1, ' ', false, kReplace);
}

Result<std::string> ModelChatTemplate::render(const ChatTemplateInputs& in) const {
  KEEL_ASSIGN_OR_RETURN(std::vector<Part> parts, render_parts(in));
  std::string out;
  for (const Part& p : parts) out.append(p.text);
  return out;
}

const std::string& ModelChatTemplate::name() const { return impl_->name; }
const std::string& ModelChatTemplate::source() const { return impl_->source; }

}  // namespace keel
