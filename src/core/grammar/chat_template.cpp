// Chat families: names, detection from a Jinja template, call syntax and stop strings.
#include "keel/core/chat_template.hpp"

#include <string_view>

namespace keel {
namespace {

std::string_view trim_call_text(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\n' || s.front() == '\t' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// One call as {"name": NAME, "<key>": ARGS}; NAME is a registry name ([A-Za-z0-9_.-]), but is
// escaped anyway so any text stays JSON.
void append_call_json(std::string& out, const CallSyntax& syntax, const ToolCall& call) {
  out.append("{\"name\": \"");
  for (char c : call.name) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.append("\", \"");
  out.append(syntax.arguments_key);
  out.append("\": ");
  std::string_view args = trim_call_text(call.arguments);
  out.append(args.empty() ? std::string_view("{}") : args);
  out.push_back('}');
}

}  // namespace

std::string_view chat_family_name(ChatFamily f) {
  switch (f) {
    case ChatFamily::kChatML:
      return "chatml";
    case ChatFamily::kLlama3:
      return "llama3";
    case ChatFamily::kMistral:
      return "mistral";
    case ChatFamily::kGemma:
      return "gemma";
  }
  return "chatml";
}

std::optional<ChatFamily> chat_family_from_name(std::string_view n) {
  for (ChatFamily f : {ChatFamily::kChatML, ChatFamily::kLlama3, ChatFamily::kMistral, ChatFamily::kGemma}) {
    if (chat_family_name(f) == n) return f;
  }
  return std::nullopt;
}

std::optional<ChatFamily> detect_chat_family(std::string_view template_text) {
  // The most specific markers first: some ChatML and Gemma templates mention "[INST]" (to
  // convert Mistral data), no other family writes <|start_header_id|> or <start_of_turn>.
  if (template_text.find("<|start_header_id|>") != std::string_view::npos) return ChatFamily::kLlama3;
  if (template_text.find("<start_of_turn>") != std::string_view::npos) return ChatFamily::kGemma;
  if (template_text.find("<|im_start|>") != std::string_view::npos) return ChatFamily::kChatML;
  if (template_text.find("[INST]") != std::string_view::npos) return ChatFamily::kMistral;
  return std::nullopt;
}

CallSyntax call_syntax(ChatFamily f) {
  CallSyntax s;
  s.arguments_key = "arguments";
  switch (f) {
    case ChatFamily::kChatML:
    case ChatFamily::kGemma:
      s.open = "<tool_call>";
      s.close = "</tool_call>";
      break;
    case ChatFamily::kLlama3:
      s.open = "<|python_tag|>";
      s.arguments_key = "parameters";
      break;
    case ChatFamily::kMistral:
      s.open = "[TOOL_CALLS]";
      s.list = true;
      break;
  }
  return s;
}

std::string render_tool_calls(const CallSyntax& syntax, std::span<const ToolCall> calls) {
  std::string out;
  if (calls.empty()) return out;
  if (syntax.name_first) {
    out.append(syntax.calls_open);
    for (size_t i = 0; i < calls.size(); ++i) {
      if (i > 0 && syntax.calls_open.empty()) out.push_back('\n');
      std::string_view args = trim_call_text(calls[i].arguments);
      out.append(syntax.open).append(calls[i].name).append(syntax.name_close);
      out.append(args.empty() ? std::string_view("{}") : args).append(syntax.close);
    }
    out.append(syntax.calls_close);
    return out;
  }
  if (syntax.list) {
    out.append(syntax.open);
    out.push_back('[');
    for (size_t i = 0; i < calls.size(); ++i) {
      if (i > 0) out.append(", ");
      append_call_json(out, syntax, calls[i]);
    }
    out.push_back(']');
    out.append(syntax.close);
    return out;
  }
  // Tagged blocks put the JSON on its own line, as Hermes and Qwen write it.
  const bool lines = !syntax.close.empty();
  out.append(syntax.calls_open);
  for (size_t i = 0; i < calls.size(); ++i) {
    if (i > 0 || !syntax.calls_open.empty()) out.push_back('\n');
    out.append(syntax.open);
    if (lines) out.push_back('\n');
    append_call_json(out, syntax, calls[i]);
    if (lines) out.push_back('\n');
    out.append(syntax.close);
  }
  out.append(syntax.calls_close);
  return out;
}

std::vector<std::string> stop_strings(ChatFamily f) {
  switch (f) {
    case ChatFamily::kChatML:
      return {"<|im_end|>", "<|endoftext|>"};
    case ChatFamily::kLlama3:
      return {"<|eot_id|>", "<|eom_id|>", "<|end_of_text|>"};
    case ChatFamily::kMistral:
      return {"</s>"};
    case ChatFamily::kGemma:
      return {"<end_of_turn>", "<eos>"};
  }
  return {};
}

}  // namespace keel
